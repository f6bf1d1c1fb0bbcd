// The notes a recording's trace carries about its race check: what the recorder read of the
// kernels' arguments, and when that cannot support "no race found".
#include <algorithm>
#include <string>
#include <vector>

#include "engine/trace/recording.h"
#include "engine/trace/trace_note.h"

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

}  // namespace streamlab
