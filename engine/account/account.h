// The account of a program's steady step: for each process, each steady step's critical path
// walked back from the step's end to its begin, every nanosecond of the step put in exactly one
// category (GPU compute, copies, the host inside a CUDA call by kind, the host's own work, work
// ready but not started, waiting for another rank ...). The verdict, its fixes and every figure
// a view shows about a program's step come from here (tests/corpus/README.md lists the
// categories; engine/account/account_walk.cpp says how each is decided).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "engine/analysis/program_steps.h"
#include "engine/analysis/step_pace.h"
#include "engine/trace/trace.h"

namespace streamlab {

enum class TimeCategory : uint8_t {
  kGpuCompute,     // a kernel or memset ran on the path
  kGpuCopy,        // a copy ran on the path
  kCommunication,  // a collective moved data, every rank having arrived
  kRankWait,       // a collective waited inside for another rank to arrive
  kGpuQueued,      // GPU work was ready but did not start (a shared hardware queue, a module load)
  kGpuLatency,     // the GPU's turnaround: launch latency, a dependency's end to the next start
  kLaunch,         // the host launching op by op: inside launch calls, and the short gaps between calls
  kCudaCall,       // the host inside a CUDA call that held it longer than a launch
  kHostWork,       // the host outside CUDA for longer than launching takes: the program's own work
  kUnknown,        // the trace does not say
  kRecording,      // the recorder's own work between the program's calls (not there unrecorded)
};
constexpr int kTimeCategoryCount = 11;

// What within a category: the copy's direction, the call's kind, why work queued.
enum class TimeKind : uint8_t {
  kKernels, kSmallGrid,                      // gpu_compute
  kH2D, kD2H, kD2D, kPeer,                   // gpu_copy
  kCollective,                               // communication
  kRankWait,                                 // rank_wait
  kHardwareQueue, kCopyEngine, kQueuedModuleLoad, kPriority,  // gpu_queued
  kLatency,                                  // gpu_latency
  kLaunch,                                   // launch
  kSync, kBlockingLaunch, kPageableCopy, kAllocation, kFree, kGraphBuild, kModuleLoad, kContext,
  kOtherCall,                                // cuda_call
  kHostWork, kDataLoading,                   // host_work
  kUnknown,                                  // unknown
  kRecorder,                                 // recording
};
constexpr int kTimeKindCount = 27;

const char* ToString(TimeCategory c);
const char* ToString(TimeKind k);
bool FromString(const std::string& text, TimeCategory* out);
bool FromString(const std::string& text, TimeKind* out);
TimeCategory CategoryOf(TimeKind k);

// A stretch of one step's critical path.
struct PathSegment {
  TimeNs from = 0, to = 0;
  TimeKind kind = TimeKind::kUnknown;
  // The op the time was spent in (a GPU op, a host call), or for the host's own work and the
  // gaps between calls, the call that ended the stretch; -1 when none.
  int op = -1;
  int thread = -1;  // host stretches: the thread
  // Host stretches: the last call on the path before them that waited for the GPU (a sync, a
  // blocking copy): the GPU drained there, so this host time is exposed, not hidden under GPU work.
  int after_wait = -1;
  int rank = -1;  // rank_wait: the process waited for
  // A GPU op's own time, where the op could start only once the legacy default stream let it:
  // it (or the op before it on the path) ran on the legacy default stream, which waits for all
  // earlier work on blocking streams, and they for it. Kernels on several streams then run one
  // after another (the course's legacy-stream stall).
  bool legacy_serialized = false;
  TimeNs length() const { return to - from; }
  TimeCategory category() const { return CategoryOf(kind); }
};

// One steady step walked: its window and its path, latest first. The segments tile the window.
struct WalkedStep {
  int step = -1;  // index into the process's StepSplit::steps
  TimeNs begin = 0, end = 0;
  bool gpu_paced = false;  // the window is the GPU's: from the previous step's last end to this one's
  std::vector<PathSegment> path;
  bool cut = false;  // the walk gave up before the window's begin (the rest is unknown)
};

struct ProcessAccount {
  int process = 0;
  std::string name;  // the process's name in a recording of several ("rank 1"); "" for one
  StepSplit steps;
  StepPace pace;
  std::vector<WalkedStep> walked;  // the steady steps whose path was walked
  // Per walked step (the mean over them): each category's and kind's time; they sum to `step`.
  std::array<TimeNs, kTimeCategoryCount> by_category{};
  std::array<TimeNs, kTimeKindCount> by_kind{};
  TimeNs step = 0;
  // Per walked step (the mean): the time any of the process's GPU work ran in the step's window,
  // on or off the path. What a faster host alone can save is at most `step - gpu_busy` while
  // the GPU's work stays as it is (tests/corpus/sensitivity.json measures it).
  TimeNs gpu_busy = 0;
  // Per walked step (the mean): the time copies of each direction ran, on or off the path
  // ([0] host to device, [1] device to host). Both engines busy most of a step: the step is the
  // link's both ways, whichever chain of copies the path happened to follow.
  std::array<TimeNs, 2> copy_busy{};
  // Per walked step (the mean): GPU time on the path held in order by the legacy default
  // stream (PathSegment::legacy_serialized).
  TimeNs legacy_serialized = 0;
  bool gpu_paced = false;  // the host ran ahead: steps are timed and walked by the GPU's ends
  int sm_count = 0;
};

struct ProgramAccount {
  std::vector<ProcessAccount> processes;  // one per process with steps (or one for the whole run)
  bool found() const;
};

}  // namespace streamlab
