// The recorder's in-process log of API calls: fixed-size records appended by the thread
// that made the call, into chunks that only that thread writes (no lock, no allocation
// except one chunk per 4096 calls), and drained to the log file by a writer thread, at exit
// and on fatal signals. Nothing here includes CUDA: the CUPTI side fills CallRecords.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>

#include "engine/ingest/call_roles.h"

namespace streamlab::recorder {

// What a call means for the program's streams (the table shared with the conversion).
using Role = CallRole;

struct CallRecord {
  uint64_t begin = 0;        // CUPTI timestamps (ns), the same clock as activity records
  uint64_t end = 0;
  uint64_t correlation = 0;
  uint64_t stream = 0;       // handle, as the program passed it
  uint64_t event = 0;
  uint64_t out = 0;          // created stream / event / pointer, read after the call
  uint64_t size = 0;         // bytes
  uint64_t parent = 0;       // kCorrelationAlias: the runtime call's correlation id
  uint64_t exec = 0;         // an instantiated graph (CUgraphExec handle)
  const char* function = nullptr;  // CUPTI's static name of the API function
  uint32_t stream_id = UINT32_MAX; // CUPTI's id of `stream` (the id activity records use)
  uint32_t python_stack = 0;       // the Python stack at the call (python_stack.h), 0 = none
  // The recorder's own time on this thread since its previous logged call, outside any call's
  // begin..end: the previous call's exit work (its record, addresses, stack) and this call's
  // stack read at entry. Unrecorded, the gap before this call is that much shorter.
  uint32_t own_ns = 0;
  // The recorder's own time inside this call's begin..end that it measured: reading a runtime
  // launch's arguments in the driver launch it makes (CUPTI's own work is not in it).
  uint32_t own_in_ns = 0;
  int32_t flags = 0;
  int32_t priority = 0;
  int32_t value = 0;         // device for set_device, memcpy kind, query result
  int32_t status = 0;        // the call's return code
  Role role = Role::kOther;
  uint8_t domain = 0;        // 0 runtime, 1 driver, 2 NVTX
  uint8_t per_thread = 0;    // a _ptsz call: stream 0 means the per-thread default stream
  uint8_t nargs = 0;         // how many of `args` hold addresses
  uint8_t more_args = 0;     // a launch had more addresses than `args` holds
  int8_t device = -1;        // the device of the context the call was made in, -1 = none yet
  union {
    char text[64] = {};      // NVTX range name
    // Addresses the call was handed: a launch's arguments that point into device memory; a
    // copy's destination and source; a memset's destination (launch_memory.h).
    uint64_t args[8];
  };
  uint16_t arg_offsets[8] = {};  // a launch's: where each of `args` was in its argument block
};

struct ThreadLog;

// The calling thread's log (created on first use, registered for the writer).
ThreadLog* CurrentThreadLog();
// The thread's index in the log (the "tid" of its lines).
uint32_t LogIndex(const ThreadLog* log);
// Appends a finished record to the calling thread's log.
void Append(ThreadLog* log, const CallRecord& record);

// Opens the log file and starts the writer thread (every `period_ms`).
bool StartLog(const char* path, int period_ms);
// Writes everything appended so far; safe to call from any thread. `from_signal`: a fatal
// signal handler's best effort, which gives up rather than wait for the file.
void DrainCalls(bool from_signal = false);
// Work the writer does before each drain, off the program's threads (activity buffers, Python
// stacks): called with the drain's `from_signal`, without the log's file lock held. At most 4.
void AddBeforeDrain(void (*work)(bool from_signal));
// Writes one already formatted line (activity records, metadata).
void WriteLine(const char* line, size_t length);
// Stops the writer, drains, closes. After this nothing is written.
void StopLog();
// In a forked child: forget the parent's file and threads, write nothing.
void DisableLog();

}  // namespace streamlab::recorder
