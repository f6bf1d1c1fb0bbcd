// Which of a program's CUDA calls get its Python stack (python_stack.h), and when: calls that
// hold the host by their nature (syncs, copies to or from the host, allocations), any call that
// held the host 500 us or more, a call made after a millisecond or more outside CUDA (where
// the program came back after its own work), and work put on another stream than the thread's
// last (where a cross-stream race or a missing wait can be, and a race names both lines). Read at entry where the stack is known to be
// wanted (before the call's time is stamped, while the GPU still works), else at exit.
#pragma once

#include <cupti.h>

#include <cstdint>

#include "kernels/recorder/call_log.h"

namespace streamlab::recorder {

// At a call's entry (`now`): whether to read the stack now - its call id was seen holding the
// host before, or it comes `resume_ns` (0: never) or more after the thread's last call returned
// (`last_exit`, 0: none yet), unless the thread's last stack had no Python frame (autograd's
// worker, coming back for each backward: not read again until a host-holding call finds frames).
bool StackOnEntry(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d, uint64_t now, uint64_t last_exit,
                  uint64_t resume_ns);

// At its exit, as `role` on `stream` and taking `took_ns`: the stack it gets - `read_on_entry`
// (0: none was read), or one read now for a call that holds the host by its nature or held it
// long, or that put work on another stream than the thread's last such call. Marks the call id
// of a host-holding call, so that its next calls are read at entry.
uint32_t StackOnExit(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d, Role role, uint64_t took_ns,
                     uint32_t read_on_entry, uint64_t stream);

}  // namespace streamlab::recorder
