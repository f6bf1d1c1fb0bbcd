// A fix, made in the replay: each kind of fix the verdict names (verdict.h) as an edit of the
// replayed program, at every place in every step where the program makes the call the fix is
// about (the same call at the same Python line, the same how-many-th time in its step).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/verdict/verdict.h"
#include "engine/whatif/replay_scenario.h"

namespace streamlab {

enum class EditKind {
  kDeferRead,        // a small read back: into pinned memory, not waited for (read a step later)
  kDropSync,         // the sync is not made
  kPinCopy,          // the copy's host memory is pinned: the call no longer waits
  kAllocateOnce,     // cudaMalloc / cudaFree made before the loop, not in it
  kGraphSteps,       // each step's launches captured once into a CUDA graph, launched at once
  kShortenHostWork,  // the host work before the call takes `host_time` (a loader that keeps up)
  kConnections,      // CUDA_DEVICE_MAX_CONNECTIONS = `connections`
  kSideStreamCopy,   // the copy, from pinned memory, on a side stream its stream then waits for
  kOrderRaces,       // each flagged race's second op waits for its first through an event
  kWarmUp,           // the loop's first steps run once before it: their calls take a steady step's host time
  kScaleKernels,     // every kernel and memset takes `scale` of its measured time (a faster GPU, less work)
};
constexpr int kEditKindCount = 11;

struct WhatIfEdit {
  EditKind kind = EditKind::kDropSync;
  std::vector<int> calls;  // the recorded calls it changes (kOrderRaces: pairs, first then second)
  TimeNs host_time = -1;   // kShortenHostWork: the host work left (-1: the recording's usual call-to-call time)
  int connections = 32;    // kConnections
  double scale = 1.0;      // kScaleKernels
  // kWarmUp, per call: the host time its place takes in a steady step, the GPU time of its op
  // there and the host's time inside it when it waits (-1: the replay's usual call; no GPU op).
  std::vector<TimeNs> host_times, gpu_times, own_times;
};

// Where each call sits in the program: its step (by the steps' anchors, steps.h) and which of
// the calls of its name and place it is within that step.
class CallPlaces {
 public:
  CallPlaces(const Trace& trace, const std::vector<int>& anchors);
  // Every call of the run made where one of `calls` was made (same name, place and ordinal);
  // only places `calls` holds in at least half the steps they come from, when `recurring`.
  std::vector<int> AlikeCalls(const std::vector<int>& calls, bool recurring = false) const;
  int StepOf(int op) const { return step_[op]; }
  uint64_t KeyOf(int op) const { return key_[op]; }  // 0: not a call

 private:
  // Per op: a hash of its thread, name, place and ordinal in its step (0 = not a call). A hash,
  // not the text: a long recording's places would take as much memory as its trace.
  std::vector<uint64_t> key_;
  std::vector<int> step_;         // per op: its step (-1 before the first)
};

// The edit that stands for making `fix`, or nothing when none is modelled (the kernels themselves,
// another GPU, a graph launch, places known only from ranges).
std::optional<WhatIfEdit> EditForFix(const Trace& trace, const CallPlaces& places, const VerdictFix& fix);

// A warm-up step before the loop: each call of the steps slower than the steady ones takes the
// host time, its own and up to the next call, that its place takes in a steady step (median), and
// its GPU op no longer than there; a call whose place no steady step has keeps only a usual
// call's time. What first calls cost beyond that (module loads, a library's first-call work,
// memory touched the first time) is spent before the loop. Nothing when no step is slower than
// the steady ones.
std::optional<WhatIfEdit> WarmUpEdit(const Trace& trace, const StepSplit& steps, const CallPlaces& places);

// What a DataLoader's pin_memory=True changes besides the copy: it pins each batch on the loader's
// own thread, which then also takes the batch from the workers, work the loop's thread did
// before each step. So with `pin` (a kPinCopy edit): the host work before each step's first call,
// where that call is one of the pinned copies and the work lies before the step's range begins,
// shortened to a usual gap (kShortenHostWork). Nothing unless the steps are the program's own
// ranges (else where a step begins says nothing of the loop) and at least half the steady steps
// begin so; whether the batch comes from a DataLoader the trace cannot tell.
std::optional<WhatIfEdit> LoaderHandOverEdit(const Trace& trace, const StepSplit& steps, const std::vector<int>& anchors,
                                             const WhatIfEdit& pin);

// Makes `edit` in `replay` (of the recording `trace`, split into steps by `anchors`).
void ApplyEdit(const Trace& trace, const std::vector<int>& anchors, const WhatIfEdit& edit, Replay& replay);

const char* ToString(EditKind kind);

}  // namespace streamlab
