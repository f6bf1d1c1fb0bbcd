// A folder's folders and trace files (dir_listing.h), through std::filesystem's error_code
// overloads so that a folder the user may not read, or one removed meanwhile, is an error text.
#include "engine/util/dir_listing.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace streamlab {
namespace fs = std::filesystem;

namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool NameLess(const DirEntry& a, const DirEntry& b) {
  if (a.folder != b.folder) return a.folder;
  return std::lexicographical_compare(a.name.begin(), a.name.end(), b.name.begin(), b.name.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

DirListing ListDirectory(const std::string& dir, const std::vector<std::string>& suffixes, size_t most) {
  DirListing out;
  std::error_code ec;
  fs::path path = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec).lexically_normal();
  if (ec) path = dir;
  std::string text = path.string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();  // "a/b/" -> "a/b"
  out.dir = text;
  fs::directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    out.error = out.dir + ": " + ec.message();
    return out;
  }
  std::vector<DirEntry> found;
  for (fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      out.error = out.dir + ": " + ec.message();
      break;
    }
    std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code kind_ec;
    bool folder = it->is_directory(kind_ec);  // follows links: a link to a folder is one
    if (kind_ec) continue;
    if (!folder) {
      if (!it->is_regular_file(kind_ec) || kind_ec) continue;
      if (std::none_of(suffixes.begin(), suffixes.end(), [&](const std::string& s) { return EndsWith(name, s); })) continue;
    }
    DirEntry e{name, folder, 0};
    if (!folder) {
      std::error_code size_ec;
      e.bytes = it->file_size(size_ec);
      if (size_ec) e.bytes = 0;
    }
    found.push_back(std::move(e));
  }
  std::sort(found.begin(), found.end(), NameLess);
  if (found.size() > most) {
    out.left_out = found.size() - most;
    found.resize(most);
  }
  out.entries = std::move(found);
  return out;
}

std::string ParentDirectory(const std::string& dir) {
  std::string s = fs::path(dir).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  fs::path parent = fs::path(s).parent_path();  // "/" for "/" and "/a"
  return parent.empty() ? s : parent.string();
}

}  // namespace streamlab
