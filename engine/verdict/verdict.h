// The answer first: for a recorded or imported program, what bounds its steady-state step and
// the fixes that would save the most per step, from the run's own trace. Built on the steps
// (program_steps.h), the GPU idle gaps with their causes (analyzer_idle.cpp) and the places in
// the program (program_sites.h). Every cost is measured GPU time in the steady steps, divided by
// their number; nothing here is predicted (the replay on the simulator is another command).
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/program_facts.h"
#include "engine/analysis/program_steps.h"
#include "engine/analysis/step_pace.h"

namespace streamlab {

// What the steady-state step is bound by.
enum class StepBound {
  kGpuCompute,  // the GPU computes most of the step: the kernels themselves
  kCopies,      // copies run while no kernel does, most of the step
  kLaunchRate,  // the host launches op by op slower than the GPU runs them
  kHostSyncs,   // the host waits for the GPU to drain, then has nothing queued
  kHostWork,    // the host's own work outside CUDA calls
  kDataLoading, // the host's own work getting the next batch (DataLoader)
  kHostCalls,   // blocking calls: allocation, pageable copies
  kCopyWait,    // kernels wait for their own stream's copies
  kOtherDevice, // work on another GPU (communication, a straggler)
  kUnknown,     // idle for reasons the trace does not show
};
constexpr int kStepBoundCount = 10;

enum class FixKind {
  kHiddenRead,   // a small device-to-host read the host waits for (.item())
  kHostSync,     // an explicit sync that drains the GPU
  kLaunchRate,   // launching op by op
  kDataLoading,  // the DataLoader's next batch
  kHostWork,     // other host work at a place
  kMallocMidRun, // device memory allocated in the loop
  kPageableCopy, // a copy from or to pageable memory
  kBlockingCall, // another blocking call
  kCopyWait,     // a kernel waiting for its stream's copy
  kOtherDevice,  // waiting for another GPU
  kKernels,      // GPU-bound: the kernels that take the step's time
  kCopies,       // copy-bound: the copies
  kGraphLaunch,  // a graph launch that held the host (copy nodes from pageable memory, host nodes)
};
constexpr int kFixKindCount = 13;

struct VerdictFix {
  FixKind kind = FixKind::kHostWork;
  TimeNs per_step = 0;   // GPU time per steady step it accounts for
  double count = 0;      // times per step
  int op = -1;           // an example op or call
  ProgramSite site;      // where in the program (empty: not known)
  std::string call;      // the call (or kernels, for kKernels), when named
  TimeNs each = 0;       // kLaunchRate: time from one launch to the next
  uint64_t bytes = 0;    // kCopies: bytes per step
  bool came_back = false;      // host work: `site` is where the host came back to CUDA after it
  bool at_step_start = false;
  TimeNs at_step_start_time = 0;  // host work: its gaps held a step's start (where a loop gets its next batch)
  std::vector<int> calls = {};  // every call (or op) behind the gaps it counts, in the window
  // Replayed on the simulator with the fix made (engine/whatif/whatif.h): the step it would
  // save, and against what replayed step. -1 = not simulated (no edit stands for it, or no replay).
  TimeNs simulated_save = -1;
  TimeNs simulated_step = 0;
  std::string simulated_edit = {};  // how the fix was made in the replay (whatif_edits.h's ToString)
  // Where the trace cannot tell which of two cases the fix meets: the saving in the other one.
  enum OtherCase { kNoOtherCase, kFasterGraphGap, kLoaderHandOver } simulated_other_case = kNoOtherCase;
  TimeNs simulated_other_save = -1;
};
const char* OtherCaseName(VerdictFix::OtherCase c);  // "graph_gap", "loader" ("" for none)

struct StartupCost {
  enum Kind { kContext, kModuleLoads, kBeforeFirstStep, kWarmupSteps, kAfterLastStep } kind = kContext;
  TimeNs time = 0;
  int count = 0;
  int op = -1;  // kContext: the call it was created in
  bool inferred = false;  // kContext: not recorded; the first call that took 10 ms or more before any GPU work
  TimeNs loads = 0;  // kWarmupSteps: the module loads' host time inside those steps
  // kWarmupSteps: how much shorter those steps are with a warm-up step run before the loop,
  // replayed on the simulator (engine/whatif WarmUpEdit); 0: not simulated.
  TimeNs simulated_save = 0;
};

// A kernel (by name) that takes a GPU-bound step's time. `busy` is the time at least one of its
// launches ran, not their sum: 32 launches side by side on 32 streams take the time of one.
struct TopKernel {
  std::string name;
  TimeNs busy = 0;      // a step
  double launches = 0;  // a step
  int most_at_once = 1;
};

struct Verdict {
  StepSplit steps;
  StepPace pace;  // the steady steps' pace from call to call and by their ends (step_pace.h)
  TimeNs from = 0, to = 0;  // the window the figures are over: the steady steps, or the whole run
  int devices = 0;          // GPUs with work in it
  double per = 1;           // steady steps in it (1 when no steps were found)
  // Per step, summed over the devices: some kernel (or memset) ran; only copies ran; nothing ran.
  TimeNs compute = 0, copy_only = 0, idle = 0;
  TimeNs copying = 0;       // per step: some copy ran, beside kernels or not
  TimeNs idle_by_cause[kIdleCauseCount] = {};
  double launches = 0;      // GPU ops submitted per step
  StepBound bound = StepBound::kUnknown;
  std::vector<VerdictFix> fixes;  // largest first
  std::vector<StartupCost> startup;
  std::vector<TopKernel> top_kernels;  // the 3 kernels that kept the GPU busy longest a step
  bool python = false;      // the program is Python (its trace holds Python frames or PyTorch ops)
  bool graphs = false;      // it launches CUDA graphs already
  // The host queued the steady steps much faster than the GPU ran them (nothing held it): the
  // window is then the GPU's run of those steps, and a step is what the GPU took for one.
  TimeNs gpu_paced_step = 0;
  // Or a sync every few steps held the host back: the window stays the steps', and a step is the
  // GPU's pace (the median spacing of consecutive steps' ends), not the ranges' median.
  bool gpu_paced_held = false;
};

// Only for a recorded or imported program (trace.scenario.recorded); a lab run has its own story.
Verdict MakeVerdict(const Trace& trace, const Analysis& analysis);

const char* ToString(StepBound bound);
const char* ToString(FixKind kind);

}  // namespace streamlab
