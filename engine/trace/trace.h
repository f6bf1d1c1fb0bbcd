// The Trace: what happened when a Scenario ran, on one time base in nanoseconds.
// One OpRecord per scenario op (same index); GPU work also carries ready/start/end and,
// where instrumented, per-block records. Lanes are derived from the scenario.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace_note.h"

namespace streamlab {

struct BlockRecord {
  int block = 0;
  int sm = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

// The note of an API call that made a stream wait on an event, where the trace does not say
// which stream (a Kineto wait without its cuda_sync record): findings that say nothing held
// an op say that such a wait might have.
inline constexpr const char* kUnrecordedWait = "a wait whose stream is not in the trace";

struct OpRecord {
  int op = -1;
  // Host thread: the API call began at `submit` and returned at `ret`.
  TimeNs submit = 0;
  TimeNs ret = 0;
  // GPU side, for ops that run on a stream (kernels, copies, memsets; records and waits
  // are zero-length markers). `ready` = the stream reached the op (an event just before it
  // fired); `start`/`end` = first block began, last block finished (or the copy ran).
  bool gpu = false;
  TimeNs ready = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  std::vector<BlockRecord> blocks;
  std::string note;  // e.g. "ready" / "not ready" for a query, "lazy module load", kUnrecordedWait
  // What about this op an imported trace did not say and StreamLab inferred (English,
  // Chinese); empty when everything about it was recorded. Findings repeat it.
  std::string inferred, inferred_zh;
  // Recorded work a CUDA graph replay ran (a recorded program's graph nodes are plain ops:
  // the graph's own edges are not in the recording), and the NVTX range the program was in
  // when it captured the node ("" if none).
  bool graph_replay = false;
  std::string captured_in;
  // Its call was one of a capture range's slow first launches: CUPTI switching GPU activity
  // recording on as the range began, or the program's first launch of a kernel (inferred; the
  // recording cannot tell which). GPU idle time behind it is said as such, not as a blocking call.
  bool slow_range_start = false;
  // Recorded: CUDA loaded a module inside this op's call (CUPTI's MODULE_LOADED during it):
  // under lazy loading, the first launch of a kernel whose module was not loaded yet.
  bool loaded_module = false;
  // Recorded: CUDA created a context inside this op's call (CUPTI's CONTEXT_CREATED).
  bool created_context = false;
  // Recorded: the recorder's own time on the call's thread just before it (outside any call):
  // the previous call's record, addresses and stack, this call's stack read. Unrecorded, the
  // host's gap before this call would be that much shorter.
  TimeNs recorder_before = 0;
  // ... and inside its call (submit..ret), where the recorder measured it: not the program's.
  TimeNs recorder_inside = 0;
};

// A range a program marked on a host thread (NVTX push ... pop). A PyTorch program StreamLab
// wrote names each lab op's range "streamlab:N" (engine/ingest/torch_mapping.h).
struct HostRange {
  int thread = 0;
  std::string name;
  TimeNs begin = 0;
  TimeNs end = 0;
};

struct BufferCheck {
  std::string buffer;
  std::string expected;
  std::string actual;
  bool ok = true;
};

struct Trace {
  static constexpr int kSchemaVersion = 1;
  std::string backend;        // a Backend's name (backend.h), or where an imported trace came from: "record", "kineto"
  std::string device_name;
  std::string driver;
  std::string captured_at;    // ISO date-time
  std::string profile;        // simulator profile name (sim backend)
  TimeNs clock_error = 0;     // worst calibration error between host, events and %globaltimer
  int sm_count = 0;           // SMs per device (0 = unknown)
  std::string lab;
  std::string variant;
  std::map<std::string, double> params;
  Scenario scenario;
  std::vector<OpRecord> ops;  // ops[i] describes scenario.ops[i]
  std::vector<BufferCheck> checks;
  std::vector<TraceNote> notes;
  std::vector<HostRange> ranges;  // recorded programs: their NVTX ranges
  // A recording of a capture range or a --delay window: when it began. Before it only the
  // ranges open at its start were recorded (a step begun before it lacks its first part).
  std::optional<TimeNs> recorded_from;
};

enum class LaneKind { kHost, kStream };

struct Lane {
  LaneKind kind = LaneKind::kHost;
  int device = -1;  // -1 for the host
  int stream = -1;
  std::string name;
  std::string flags;  // e.g. "blocking, prio 0"
  int thread = 0;     // host lanes: the host thread
};

// One host lane per host thread first (lane t = thread t), then one lane per stream,
// grouped by device in declaration order.
std::vector<Lane> LanesOf(const Scenario& scenario);
// The lane an op's host call is drawn in.
inline int HostLaneOf(const Op& op) { return op.thread; }
// The lane index an op's GPU span is drawn in (its stream's lane), or 0 for host-only ops.
int GpuLaneOf(const std::vector<Lane>& lanes, const Op& op);
// A readable name for an op: its own name, or e.g. "record e1 on s1".
std::string DisplayName(const Scenario& scenario, int op);
// Earliest and latest timestamps in the trace.
TimeNs TraceBegin(const Trace& trace);
TimeNs TraceEnd(const Trace& trace);

}  // namespace streamlab
