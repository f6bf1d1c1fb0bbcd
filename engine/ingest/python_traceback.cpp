// Recorded Python stacks (python_traceback.h): CPython's dump format read line by line, and
// the frames placed as range marks around the calls that carry them.
#include "engine/ingest/python_traceback.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace streamlab {

std::string RecordedFrameName(std::string_view file, int line, std::string_view function) {
  return std::string(file) + ":" + std::to_string(line) + " in " + std::string(function);
}

std::string FramePath(std::string_view path) {
  for (std::string_view packages : {"site-packages/", "dist-packages/"})
    if (size_t at = path.rfind(packages); at != std::string_view::npos) return std::string(path.substr(at + packages.size()));
  // Python's own modules: ".../lib/python3.12/contextlib.py" -> "contextlib.py".
  if (size_t lib = path.rfind("/lib/python"); lib != std::string_view::npos) {
    size_t slash = path.find('/', lib + 1 + 3 + 1);  // the one after "pythonX.Y"
    if (slash != std::string_view::npos) return std::string(path.substr(slash + 1));
  }
  if (!path.empty() && path.front() == '<') return std::string(path);  // <frozen os>, <string>
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

namespace {

constexpr size_t kMaxFrames = 256;

// `  File "PATH", line N in NAME` (N may be "???"); false for any other line.
bool ParseFrameLine(std::string_view line, std::string* name) {
  constexpr std::string_view kFile = "  File \"";
  constexpr std::string_view kLine = "\", line ";
  if (line.substr(0, kFile.size()) != kFile) return false;
  size_t path_end = line.rfind(kLine);
  if (path_end == std::string_view::npos || path_end < kFile.size()) return false;
  std::string_view path = line.substr(kFile.size(), path_end - kFile.size());
  std::string_view rest = line.substr(path_end + kLine.size());
  size_t in = rest.find(" in ");
  if (in == std::string_view::npos || in == 0 || in + 4 >= rest.size()) return false;
  std::string_view number = rest.substr(0, in), function = rest.substr(in + 4);
  int value = 0;
  if (number != "???") {
    if (number.size() > 9) return false;
    for (char c : number) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      value = value * 10 + (c - '0');
    }
  }
  if (path.empty() || function.find(' ') != std::string_view::npos) return false;
  *name = RecordedFrameName(FramePath(path), value, function);
  return true;
}

}  // namespace

std::vector<std::string> FramesOfTraceback(std::string_view text) {
  std::vector<std::string> frames;  // innermost first, as dumped
  size_t at = 0;
  while (at < text.size() && frames.size() < kMaxFrames) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) break;  // a last line cut short (the pipe was full)
    std::string name;
    if (ParseFrameLine(text.substr(at, end - at), &name)) frames.push_back(std::move(name));
    at = end + 1;
  }
  std::reverse(frames.begin(), frames.end());
  return frames;
}

void AddPythonStackMarks(Recording& r) {
  if (r.python_stacks.empty()) return;
  std::map<uint32_t, std::vector<SharedName>> names;  // each stack's frames, named once
  NamePool pool;
  for (const auto& [id, frames] : r.python_stacks)
    for (const std::string& frame : frames) names[id].push_back(SharedName::Intern(pool, frame));
  std::map<int, std::vector<RecordedMark>> by_thread;
  for (RecordedMark& m : r.marks) by_thread[m.thread].push_back(std::move(m));
  for (const RecordedCall& c : r.calls) {
    auto found = c.python_stack ? names.find(c.python_stack) : names.end();
    if (found == names.end()) continue;
    std::vector<RecordedMark>& marks = by_thread[c.thread];
    for (const SharedName& name : found->second) marks.push_back({c.thread, true, c.begin, name, true});
    for (size_t i = 0; i < found->second.size(); ++i) marks.push_back({c.thread, false, c.end, SharedName(), true});
  }
  r.marks.clear();
  for (auto& [thread, marks] : by_thread) {
    // A thread's calls are in time order, and its earlier marks too: one stable merge by time.
    std::stable_sort(marks.begin(), marks.end(), [](const RecordedMark& a, const RecordedMark& b) { return a.at < b.at; });
    r.marks.insert(r.marks.end(), std::make_move_iterator(marks.begin()), std::make_move_iterator(marks.end()));
  }
}

}  // namespace streamlab
