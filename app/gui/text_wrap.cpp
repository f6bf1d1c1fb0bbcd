// Line breaking for mixed Chinese and English text (text_wrap.h): the text is cut into atoms -
// a Latin word, or one CJK character with the punctuation that must stay with it - and atoms are
// put on a line while they fit; a break goes between atoms, where blanks are dropped.
#include "app/gui/text_wrap.h"

#include <imgui.h>

#include <cfloat>
#include <unordered_map>

namespace streamlab {
namespace {

// The code point at `at` and its length in bytes (a broken byte counts as one character).
std::pair<unsigned, size_t> Decode(std::string_view s, size_t at) {
  auto b = static_cast<unsigned char>(s[at]);
  size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
  if (at + len > s.size()) return {b, 1};
  unsigned c = len == 1 ? b : len == 2 ? (b & 0x1Fu) : len == 3 ? (b & 0x0Fu) : (b & 0x07u);
  for (size_t i = 1; i < len; ++i) c = (c << 6) | (static_cast<unsigned char>(s[at + i]) & 0x3Fu);
  return {c, len};
}

bool IsCjk(unsigned c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF) || c == 0x2014 || c == 0x2026;
}
// No line starts with these.
bool IsClosing(unsigned c) {
  switch (c) {
    case 0xFF0C:
    case 0x3002:
    case 0x3001:
    case 0xFF1B:
    case 0xFF1A:
    case 0xFF01:
    case 0xFF1F:
    case 0xFF09:
    case 0x300B:
    case 0x300D:
    case 0x300F:
    case 0x3011:
    case 0x3015:
    case 0x2026:
    case 0x2019:
    case 0x201D:
    case ')':
    case ',':
    case '.':
    case ':':
    case ';':
    case '!':
    case '?':
    case '%':
      return true;
    default:
      return false;
  }
}
// No line ends with these.
bool IsOpening(unsigned c) {
  switch (c) {
    case 0xFF08:
    case 0x300A:
    case 0x300C:
    case 0x300E:
    case 0x3010:
    case 0x3014:
    case 0x2018:
    case 0x201C:
    case '(':
      return true;
    default:
      return false;
  }
}
bool IsBlank(unsigned c) { return c == ' ' || c == '\t'; }

struct Atom {
  size_t begin, end;  // bytes of the text
  bool blank_before;  // blanks lie between it and the atom before (dropped at a break)
};

// One paragraph (no newlines) in atoms: a break may fall between two characters where either is
// CJK, unless the second closes or the first opens; and at blanks.
std::vector<Atom> Atoms(std::string_view s) {
  std::vector<Atom> atoms;
  Atom cur{0, 0, false};
  bool open = false, blank = false;
  unsigned prev = 0;
  for (size_t at = 0; at < s.size();) {
    auto [c, len] = Decode(s, at);
    if (IsBlank(c)) {
      if (open) atoms.push_back(cur);
      open = false;
      blank = true;
    } else {
      if (open && (IsCjk(prev) || IsCjk(c)) && !IsClosing(c) && !IsOpening(prev)) {
        atoms.push_back(cur);
        open = false;
      }
      if (!open) {
        cur = {at, at, blank};
        open = true;
        blank = false;
      }
      cur.end = at + len;
      prev = c;
    }
    at += len;
  }
  if (open) atoms.push_back(cur);
  return atoms;
}

void WrapParagraph(std::string_view s, float width, float size, std::vector<std::string>& out) {
  ImFont* font = ImGui::GetFont();
  auto w = [&](size_t b, size_t e) {
    return font->CalcTextSizeA(size, FLT_MAX, 0, s.data() + b, s.data() + e).x;
  };
  const float blank_w = w(0, 0) + font->CalcTextSizeA(size, FLT_MAX, 0, " ").x;
  std::string line;
  float line_w = 0;
  for (const Atom& a : Atoms(s)) {
    float aw = w(a.begin, a.end);
    float gap = a.blank_before && !line.empty() ? blank_w : 0;
    if (!line.empty() && line_w + gap + aw > width) {
      out.push_back(line);
      line.clear();
      line_w = 0;
      gap = 0;
    }
    if (line.empty() && aw > width) {
      // A word wider than a line: cut it character by character.
      size_t at = a.begin;
      while (at < a.end) {
        size_t n = Decode(s, at).second;
        float cw = w(at, at + n);
        if (!line.empty() && line_w + cw > width) {
          out.push_back(line);
          line.clear();
          line_w = 0;
        }
        line.append(s.data() + at, n);
        line_w += cw;
        at += n;
      }
      continue;
    }
    if (gap > 0) line += ' ';
    line.append(s.data() + a.begin, a.end - a.begin);
    line_w += gap + aw;
  }
  out.push_back(line);
}

struct Wrapped {
  float width = -1;
  std::string joined;
  int lines = 0;
};

const Wrapped& Cached(const std::string& text, float width) {
  static std::unordered_map<std::string, Wrapped> cache;  // a frame's texts: bounded below
  if (cache.size() > 4000) cache.clear();
  Wrapped& w = cache[text];
  if (w.width != width || w.lines == 0) {
    std::vector<std::string> lines = WrapLines(text, width, ImGui::GetFontSize());
    w.width = width;
    w.joined.clear();
    for (size_t i = 0; i < lines.size(); ++i) w.joined += (i ? "\n" : "") + lines[i];
    w.lines = static_cast<int>(lines.size());
  }
  return w;
}

}  // namespace

std::vector<std::string> WrapLines(std::string_view text, float width, float font_size) {
  std::vector<std::string> out;
  size_t at = 0;
  while (true) {
    size_t nl = text.find('\n', at);
    WrapParagraph(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at),
                  std::max(width, 1.0f), font_size, out);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

void DrawWrappedText(const std::string& text, float width) {
  const Wrapped& w = Cached(text, width);
  ImGui::TextUnformatted(w.joined.c_str(), w.joined.c_str() + w.joined.size());
}

float WrappedTextHeight(const std::string& text, float width) {
  return static_cast<float>(Cached(text, width).lines) * ImGui::GetTextLineHeight();
}

void TextWrappedAnyScript(const std::string& text) {
  DrawWrappedText(text, std::max(1.0f, ImGui::GetContentRegionAvail().x));
}

}  // namespace streamlab
