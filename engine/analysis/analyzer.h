// The Analyzer: explains a run from its own trace. For every GPU op it says why it started
// when it did (the cause that released it last, plus the others); for every long host call,
// what it waited for; it computes overlap, busy time, speed-up and the critical path; and
// it flags the misconceptions the course is about. Findings are data (kinds, op ids,
// amounts); findings_text.h turns them into Chinese or English from assets/ templates.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

enum class Cause {
  kPrompt,          // started right after it was submitted (launch latency only)
  kStreamOrder,     // behind earlier work on its own stream
  kEventWait,       // cudaStreamWaitEvent on an event recorded after some work
  kWaitStream,      // wait_stream on another stream's work
  kLegacyBarrier,   // the legacy default stream's barrier with blocking streams
  kHostLate,        // submitted late because the host was blocked in an earlier call
  kSmsBusy,         // ready, but every SM slot was taken by other kernels
  kCopyEngineBusy,  // ready, but the copy engine was busy with another copy
  kHardwareQueue,   // held in a hardware queue shared with another stream (false dependency)
  kModuleLoad,      // lazy loading: a first launch's module load waited for running work,
                    // and work submitted after it waited for the load
  kUnexplained,     // started well after anything in the trace let it go (said as unknown)
};

// Why a device had nothing running (see analyzer_idle.cpp for how each is decided).
enum class IdleCause {
  kHostSync,     // a host sync waited for the GPU to drain, then the host submitted again
  kHostCall,     // the host was inside another blocking call (cudaMalloc, a pageable copy...)
  kHostWork,     // the host was busy with its own work, outside CUDA calls
  kLaunchBound,  // the host launched op by op, slower than the GPU ran them
  kCopyWait,     // the next kernel waited for a copy (only the copy engines were busy)
  kOtherDevice,  // the next op waited for work on another GPU
  kModuleLoad,   // lazy loading of a kernel's module on its first launch
  kTurnaround,   // the next op was already queued: the GPU's own gap between ops
  kRangeStart,   // the host was in the capture range's slow first launches (OpRecord::slow_range_start)
  kUnknown,      // nothing in the trace says why
};
constexpr int kIdleCauseCount = 10;

enum class FindingKind {
  kStartDelay,            // why a GPU op started when it did
  kHostBlock,             // what a blocking host call waited for
  kScopeTooWide,          // a device-wide sync where a narrower one would have returned sooner
  kOverlap,               // two streams ran concurrently
  kWaitCapturedNothing,   // a wait registered before its producer had work
  kDataRace,              // two streams touch one buffer, one writes, nothing orders them
  kPageableAsyncCopy,     // an "async" copy from pageable memory blocked the host
  kLegacyNextToBlocking,  // legacy default stream work serialised blocking streams
  kWrongResult,           // a checked buffer does not hold what program order gives
  kGpuIdle,               // GPU idle time with one cause, summed over the run
  kMallocMidRun,          // cudaMalloc between GPU work: a caching allocator growing
  kHiddenSync,            // a small device-to-host read the host waited for (.item())
  kCollectiveWait,        // a collective's part waited inside it for a later rank (straggler)
  kAddressRace,           // recorded: two streams handed one address, nothing orders them (inferred)
};

enum class Severity { kInfo, kNote, kWarning };

// Where in the program a host call was made (engine/analysis/program_sites.h): the program's
// own innermost Python frame and the one that called it, when the trace has Python frames,
// and the ops or ranges around the call inside that frame (all of them without one).
struct ProgramSite {
  std::string file;
  int line = 0;  // as torch.profiler gives it: the frame's line when first seen (a function's first line)
  std::string function;
  bool exact_line = false;  // `line` is the one the call was made on (a recording's Python stack)
  // `line` is where the host was most often in this function, from its sampled stacks (the
  // host's own work at a place, spread over many lines): not one call's line.
  bool most_line = false;
  std::string caller_file;
  int caller_line = 0;
  std::string caller_function;
  std::vector<std::string> ranges;  // outermost first
  // The library call the program's frame made on the way (torch's GradScaler.step for a read
  // inside it), and the innermost library function reached when it is another; how many
  // library frames lay between the two (not counting either).
  std::string via_file, via_function;
  std::string inner_file, inner_function;
  int via_depth = 0;
  // The library call through which the caller reached the frame, when a library called the
  // program back (a Dataset's __getitem__ from the DataLoader's __next__, a forward from
  // nn.Module's _call_impl).
  std::string caller_via_file, caller_via_function;
  // The call was made by PyTorch's autograd thread, for the backward this site called (program_sites.h).
  bool by_autograd = false;
  bool empty() const { return file.empty() && ranges.empty(); }
};

// Where a host thread was for part of a stretch the GPU waited on it (its own work), from the
// ranges around it, and for how long.
struct HostPlace {
  ProgramSite site;  // a function and its callers (its line left out: one place, many lines)
  TimeNs time = 0;
  int line = 0;      // of the program's frame, the line that held most of `time` (0: not known)
};

struct Finding {
  FindingKind kind = FindingKind::kStartDelay;
  Severity severity = Severity::kInfo;
  Cause cause = Cause::kPrompt;   // for kStartDelay (and kHostBlock's reason)
  int op = -1;                    // the op the finding is about
  std::vector<int> because;       // ops of the deciding cause (e.g. the kernel waited for)
  std::vector<int> also;          // ops of causes that released earlier
  std::vector<Cause> also_causes; // their kinds, same order as `also`
  int marker = -1;                // the record / wait / legacy op through which it acted
  int other = -1;                 // a second op (a race partner, the stream of an overlap)
  TimeNs amount = 0;              // delay, blocked time, overlap time, time saved
  TimeNs at = 0;                  // when the deciding cause released it
  double fraction = 0;            // overlap fraction; kGpuIdle: share of the device time
  // kSmsBusy decided from the running kernels' grids and occupancy (a recorded program has
  // no per-block records), not measured: the text says it is an estimate.
  bool estimated = false;
  // kGpuIdle: the cause, how many gaps, the typical time per gap (for launch-bound runs:
  // the mean time from one launch to the next), the mean GPU time of the ops that ran out
  // before the gaps, and the length of each example gap (same order as `because`).
  IdleCause idle = IdleCause::kUnknown;
  int count = 0;
  TimeNs each = 0;
  TimeNs op_time = 0;
  std::vector<TimeNs> gap_lengths;
  int next_to_graphs = 0;  // kGpuIdle: gaps that began or ended at work replayed from a CUDA graph
  uint64_t address = 0;  // kAddressRace: the device address both ops were handed
  ProgramSite site;      // host-call findings: where in the program the call was made
  // kGpuIdle for the host's own work: where the host was in the gaps (the largest places,
  // largest first), out of `places_of` of gap time looked at.
  std::vector<HostPlace> places;
  TimeNs places_of = 0;
  TimeNs places_known = 0;  // of that, the time some range said where the host was
  // With no place known: where the thread came back to CUDA after the gaps (a recording's
  // Python stack at the call that ended each), by the idle time each ended, largest first.
  std::vector<HostPlace> resumed_at;
};

// Why a GPU op started when it did, as a walk back along a step's critical path needs it
// (engine/account): what let it go last, and from when it was free to go (ExplainStart).
struct StartReason {
  Cause cause = Cause::kPrompt;
  // The op whose end released it (an ordering cause), or whose run held the SMs or the copy
  // engine it needed; -1: its own submission let it go last, or nothing known held it.
  int by = -1;
  TimeNs released = 0;  // when its ordering and its submission had both let it go
  int order_op = -1;    // the GPU work whose end was its latest ordering release (-1: none)
  TimeNs order_at = 0;
};

// One interval in which a device ran nothing though work was still to come.
struct IdleGap {
  int device = 0;
  TimeNs from = 0;
  TimeNs to = 0;
  IdleCause cause = IdleCause::kUnknown;
  int prev = -1;  // the op whose end began the gap
  int next = -1;  // the op whose start ended the gap
  int call = -1;  // the host call (or op) the cause points at, if any
};

struct LaneOverlap {
  int lane_a = 0;
  int lane_b = 0;
  TimeNs overlap = 0;
  double fraction = 0;  // of the shorter lane's busy time
};

struct Figures {
  TimeNs makespan = 0;      // first GPU start to last GPU end
  TimeNs gpu_busy = 0;      // time at least one GPU op ran
  TimeNs serial = 0;        // sum of GPU op durations: the time with no overlap at all
  double speedup = 1.0;     // serial / makespan
  TimeNs host_blocked = 0;  // time the host spent in calls longer than the slack
  std::vector<LaneOverlap> overlaps;
  std::vector<int> critical_path;  // ops, first to last
  // Host time on the critical path: an op on it that started as soon as it was submitted was
  // paced by the host, from the process's last call that waited for the GPU (the path's
  // previous op) or from the first submission of GPU work. Only stretches longer than the slack.
  struct HostStretch {
    int before = -1;  // the path op the thread then submitted
    int thread = 0;
    TimeNs length = 0;
    int from_thread = -1;  // the thread of the call it began after (-1: the first submission)
    // Where the thread was for most of it, from the trace's ranges (program_sites.h), and how
    // long; for the stretches the path's text names (a tenth of the run or more).
    ProgramSite place;
    TimeNs place_time = 0;
    // Where no range says: the line the thread came back to CUDA at after the largest share of
    // the stretch spent outside CUDA (resumed_places.h), and that share's time.
    ProgramSite came_back;
    TimeNs came_back_time = 0;
  };
  std::vector<HostStretch> critical_host;
  TimeNs critical_span = 0;  // the first submission of GPU work to the path's last end
  // GPU idle time: per device, from its first kernel's start to its last kernel's end, the
  // time no kernel or memset ran (copies run on the copy engines and leave the SMs idle),
  // summed over devices, each gap with its cause.
  TimeNs device_time = 0;
  TimeNs gpu_idle = 0;
  std::vector<IdleGap> idle_gaps;
  TimeNs idle_by_cause[kIdleCauseCount] = {};
  TimeNs launch_interval = 0;  // launch-bound gaps: mean time from one launch to the next
};

struct Analysis {
  std::vector<Finding> findings;
  Figures figures;
  // Runs larger than this get figures, not a finding per op (each op's why in a few hundred
  // thousand findings would fill memory and no view), so a huge trace cannot stall a view. The
  // explain pipeline's account and verdict still read the whole run (engine/account).
  static constexpr size_t kMaxExplainedOps = 250000;
  bool summarised_only = false;
};

Analysis Analyze(const Trace& trace);
// Downgrades warnings about ops on a library's own streams to notes and drops timed findings
// whose time is zero (Analyze calls it last; exposed for tests).
void KeepFindingsTrue(const Trace& trace, std::vector<Finding>& findings);

const char* ToString(Cause cause);
const char* ToString(IdleCause cause);
const char* ToString(FindingKind kind);
const char* ToString(Severity severity);

// Delays shorter than this are launch latency and timing slack, not a cause worth naming.
TimeNs ExplainSlack(const Trace& trace);

}  // namespace streamlab
