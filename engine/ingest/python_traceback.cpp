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

namespace {

using StackNames = std::map<uint32_t, std::vector<SharedName>>;

void PushFrames(std::vector<RecordedMark>& marks, int thread, uint64_t from, uint64_t to, const std::vector<SharedName>& frames) {
  for (const SharedName& name : frames) marks.push_back({thread, true, from, name, true});
  for (size_t i = 0; i < frames.size(); ++i) marks.push_back({thread, false, to, SharedName(), true});
}

// The sampler's period: as it wrote it at exit, else (a run that crashed) the usual spacing of
// consecutive samples.
uint64_t SamplePeriodNs(const Recording& r) {
  if (r.sampler.period_us > 0) return r.sampler.period_us * 1000;
  std::vector<uint64_t> gaps;
  for (size_t i = 1; i < r.python_samples.size(); ++i)
    if (r.python_samples[i].at > r.python_samples[i - 1].at) gaps.push_back(r.python_samples[i].at - r.python_samples[i - 1].at);
  if (gaps.empty()) return 1'000'000;
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return gaps[gaps.size() / 2];
}

// Samples taken outside the thread's calls, as ranges of their stacks' frames: consecutive
// samples at one stack with no call between them make one range, from half a period before the
// first to half a period after the last, never into a call (so the ranges nest with the calls'
// own and with NVTX ranges, whose pushes and pops are calls). A sample inside a call (read as
// the thread entered it) is left out: the call has its own.
void AddSampledSpans(const Recording& r, const StackNames& names, std::map<int, std::vector<RecordedMark>>& by_thread) {
  if (r.python_samples.empty()) return;
  const uint64_t period = SamplePeriodNs(r), half = period / 2;
  std::map<int, std::vector<std::pair<uint64_t, uint64_t>>> calls;  // per thread: begin, end, by begin
  for (const RecordedCall& c : r.calls) calls[c.thread].push_back({c.begin, c.end});
  for (auto& [thread, spans] : calls) std::sort(spans.begin(), spans.end());
  std::vector<Recording::PythonSample> samples = r.python_samples;
  std::stable_sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.at < b.at;
  });
  for (size_t i = 0; i < samples.size();) {
    const Recording::PythonSample& first = samples[i];
    const auto& spans = calls[first.thread];
    // The calls around the sample: the last one begun at or before it, and the next one.
    auto next = std::upper_bound(spans.begin(), spans.end(), std::make_pair(first.at, UINT64_MAX));
    uint64_t after_call = next == spans.begin() ? 0 : std::prev(next)->second;
    uint64_t before_call = next == spans.end() ? UINT64_MAX : next->first;
    if (first.at < after_call) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < samples.size() && samples[j].thread == first.thread && samples[j].stack == first.stack &&
           samples[j].at < before_call && samples[j].at - samples[j - 1].at <= period + half)
      ++j;
    const Recording::PythonSample& last = samples[j - 1];
    auto found = names.find(first.stack);
    if (found != names.end()) {
      // A nanosecond clear of the calls: marks at one time keep the order they were added in.
      uint64_t from = std::max(after_call + 1, first.at > half ? first.at - half : 0);
      uint64_t to = std::min(before_call - 1, last.at + half);
      if (to > from) PushFrames(by_thread[first.thread], first.thread, from, to, found->second);
    }
    i = j;
  }
}

}  // namespace

void AddPythonStackMarks(Recording& r) {
  if (r.python_stacks.empty()) return;
  StackNames names;  // each stack's frames, named once
  NamePool pool;
  for (const auto& [id, frames] : r.python_stacks)
    for (const std::string& frame : frames) names[id].push_back(SharedName::Intern(pool, frame));
  std::map<int, std::vector<RecordedMark>> by_thread;
  for (RecordedMark& m : r.marks) by_thread[m.thread].push_back(std::move(m));
  for (const RecordedCall& c : r.calls) {
    auto found = c.python_stack ? names.find(c.python_stack) : names.end();
    if (found != names.end()) PushFrames(by_thread[c.thread], c.thread, c.begin, c.end, found->second);
  }
  AddSampledSpans(r, names, by_thread);
  r.marks.clear();
  for (auto& [thread, marks] : by_thread) {
    // A thread's calls are in time order, and its earlier marks too: one stable merge by time.
    std::stable_sort(marks.begin(), marks.end(), [](const RecordedMark& a, const RecordedMark& b) { return a.at < b.at; });
    r.marks.insert(r.marks.end(), std::make_move_iterator(marks.begin()), std::make_move_iterator(marks.end()));
  }
}

}  // namespace streamlab
