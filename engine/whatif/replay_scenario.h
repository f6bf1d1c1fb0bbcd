// A recorded (or imported) program made runnable on the simulator: its replay. Every call stays
// where the program made it, with the host's measured time after it to the next call
// (Op::host_after); every
// kernel keeps its measured duration (and the share of the GPU its grid and occupancy held),
// every copy and memset its measured GPU time. What the simulator then decides is only what
// the program's ordering decides: which op waits for which, when the host blocks, when a queue
// or the GPU is free. Edited (whatif_edits.h), the same replay says what a fix would change.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/analysis/step_pace.h"  // IsRecordedCall
#include "engine/sim/device_profile.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct Replay {
  Scenario scenario;       // runs on SimulateRecorded (sim_executor.h)
  DeviceProfile profile;   // the GPU's profile, its host-call costs zeroed (they are host work)
  DeviceProfile measured;  // the profile the figures below were measured into (for edits' costs)
  std::vector<int> op_of;       // per recorded op: its op in the replay (-1: not replayed)
  // Host time a call takes when it does not wait (median of the recording's launches).
  TimeNs typical_call = 0;
  // The host's usual time from one launch to the next (median), its own work between them included.
  TimeNs typical_gap = 0;
};

// Throws InputError when the trace is not a recorded program, or is too long to replay.
Replay BuildReplay(const Trace& recorded, const DeviceProfile& base);
// The shipped profile of the recorded GPU (H100 or H200), else the built-in one.
DeviceProfile ProfileForRecording(const Trace& recorded);

// The calls the simulator makes the host wait in (syncs, pageable and synchronous copies,
// cudaFree; every launch under CUDA_LAUNCH_BLOCKING).
bool BlocksHostInReplay(const Scenario& scenario, const Op& op);

// cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize.
bool IsSyncCall(OpKind kind);
// An allocation or free of device or pinned memory (cudaMalloc*, cudaFree*, cuMem*).
bool IsAllocation(const Op& op);

// An edit rebuilt the replay's op list into `ops`; `moved` maps each old index to its new one
// (-1: gone). The ops' references to other ops (graph, woken_by, collective_first, graph_after)
// and the replay's op_of follow, except the `graph` of ops flagged in `new_graph`, which the
// edit set to a new index already.
void RenumberOps(Replay& replay, std::vector<Op> ops, const std::vector<int>& moved, const std::vector<bool>& new_graph);

// An edit's new calls, keyed by the replay op they are made right before (or after).
using InsertedCalls = std::multimap<int, Op>;
// Rebuilds the replay's op list with the calls inserted, each on the thread its Op names.
void InsertCalls(Replay& replay, InsertedCalls before, InsertedCalls after);
// A call an edit adds (a record or wait on `stream` about `event`), taking the host `cost`.
Op AddedCall(OpKind kind, const char* name, int stream, int event, int thread, TimeNs cost);
// A new event of the replay, on `stream`'s device.
int AddedEvent(Replay& replay, int stream, const std::string& name);

}  // namespace streamlab
