// The JSON scanner (json_scan.h). Its rules are nlohmann's, which fuzz_json holds it to:
// strings must be valid UTF-8 (no overlong forms, no encoded surrogates, nothing past
// U+10FFFF) with control characters escaped and \u surrogates paired; numbers follow RFC 8259,
// an integer too large for 64 bits becomes a double, and a number too large for a double is an
// error; objects keep the last of repeated keys; at most 64 levels of nesting.
#include "engine/util/json_scan.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "engine/util/errors.h"

namespace streamlab {
namespace {

constexpr int kMaxDepth = 64;  // as the readers before this one

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

void AppendUtf8(unsigned cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

JsonScanner::JsonScanner(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a byte-order mark, which nlohmann skips too
}

void JsonScanner::Fail(const std::string& what) const {
  ThrowJsonSyntaxError(text_, source_, pos_ + 1, "parse error: " + what);
}

void JsonScanner::SkipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
    ++pos_;
  }
}

char JsonScanner::Peek() {
  SkipSpace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

void JsonScanner::Enter(char open) {
  if (Peek() != open) Fail(std::string("expected '") + open + "'");
  ++pos_;
  if (++depth_ > kMaxDepth) throw InputError(source_ + ": JSON nested deeper than 64 levels");
}

bool JsonScanner::Leave(char close) {
  if (Peek() != close) return false;
  ++pos_;
  --depth_;
  return true;
}

bool JsonScanner::Next(char close) {
  char c = Peek();
  if (c == ',') {
    ++pos_;
    return true;
  }
  if (Leave(close)) return false;
  Fail(std::string("expected ',' or '") + close + "'");
}

void JsonScanner::Key(std::string& key) {
  if (Peek() != '"') Fail("expected a string as an object's key");
  key.clear();
  String(&key);
  if (Peek() != ':') Fail("expected ':' after an object's key");
  ++pos_;
}

// Reads a string from its opening quote; appends its characters to `out` unless it is null.
void JsonScanner::String(std::string* out) {
  const char* data = text_.data();
  const size_t size = text_.size();
  ++pos_;
  while (true) {
    size_t run = pos_;  // plain ASCII needs no checks beyond these, so it is copied in runs
    while (pos_ < size) {
      unsigned char c = static_cast<unsigned char>(data[pos_]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
      ++pos_;
    }
    if (out) out->append(data + run, pos_ - run);
    if (pos_ >= size) Fail("the text ends inside a string");
    unsigned char c = static_cast<unsigned char>(data[pos_]);
    if (c == '"') {
      ++pos_;
      return;
    }
    if (c < 0x20) Fail("a control character in a string must be escaped");
    if (c == '\\') {
      if (++pos_ >= size) Fail("the text ends inside a string");
      char e = data[pos_++];
      char plain = 0;
      switch (e) {
        case '"': plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/': plain = '/'; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u': Unicode(out); continue;
        default: --pos_; Fail("invalid escape in a string");
      }
      if (out) out->push_back(plain);
      continue;
    }
    // A multi-byte UTF-8 character: the ranges of RFC 3629's table, as nlohmann checks them.
    size_t start = pos_;
    int more = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c == 0xE0) {
      more = 2, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
      more = 2;
    } else if (c == 0xED) {
      more = 2, hi = 0x9F;
    } else if (c == 0xF0) {
      more = 3, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
      more = 3;
    } else if (c == 0xF4) {
      more = 3, hi = 0x8F;
    } else {
      Fail("invalid UTF-8 in a string");
    }
    ++pos_;
    for (int i = 0; i < more; ++i, ++pos_) {
      if (pos_ >= size) Fail("the text ends inside a string");
      unsigned char b = static_cast<unsigned char>(data[pos_]);
      if (b < lo || b > hi) Fail("invalid UTF-8 in a string");
      lo = 0x80, hi = 0xBF;
    }
    if (out) out->append(data + start, pos_ - start);
  }
}

unsigned JsonScanner::Hex4() {
  unsigned value = 0;
  for (int i = 0; i < 4; ++i, ++pos_) {
    if (pos_ >= text_.size()) Fail("the text ends inside a string");
    char c = text_[pos_];
    unsigned digit = 0;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
    else Fail("\\u must be followed by four hex digits");
    value = value * 16 + digit;
  }
  return value;
}

// After "\u": one code point, or a surrogate pair written as two escapes.
void JsonScanner::Unicode(std::string* out) {
  unsigned cp = Hex4();
  if (cp >= 0xDC00 && cp <= 0xDFFF) Fail("a low surrogate (\\uDC00..\\uDFFF) without a high one before it");
  if (cp >= 0xD800 && cp <= 0xDBFF) {
    if (text_.substr(pos_, 2) != "\\u") Fail("a high surrogate (\\uD800..\\uDBFF) must be followed by a low one");
    pos_ += 2;
    unsigned low = Hex4();
    if (low < 0xDC00 || low > 0xDFFF) Fail("a high surrogate (\\uD800..\\uDBFF) must be followed by a low one");
    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
  }
  if (out) AppendUtf8(cp, *out);
}

// Scans a number; `build` false only checks it (converting it only where it could overflow a
// double, which nlohmann refuses even in a value nobody reads).
Json JsonScanner::Number(bool build) {
  const char* data = text_.data();
  const size_t size = text_.size();
  size_t start = pos_;
  bool negative = pos_ < size && data[pos_] == '-';
  if (negative) ++pos_;
  size_t int_start = pos_;
  if (pos_ < size && data[pos_] == '0') {
    ++pos_;
  } else if (pos_ < size && IsDigit(data[pos_])) {
    while (pos_ < size && IsDigit(data[pos_])) ++pos_;
  } else {
    Fail(negative ? "'-' must be followed by a digit" : "expected a value");
  }
  size_t int_digits = pos_ - int_start;
  bool is_float = false, has_exponent = false;
  if (pos_ < size && data[pos_] == '.') {
    is_float = true;
    if (++pos_ >= size || !IsDigit(data[pos_])) Fail("'.' must be followed by a digit");
    while (pos_ < size && IsDigit(data[pos_])) ++pos_;
  }
  if (pos_ < size && (data[pos_] == 'e' || data[pos_] == 'E')) {
    is_float = has_exponent = true;
    ++pos_;
    if (pos_ < size && (data[pos_] == '+' || data[pos_] == '-')) ++pos_;
    if (pos_ >= size || !IsDigit(data[pos_])) Fail("an exponent must have a digit");
    while (pos_ < size && IsDigit(data[pos_])) ++pos_;
  }
  if (!build && !has_exponent && int_digits < 300) return Json();
  const char* first = data + start;
  const char* last = data + pos_;
  if (!is_float) {
    if (negative) {
      int64_t v = 0;
      if (std::from_chars(first, last, v).ec == std::errc()) return Json(v);
    } else {
      uint64_t v = 0;
      if (std::from_chars(first, last, v).ec == std::errc()) return Json(v);
    }
    // Too large for 64 bits: a double, as nlohmann reads it.
  }
  double d = 0;
  if (std::from_chars(first, last, d).ec != std::errc()) {
    // Out of range: strtod gives what nlohmann gives (infinity, or a tiny number or zero).
    std::string token(first, last);
    d = std::strtod(token.c_str(), nullptr);
  }
  if (!std::isfinite(d)) {
    pos_ = start;
    Fail("number too large for a double: " + std::string(first, last).substr(0, 40));
  }
  return Json(d);
}

void JsonScanner::Literal(std::string_view word) {
  if (text_.substr(pos_, word.size()) != word) Fail("invalid literal");
  pos_ += word.size();
}

Json JsonScanner::Value() {
  char c = Peek();
  if (pos_ >= text_.size()) Fail("the text ends where a value was expected");
  switch (c) {
    case '{': {
      Json object(Json::value_t::object);
      auto& members = object.get_ref<Json::object_t&>();
      Members([&](std::string& key) {
        Json value = Value();
        members.insert_or_assign(key, std::move(value));  // the last of repeated keys, as nlohmann
      });
      return object;
    }
    case '[': {
      Json array(Json::value_t::array);
      auto& elements = array.get_ref<Json::array_t&>();
      Elements([&] { elements.push_back(Value()); });
      return array;
    }
    case '"': {
      std::string s;
      String(&s);
      return Json(std::move(s));
    }
    case 't': Literal("true"); return Json(true);
    case 'f': Literal("false"); return Json(false);
    case 'n': Literal("null"); return Json(nullptr);
    default: return Number(true);
  }
}

void JsonScanner::Skip() {
  char c = Peek();
  if (pos_ >= text_.size()) Fail("the text ends where a value was expected");
  switch (c) {
    case '{': Members([&](std::string&) { Skip(); }); return;
    case '[': Elements([&] { Skip(); }); return;
    case '"': String(nullptr); return;
    case 't': Literal("true"); return;
    case 'f': Literal("false"); return;
    case 'n': Literal("null"); return;
    default: Number(false); return;
  }
}

void JsonScanner::Finish() {
  // A NUL byte ends the text, as in nlohmann (which reads C strings too): a file padded with
  // zeros after its value is read, as it was before this scanner.
  SkipSpace();
  if (pos_ < text_.size() && text_[pos_] != '\0') Fail("unexpected text after the value");
}

Json JsonScanner::Document() {
  Json value = Value();
  Finish();
  return value;
}

void ReadTopLevelMembers(std::string_view text,
                         const std::function<bool(const std::string& key, JsonScanner& in)>& on_member) {
  try {
    JsonScanner in(text, "");
    if (in.Peek() != '{') return;
    in.MembersWhile([&](const std::string& key) { return on_member(key, in); });
  } catch (const InputError&) {
    // Malformed past the keys looked at: whoever reads the document whole says where.
  }
}

}  // namespace streamlab
