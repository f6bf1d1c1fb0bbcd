// A recording's ranges, as marks per host thread in time order: its NVTX calls, an importer's
// marks (torch.profiler's ops and frames), and the Python frames the recorder read at calls.
// Gives the label of the program's innermost range around a call, and the ranges themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

class RecordingRanges {
 public:
  // `text` must outlive this (the recording's own strings); `frame`: a recorded Python frame.
  void Add(int thread, uint64_t at, bool push, const std::string* text, bool frame);
  // Puts each thread's marks in time order (marks from two sources), once all are added.
  void SortByTime();
  // "in NAME" for the innermost range open at `at` on `thread` that is not a recorded Python
  // frame (a frame is the call's site, not a range of the program's); "" if none. Asked in
  // time order per thread, so each thread's marks are walked once.
  std::string LabelAt(int thread, uint64_t at);
  // The ranges opened before `cut_at` (CUPTI time), in the order they were opened: of two with
  // the same times the outer comes first. One still open ends at its thread's last mark. Those
  // that ended before `window_begin` (a capture range's start: the recorder logs NVTX ranges
  // before it, to know the ranges around it) are left out: nothing else of them was recorded.
  void AppendRanges(uint64_t cut_at, uint64_t window_begin, const std::function<int(int)>& trace_thread,
                    const std::function<TimeNs(uint64_t)>& trace_time, std::vector<HostRange>& out) const;

 private:
  struct Mark {
    uint64_t at;
    bool push;
    const std::string* text;
    bool frame;
  };
  struct Cursor {
    size_t next = 0;
    std::vector<const Mark*> open;
  };
  std::map<int, std::vector<Mark>> marks_;
  std::map<int, Cursor> cursors_;
};

}  // namespace streamlab
