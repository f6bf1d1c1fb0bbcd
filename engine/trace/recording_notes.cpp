// Notes a recording's trace carries: what its race check rests on (what the recorder read of
// the kernels' arguments, and when that cannot support "no race found"), and where a run too
// long for one trace was cut.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace/recording.h"
#include "engine/trace/trace_note.h"
#include "engine/util/format.h"

namespace streamlab {

std::vector<TraceNote> MemoryNotes(const Recording& r) {
  if (r.addresses < 0) return {Note("no_memory_access")};
  if (r.addresses == 0) return {Note("addresses_unsupported")};
  std::vector<TraceNote> notes{Note("addresses_recorded", {{"n", std::to_string(r.launches_read)}})};
  if (r.launches_unread) notes.push_back(Note("addresses_unread", {{"n", std::to_string(r.launches_unread)}}));
  // Arguments were read but none pointed into memory the recorder saw made: the program
  // allocates in a way it does not follow, and finding no race would mean nothing.
  bool any_kernel_address = std::any_of(r.calls.begin(), r.calls.end(), [](const RecordedCall& c) {
    return c.role == "launch" && !c.args.empty();
  });
  if (r.launches_read && !any_kernel_address) notes.push_back(Note("addresses_none_found"));
  return notes;
}

std::shared_ptr<const Inference> FirstLaunchOfRange() {
  static const auto text = std::make_shared<const Inference>(Inference{
      "this first launch of the capture range includes CUPTI switching GPU activity recording on "
      "(the recorder's cost, not the program's)",
      "录制范围内的第一次 launch 包含 CUPTI 开启 GPU 活动记录的时间（这是录制器的开销，不是程序的）"});
  return text;
}

std::shared_ptr<const Inference> WaitBeforeRange() {
  static const auto text = std::make_shared<const Inference>(
      Inference{"its event was recorded before the capture range began (or never): what it waited for "
                "is not in this recording",
                "它等待的事件在录制范围开始之前记录（或从未记录）：等待的内容不在本次录制中"});
  return text;
}

TraceNote CutNote(const Recording& r, size_t ops, TimeNs kept, TimeNs total, size_t calls_left_out) {
  // The advice depends on the source; a log read only in part (ParseRecording's line limit)
  // went on past what was read, so its totals are "at least".
  return Note(r.source == "kineto" ? "cut.kineto" : r.read_partly ? "cut.record_partly" : "cut.record",
              {{"ops", std::to_string(ops)},
               {"kept", FormatDuration(kept)},
               {"total", FormatDuration(total)},
               {"calls", std::to_string(calls_left_out)}});
}

}  // namespace streamlab
