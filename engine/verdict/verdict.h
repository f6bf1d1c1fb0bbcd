// The answer first: for a recorded or imported program, what bounds each process's steady step
// and the fixes that would save the most per step, read from the account of the step's time
// (engine/account/account.h) and nothing else: the bound is the account's largest category, the
// fixes its categories grouped by cause and place, ranked by their time per step. A race whose
// write side is known comes before any of it. Nothing here is predicted: what a fix would save,
// replayed on the simulator, is the predictions stage's (engine/whatif/whatif.h).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "engine/account/account.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/program_facts.h"

namespace streamlab {

// What to do about a part of the step's time: the remedy a fix names (and whatif edits).
enum class FixKind {
  kHiddenRead,     // a small device-to-host read the host waits for (.item())
  kHostSync,       // an explicit sync: its return, and the host time it leaves exposed
  kLaunchRate,     // launching op by op
  kDataLoading,    // the DataLoader's next batch
  kHostWork,       // other host work at a place
  kMallocMidRun,   // device memory allocated or freed in the loop
  kPageableCopy,   // a copy from or to pageable memory
  kBlockingCall,   // another call that held the host
  kCopyWait,       // (kept for whatif's side-stream edit) a kernel waiting for its stream's copy
  kOtherDevice,    // waiting inside a collective for another rank
  kKernels,        // GPU compute: the kernels that take the step's time
  kCopies,         // copies on the critical path
  kGraphLaunch,    // a graph launch that held the host (a copy node to pageable memory, host nodes)
  kCommunication,  // collectives moving data, every rank there
  kHardwareQueue,  // work held behind another stream's in a shared hardware queue
  kGraphBuild,     // capturing, instantiating or updating a CUDA graph in the loop
  kGpuLatency,     // the GPU's turnaround between many small dependent ops
  kModuleLoadWait, // GPU work queued behind a lazy module load
};
constexpr int kFixKindCount = 18;
const char* ToString(FixKind kind);

struct VerdictFix {
  FixKind kind = FixKind::kHostWork;
  TimeKind time_kind = TimeKind::kUnknown;  // the account's kind it counts (its largest)
  TimeNs per_step = 0;   // time per steady step on the step's critical path
  double count = 0;      // times per step
  int op = -1;           // an example op or call
  ProgramSite site;      // where in the program (empty: not known)
  std::string call;      // the call (or kernels, for kKernels), when named
  TimeNs each = 0;       // kLaunchRate: time a launch; kCopies: copy time a step
  uint64_t bytes = 0;    // kCopies: bytes per step
  int rank = -1;         // kOtherDevice: the rank waited for
  bool came_back = false;      // host work: `site` is where the host came back to CUDA after it
  // `site` is where the same call was made at the calls whose stack the recorder read (within
  // its time budget): this share of the fix's calls; the others had none. 0: each call's own.
  double site_sampled = 0;
  bool at_step_start = false;  // host work: most of it held a step's start (where a loop gets its next batch)
  bool in_library = false;     // the cause lies inside a library the program calls (site.via says which)
  // Host time: the call that waited for the GPU before most of it (a sync, a blocking copy):
  // the GPU had drained there, so this time was exposed rather than hidden under GPU work.
  int exposed_by = -1;
  ProgramSite exposed_site;
  // A sync (kHostSync, kHiddenRead): of `per_step`, the host time after it that the GPU work on
  // the path before it could have hidden, had the host not waited (the lesser of the two).
  TimeNs exposes = 0;
  std::vector<int> calls = {};  // every call (or op) behind it, in the walked steps
  // Replayed on the simulator with the fix made (engine/whatif/whatif.h): the step it would
  // save, and against what replayed step. -1 = not simulated (no edit stands for it, or no replay).
  TimeNs simulated_save = -1;
  TimeNs simulated_step = 0;
  std::string simulated_edit = {};
  enum OtherCase { kNoOtherCase, kFasterGraphGap, kLoaderHandOver } simulated_other_case = kNoOtherCase;
  TimeNs simulated_other_save = -1;
};
const char* OtherCaseName(VerdictFix::OtherCase c);  // "graph_gap", "loader" ("" for none)

struct StartupCost {
  // A run without steps has no start-up but CUDA's own (its context, its modules): the host's
  // time before its first GPU op is in its account (step_account.cpp), not here; its time after
  // the GPU's last op is teardown (kAfterGpuWork).
  enum Kind { kContext, kModuleLoads, kBeforeFirstStep, kWarmupSteps, kAfterLastStep, kAfterGpuWork } kind = kContext;
  TimeNs time = 0;
  int count = 0;
  int op = -1;  // kContext: the call it was created in
  bool inferred = false;  // kContext: not recorded; the first call that took 10 ms or more before any GPU work
  TimeNs loads = 0;  // kWarmupSteps: the module loads' host time inside those steps
  TimeNs simulated_save = 0;  // kWarmupSteps: replayed with a warm-up step before the loop (0: not simulated)
};

// A kernel (by name) on the steps' critical path, and how much of the path it took a step.
struct TopKernel {
  std::string name;
  TimeNs busy = 0;      // a step, on the path
  double launches = 0;  // a step
  int most_at_once = 1;
};

// One process's verdict (the program's, when it has one process).
struct Verdict {
  int process = 0;
  std::string name;  // "rank 1" in a recording of several processes; "" for one
  StepSplit steps;
  StepPace pace;
  // The account it reads: a step's time by category and kind (they sum to `step`), over the
  // steady steps walked, or over the whole run's GPU time when no steps were found.
  std::array<TimeNs, kTimeCategoryCount> by_category{};
  std::array<TimeNs, kTimeKindCount> by_kind{};
  TimeNs step = 0;
  int walked = 0;          // steps walked (1: the whole run)
  // Of `step`, the recorder's own work between the program's calls (category recording): not
  // there unrecorded. Its cost inside CUDA's own calls is not measured.
  TimeNs recorder = 0;
  TimeNs gpu_busy = 0;     // of `step`, the time any of the process's GPU work ran (ProcessAccount)
  std::array<TimeNs, 2> copy_busy{};  // of `step`, host-to-device and device-to-host copies (ProcessAccount)
  TimeNs legacy_serialized = 0;  // of `step`, path GPU time held in order by the legacy default stream
  bool gpu_paced = false;  // the host ran ahead: steps timed by the GPU's ends
  int sm_count = 0;
  TimeCategory bound = TimeCategory::kUnknown;
  TimeKind bound_kind = TimeKind::kUnknown;
  std::vector<VerdictFix> fixes;  // largest first
  std::vector<StartupCost> startup;
  std::vector<TopKernel> top_kernels;  // the 3 kernels longest on the path a step
  double launches = 0;      // GPU ops submitted per step
  bool python = false;      // the program is Python (its advice speaks PyTorch)
  bool graphs = false;      // it launches CUDA graphs already
  int connections = 8;      // CUDA_DEVICE_MAX_CONNECTIONS the process ran with
  bool found() const { return steps.found(); }
};

// Two streams touched the same memory with nothing ordering them, and one side is known to write
// (a copy's or memset's destination): wrong results, said before any speed advice.
struct RaceLine {
  int first = -1, second = -1;  // the two calls
  ProgramSite first_site, second_site;
  int finding = -1;  // the finding it comes from
  // Of the findings at the same two places (a loop races them each step): how many there were,
  // in how many the op called later began before the one called first ended (together, or in
  // the other order), and where none did, the shortest time from that end to that start (-1:
  // not timed).
  int occurrences = 0, overlapped = 0;
  TimeNs closest = -1;
  // The op called later is known to write there and the one called first is not (and the later
  // is no in-place optimizer update): a write after a read, as when the caching allocator hands a
  // block the first stream still read to new work (the remedy then names record_stream).
  bool write_after_read = false;
};

// Counts one more race between ops `x` and `y` in `line` (its occurrences, overlapped, closest).
void CountRaceOccurrence(const Trace& t, int x, int y, RaceLine& line);

struct ProgramVerdict {
  std::vector<Verdict> processes;  // one per process with GPU work
  std::vector<RaceLine> races;
  // Several processes: the rank the others waited for inside collectives (-1: none), how long a
  // step they waited, and what that rank's critical path spent the wait on (its largest kind).
  int straggler = -1;
  TimeNs straggler_wait = 0;
  TimeKind straggler_doing = TimeKind::kUnknown;
  bool found() const { return !processes.empty(); }
  // The process the answer leads with: the one with the longest steady step.
  const Verdict& lead() const;
  Verdict& lead();
};

// Only for a recorded or imported program (trace.scenario.recorded); a lab run has its own story.
ProgramVerdict VerdictOf(const Trace& trace, const Analysis& analysis, const ProgramAccount& account);

}  // namespace streamlab
