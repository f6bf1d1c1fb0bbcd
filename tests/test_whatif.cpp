// What-if (issue 52): a recorded program replayed on the simulator reproduces its run, and each
// edit changes the replay the way making the fix changes the program. The "recordings" here are
// simulated runs of small training-loop scenarios, relabelled as recorded (foreign kernels with
// their measured times), so what the replay must reproduce is known exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/verdict/verdict.h"
#include "engine/report/verdict_text.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/scenario/scenario_json.h"
#include "engine/sim/sim_executor.h"
#include "engine/util/errors.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/whatif.h"
#include "tests/verdict_util.h"
#include "tests/whatif_recorded_loops.h"

namespace streamlab {
namespace {

struct LoopShape {
  TimeNs host_work = Us(50);    // the host's own work at each step's start
  int kernels = 4;
  TimeNs kernel = Us(100);      // each kernel's time
  bool pageable_input = false;  // a 16 MB input copied from pageable memory each step
  bool pinned_input = false;    // the same from pinned memory, on the kernels' stream
  bool read_back = false;       // a 4-byte read into pageable memory, then a stream sync
  bool sync_device = false;     // cudaDeviceSynchronize at each step's end
  bool malloc_free = false;     // a 64 MB buffer allocated and freed each step
  TimeNs held_up = 0;           // more host work in step 4 alone (a collection, a slow batch)
  int sync_every = 0;           // cudaDeviceSynchronize after every Nth step (0: never)
};

// A training loop's run on the simulator, then labelled as a recording of it.
Trace RecordedLoop(const LoopShape& shape, int steps = 8) {
  ScenarioBuilder b("loop");
  Stream s = b.CreateStream("compute");
  Buffer input = b.DeviceBuffer("input", 16 << 20);
  Buffer host_in = b.PageableBuffer("host_in", 16 << 20);
  Buffer pinned_in = b.PinnedBuffer("pinned_in", 16 << 20);
  Buffer loss = b.DeviceBuffer("loss", 4);
  Buffer host_loss = b.PageableBuffer("host_loss", 4);
  Buffer work = b.DeviceBuffer("work", 64 << 20);
  Host host = b.host();
  for (int k = 0; k < steps; ++k) {
    host.Work("batch", shape.host_work + (k == 4 ? shape.held_up : 0));
    if (shape.malloc_free) host.Malloc(work);
    if (shape.pageable_input) s.Copy("input", input, host_in, 16 << 20);
    if (shape.pinned_input) s.Copy("input", input, pinned_in, 16 << 20);
    for (int i = 0; i < shape.kernels; ++i) s.Launch("k" + std::to_string(i), Spin(shape.kernel, 132));
    if (shape.read_back) {
      s.Copy("read", host_loss, loss, 4);
      s.Synchronize();
    }
    if (shape.malloc_free) host.Free(work);
    if (shape.sync_device || (shape.sync_every > 0 && k % shape.sync_every == shape.sync_every - 1)) host.SyncDevice();
  }
  return AsRecording(SimExecutor().Run(b.Build(), {}));
}

struct Replayed {
  Trace measured;
  StepSplit steps;
  std::vector<int> anchors;
  Replay replay;
};

Replayed ReplayOf(const LoopShape& shape) {
  Replayed r{RecordedLoop(shape), {}, {}, {}};
  r.steps = FindSteps(r.measured);
  r.anchors = StepAnchors(r.measured, r.steps);
  r.replay = BuildReplay(r.measured, DeviceProfile{});
  return r;
}

WhatIfRun Edit(const Replayed& r, EditKind kind, std::vector<int> calls, TimeNs host_time = -1) {
  WhatIfEdit e;
  e.kind = kind;
  e.calls = std::move(calls);
  e.host_time = host_time;
  return RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e});
}

TEST(WhatIf, TheReplayReproducesTheRecordedSteps) {
  // (A loop with nothing to hold the host runs ahead: its GPU work overlaps, and it has no steps.)
  for (LoopShape shape : {LoopShape{.host_work = Ms(2)}, LoopShape{.read_back = true},
                          LoopShape{.pageable_input = true, .sync_device = true}, LoopShape{.malloc_free = true}}) {
    Replayed r = ReplayOf(shape);
    ASSERT_TRUE(r.steps.found()) << shape.host_work;
    ReplayReport report = CompareReplay(r.measured, r.steps, r.replay, SimulateRecorded(r.replay.profile, r.replay.scenario));
    EXPECT_LT(report.error, 0.02) << "measured " << report.measured << " replayed " << report.replayed;
    EXPECT_LT(report.median_edge, Us(10));
  }
}

TEST(WhatIf, OneStepHeldUpDoesNotSetTheSteadyStep) {
  // Each step ends in a sync, so the GPU's pace is the host's; step 4 took 20 ms more. A mean
  // over the steps' ends would put the steady step near 2.3 ms; the steps' own spacing is 0.6 ms.
  Trace t = RecordedLoop({.host_work = Us(200), .read_back = true, .held_up = Ms(20)}, 12);
  Replayed r{t, FindSteps(t), {}, BuildReplay(t, DeviceProfile{})};
  r.anchors = StepAnchors(r.measured, r.steps);
  ASSERT_TRUE(r.steps.found());
  ReplayReport report = CompareReplay(r.measured, r.steps, r.replay, SimulateRecorded(r.replay.profile, r.replay.scenario));
  EXPECT_LT(report.measured, Us(700));
  EXPECT_LT(report.replayed, Us(700));
}

TEST(WhatIf, AReplayNeedsARecordedProgram) {
  Trace lab = SimExecutor().Run(ScenarioBuilder("lab").Build(), {});
  EXPECT_THROW(BuildReplay(lab, DeviceProfile{}), InputError);
}

TEST(WhatIf, DroppingTheSyncLetsTheHostQueueTheNextStep) {
  // Host 300 us a step, GPU 400 us: with the sync they add up; without it the GPU's pace is the step.
  Replayed r = ReplayOf({.host_work = Us(300), .sync_device = true});
  WhatIfRun run = Edit(r, EditKind::kDropSync, Calls(r.measured, OpKind::kSyncDevice));
  EXPECT_GT(run.before, Us(700));
  EXPECT_NEAR(static_cast<double>(run.after), static_cast<double>(Us(400)), static_cast<double>(Us(30)));
}

TEST(WhatIf, ADeferredReadNoLongerHoldsTheHost) {
  Replayed r = ReplayOf({.host_work = Us(300), .read_back = true});
  std::vector<int> reads;
  for (int c : Calls(r.measured, OpKind::kMemcpy)) reads.push_back(c);
  WhatIfRun run = Edit(r, EditKind::kDeferRead, reads);
  EXPECT_LT(run.after, run.before - Us(200));
  // The read still happens: an async copy into pinned memory, with no sync after it.
  EXPECT_EQ(Calls(run.predicted, OpKind::kSyncStream).size(), 0u);
  EXPECT_EQ(Calls(run.predicted, OpKind::kMemcpy).size(), reads.size());
}

TEST(WhatIf, PinningACopyMovesItAtPinnedSpeedWithoutTheHostWaiting) {
  Replayed r = ReplayOf({.host_work = Us(100), .pageable_input = true});
  WhatIfRun run = Edit(r, EditKind::kPinCopy, Calls(r.measured, OpKind::kMemcpy));
  const DeviceProfile p;
  TimeNs pageable = TransferDuration(p, 16 << 20, p.pageable_gbps), pinned = TransferDuration(p, 16 << 20, p.h2d_pinned_gbps);
  EXPECT_NEAR(static_cast<double>(run.before - run.after), static_cast<double>(pageable - pinned), static_cast<double>(Us(60)));
  for (const Op& op : run.predicted.scenario.ops) {
    if (op.kind == OpKind::kMemcpy) {
      EXPECT_EQ(run.predicted.scenario.buffers[op.src].kind, MemoryKind::kPinnedHost);
    }
  }
}

TEST(WhatIf, ShorteningTheHostWorkBeforeEachStepLeavesTheGpusPace) {
  Replayed r = ReplayOf({.host_work = Ms(2)});
  WhatIfRun run = Edit(r, EditKind::kShortenHostWork, Calls(r.measured, OpKind::kKernel, "k0"), 0);
  EXPECT_GT(run.before, Ms(2));
  EXPECT_NEAR(static_cast<double>(run.after), static_cast<double>(Us(400)), static_cast<double>(Us(40)));
}

// kernels=0.5: a step the GPU bounds (four 100 us kernels after 50 us of host work, synced)
// nearly halves; one the host bounds (2 ms of host work before the same kernels) does not move.
TEST(WhatIf, HalvingTheKernelsHalvesOnlyAStepTheGpuBounds) {
  WhatIfEdit half;
  half.kind = EditKind::kScaleKernels;
  half.scale = 0.5;
  Replayed gpu_bound = ReplayOf({.sync_device = true});
  WhatIfRun g = RunWhatIf(gpu_bound.measured, gpu_bound.steps, gpu_bound.anchors, gpu_bound.replay, {half});
  EXPECT_NEAR(static_cast<double>(g.after), static_cast<double>(g.before - Us(200)), static_cast<double>(Us(20)));
  Replayed host_bound = ReplayOf({.host_work = Ms(2)});
  WhatIfRun h = RunWhatIf(host_bound.measured, host_bound.steps, host_bound.anchors, host_bound.replay, {half});
  EXPECT_EQ(h.after, h.before);
}

TEST(WhatIf, AllocatingOnceRemovesTheFreesDeviceWideWait) {
  Replayed r = ReplayOf({.host_work = Us(200), .malloc_free = true});
  std::vector<int> calls = Calls(r.measured, OpKind::kMalloc);
  for (int c : Calls(r.measured, OpKind::kFree)) calls.push_back(c);
  WhatIfRun run = Edit(r, EditKind::kAllocateOnce, calls);
  EXPECT_LT(run.after, run.before - Us(150));
  EXPECT_EQ(Calls(run.predicted, OpKind::kFree).size(), 0u);
}

TEST(WhatIf, CapturingALaunchBoundStepLaunchesItOnceAsAGraph) {
  // 40 kernels of 2 us a step: the launches (8 us each on this profile) bound the step.
  Replayed r = ReplayOf({.host_work = Us(20), .kernels = 40, .kernel = Us(2)});
  WhatIfEdit e;
  e.kind = EditKind::kGraphSteps;
  WhatIfRun run = RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e});
  EXPECT_GT(run.before, Us(300));
  EXPECT_LT(run.after, run.before / 2);
  int launches = 0, nodes = 0;
  for (const Op& op : run.predicted.scenario.ops) {
    launches += op.kind == OpKind::kApiCall && op.name.rfind("cudaGraphLaunch", 0) == 0;
    nodes += op.kind == OpKind::kKernel && op.graph >= 0;
  }
  EXPECT_GT(launches, 0);
  EXPECT_EQ(nodes, 40 * launches);
  ValidateScenario(run.predicted.scenario);
}

TEST(WhatIf, ACapturedGraphIsPredictedAtBothNodeGapsTheSameGraphGotOnOneGpu) {
  // GPU-bound once captured: a step is its 40 kernels and the gaps between them.
  Replayed r = ReplayOf({.host_work = Us(20), .kernels = 40, .kernel = Us(2)});
  DeviceProfile profile;
  profile.replay_graph_node_gap = 256;
  profile.replay_graph_node_gap_fast = 95;
  r.replay = BuildReplay(r.measured, profile);
  WhatIfEdit e;
  e.kind = EditKind::kGraphSteps;
  WhatIfRun run = RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e});
  EXPECT_NEAR(static_cast<double>(run.after - run.after_fast_graph), 40.0 * (256 - 95), 40.0 * 20);
  // An edit that captures no graph has one prediction.
  EXPECT_EQ(Edit(r, EditKind::kShortenHostWork, Calls(r.measured, OpKind::kKernel, "k0"), 0).after_fast_graph, 0);
}

TEST(WhatIf, ExplainSaysWhatTheGraphSavesAtTheFasterNodeGapToo) {
  // Launch-bound: 40 kernels of 2 us a step, recorded on an H100 (whose profile has both gaps).
  Trace t = RecordedLoop({.host_work = Us(20), .kernels = 40, .kernel = Us(2)});
  t.device_name = "NVIDIA H100 80GB HBM3";
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(SimulateFixes(t, v, 5));
  auto graph = std::find_if(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& f) { return f.kind == FixKind::kLaunchRate; });
  ASSERT_NE(graph, v.fixes.end());
  ASSERT_EQ(graph->simulated_other_case, VerdictFix::kFasterGraphGap);
  const DeviceProfile h100 = ProfileForRecording(t);
  EXPECT_NEAR(static_cast<double>(graph->simulated_other_save - graph->simulated_save),
              40.0 * static_cast<double>(h100.replay_graph_node_gap - h100.replay_graph_node_gap_fast), 40.0 * 20);
  std::string all;
  for (const std::string& line : RenderVerdict(FindingTexts::Load("en"), t, Alone(v))) all += line + "\n";
  bool worth_saying = (graph->simulated_other_save - graph->simulated_save) * 100 >= graph->simulated_step;
  EXPECT_EQ(all.find("at the faster gap this GPU also showed") != std::string::npos, worth_saying) << all;
}

TEST(WhatIf, ACapturedGraphIsPredictedWithoutTheRecordersCostOnEachKernel) {
  // GPU-bound once captured: 40 kernels of 2 us a step. CUPTI's kernel records lengthened each
  // of them in the recording; the graph is predicted as it runs unrecorded.
  Replayed r = ReplayOf({.host_work = Us(20), .kernels = 40, .kernel = Us(2)});
  DeviceProfile profile;
  profile.replay_graph_node_gap = 256;
  r.replay = BuildReplay(r.measured, profile);
  WhatIfEdit e;
  e.kind = EditKind::kGraphSteps;
  TimeNs as_recorded = RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e}).after;
  profile.recorded_kernel_gpu_cost = 160;
  r.replay = BuildReplay(r.measured, profile);
  WhatIfRun run = RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e});
  EXPECT_NEAR(static_cast<double>(as_recorded - run.after), 40.0 * 160, 40.0 * 10);
  // Only the captured kernels: the replay as recorded keeps every kernel's measured time.
  EXPECT_EQ(run.before, RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {}).before);
  for (const Op& op : run.predicted.scenario.ops) {
    if (op.kind == OpKind::kKernel) {
      EXPECT_EQ(op.kernel.work, op.graph >= 0 ? Us(2) - 160 : Us(2));
    }
  }
}

TEST(WhatIf, AReplayedKernelKeepsItsMeasuredTimeUnderAMicrosecond) {
  // The model kernels' 1 us floor once lengthened every sub-microsecond kernel of a recording.
  Replayed r = ReplayOf({.host_work = Us(20), .kernels = 4, .kernel = Us(2)});
  for (Op& op : r.replay.scenario.ops)
    if (op.kind == OpKind::kKernel) op.kernel.work = 640;
  Trace t = SimulateRecorded(r.replay.profile, r.replay.scenario, false);
  int kernels = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (r.replay.scenario.ops[i].kind != OpKind::kKernel || !t.ops[i].gpu) continue;
    EXPECT_EQ(t.ops[i].end - t.ops[i].start, 640);
    ++kernels;
  }
  EXPECT_EQ(kernels, 4 * 8);
}

// A PyTorch-like step on two threads: the loop's thread launches the forward kernels, the
// autograd thread (thread 1) the backward ones while the loop's thread waits, then the loop's
// thread the optimizer's. Each thread waits for the other's last call, as in the recording;
// `wake` is the time the autograd thread took to start its first launch once woken.
Trace RecordedTwoThreadLoop(int steps, TimeNs wake = 0) {
  ScenarioBuilder b("two threads");
  Stream s = b.CreateStream("compute");
  Stream backward = b.CreateStream("backward");  // a lab gives each thread its own stream: one, below
  for (int k = 0; k < steps; ++k) {
    b.OnThread(0);
    b.host().Work("batch", Us(500));
    for (int i = 0; i < 10; ++i) s.Launch("fwd" + std::to_string(i), Spin(Us(2), 132));
    b.OnThread(1);
    for (int i = 0; i < 60; ++i) backward.Launch("bwd" + std::to_string(i), Spin(Us(2), 132));
    b.OnThread(0);
    for (int i = 0; i < 2; ++i) s.Launch("opt" + std::to_string(i), Spin(Us(2), 132));
  }
  Scenario sc = b.Build();
  sc.recorded = true;
  int last_fwd = -1, last_bwd = -1, forward_stream = -1;
  for (size_t i = 0; i < sc.ops.size(); ++i) {
    const std::string& name = sc.ops[i].name;
    if (name == "fwd0") forward_stream = sc.ops[i].stream;
    if (name.rfind("bwd", 0) == 0) sc.ops[i].stream = forward_stream;  // PyTorch's backward runs on the forward's stream
    if (name == "fwd9") last_fwd = static_cast<int>(i);
    if (name == "bwd0") sc.ops[i].woken_by = last_fwd;
    if (name == "bwd0") sc.ops[i].woken_delay = wake;
    if (name == "bwd59") last_bwd = static_cast<int>(i);
    if (name == "opt0") sc.ops[i].woken_by = last_bwd;
  }
  return AsRecording(SimulateRecorded(DeviceProfile{}, sc));
}

// The recording `t` replayed with each step's launches captured into graphs.
WhatIfRun GraphStepsOf(const Trace& t) {
  Replayed r{t, FindSteps(t), {}, BuildReplay(t, DeviceProfile{})};
  EXPECT_TRUE(r.steps.found());
  r.anchors = StepAnchors(r.measured, r.steps);
  WhatIfEdit e;
  e.kind = EditKind::kGraphSteps;
  return RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e});
}

TEST(WhatIf, CapturingAStepTakesTheBackwardPassLaunchedByAnotherThreadToo) {
  WhatIfRun run = GraphStepsOf(RecordedTwoThreadLoop(10));
  int launches = 0, nodes = 0, eager_backward = 0;
  for (const Op& op : run.predicted.scenario.ops) {
    launches += op.kind == OpKind::kApiCall && op.name.rfind("cudaGraphLaunch", 0) == 0;
    nodes += op.kind == OpKind::kKernel && op.graph >= 0;
    eager_backward += op.kind == OpKind::kKernel && op.graph < 0 && op.thread == 1;
    if (op.graph >= 0) {
      EXPECT_EQ(op.thread, 0);  // a node goes with its launch
    }
  }
  ASSERT_GT(launches, 0);
  EXPECT_EQ(nodes, 72 * launches);  // forward, backward and optimizer: one graph a step
  EXPECT_LT(eager_backward, 72 * 2);  // left eager: at most the steps outside the anchors
  // Each step: the host's 500 us of batch work and one launch, then 72 kernels' GPU time.
  EXPECT_LT(run.after, run.before - Us(200));
  EXPECT_LT(run.after, Us(800));
  ValidateScenario(run.predicted.scenario);
}

// Marian's GradScaler loop: the autograd thread woke 600 us after the forward's last launch, a
// break no graph captures, so its backward is a graph of its own. The loop's thread launches it
// (graph.replay() where backward() was): launched from the woken thread instead, with no wake
// to wait for, every step's backward was submitted at the run's start and ran before its forward
// (69 % shorter, predicted, for a step whose GPU was busy 76 % of the time).
TEST(WhatIf, EveryCapturedGraphIsLaunchedByTheLoopsThreadInItsPlace) {
  WhatIfRun run = GraphStepsOf(RecordedTwoThreadLoop(10, Us(600)));
  const Scenario& s = run.predicted.scenario;
  int launches = 0;
  std::vector<TimeNs> forward_ends, backward_starts;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind == OpKind::kApiCall && op.name.rfind("cudaGraphLaunch", 0) == 0) {
      ++launches;
      EXPECT_EQ(op.thread, 0);
    }
    if (op.name == "fwd9") forward_ends.push_back(run.predicted.ops[i].end);
    if (op.name == "bwd0") backward_starts.push_back(run.predicted.ops[i].start);
  }
  EXPECT_GT(launches, 0);
  ASSERT_EQ(forward_ends.size(), backward_starts.size());
  for (size_t k = 0; k < forward_ends.size(); ++k) EXPECT_GE(backward_starts[k], forward_ends[k]) << "step " << k;
  // Each step's 72 kernels run one after another (its 500 us of batch work lies inside the
  // step's one region here, a break short enough to be taken for launching).
  EXPECT_GE(run.after, 72 * Us(2));
  EXPECT_LT(run.after, run.before);
  ValidateScenario(s);
}

TEST(WhatIf, MoreConnectionsLetTwoStreamsRunSideBySide) {
  // Six 200 us kernels (4 SMs each) queued on s0, then six on s1. One hardware queue: s1's
  // first waits behind s0's last (it starts once that one is running), though nothing orders
  // them: 11 kernels' time. With 8 queues the two streams run side by side: 6 kernels' time.
  ScenarioBuilder b("one queue");
  b.settings().max_connections = 1;
  Stream s0 = b.CreateStream("s0"), s1 = b.CreateStream("s1");
  for (int k = 0; k < 6; ++k) s0.Launch("a" + std::to_string(k), Spin(Us(200), 4));
  for (int k = 0; k < 6; ++k) s1.Launch("b" + std::to_string(k), Spin(Us(200), 4));
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  Replayed r{t, FindSteps(t), {}, BuildReplay(t, DeviceProfile{})};
  r.anchors = StepAnchors(r.measured, r.steps);
  WhatIfEdit e;
  e.kind = EditKind::kConnections;
  e.connections = 8;
  WhatIfRun run = RunWhatIf(r.measured, r.steps, r.anchors, r.replay, {e});
  EXPECT_GT(run.before, 10 * Us(200) + Us(100));
  EXPECT_LT(run.after, 6 * Us(200) + Us(100));
  EXPECT_EQ(run.predicted.scenario.settings.max_connections, 8);
}

TEST(WhatIf, ACopyOnASideStreamRunsBesideTheKernelsQueuedBeforeIt) {
  // On the kernels' stream each step's copy (306 us at the default profile's pinned speed) waits
  // for the last step's kernels (400 us), and they for it; on a side stream it runs beside them.
  // The host runs ahead: a step is the GPU's pace, the spacing of consecutive steps' ends.
  Replayed r = ReplayOf({.host_work = Us(20), .pinned_input = true});
  ASSERT_TRUE(r.steps.found());
  std::vector<int> copies = Calls(r.measured, OpKind::kMemcpy);
  WhatIfRun run = Edit(r, EditKind::kSideStreamCopy, copies);
  EXPECT_GT(run.before, Us(690));
  EXPECT_LT(run.after, Us(420));
  // Each step's first kernel still starts after its copy has landed: the kernels' stream waits.
  const Trace& p = run.predicted;
  std::vector<int> moved = Calls(p, OpKind::kMemcpy), first = Calls(p, OpKind::kKernel, "k0");
  ASSERT_EQ(moved.size(), copies.size());
  ASSERT_EQ(first.size(), copies.size());
  EXPECT_EQ(Calls(p, OpKind::kWaitStream).size(), copies.size());
  std::vector<int> last = Calls(p, OpKind::kKernel, "k3");
  for (size_t k = 0; k < moved.size(); ++k) {
    EXPECT_NE(p.scenario.ops[moved[k]].stream, p.scenario.ops[first[k]].stream);
    EXPECT_GE(p.ops[first[k]].start, p.ops[moved[k]].end) << "step " << k;
    // Into one buffer step after step: a second buffer, so a copy overwrites only what the
    // kernels two steps before read, once they are done.
    if (k >= 2) {
      EXPECT_GE(p.ops[moved[k]].start, p.ops[last[k - 2]].end) << "step " << k;
    }
  }
  ValidateScenario(p.scenario);
}

TEST(WhatIf, TheVerdictsCopyWaitIsReplayedWithTheCopyOnASideStream) {
  Trace t = RecordedLoop({.host_work = Us(20), .pinned_input = true});
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(SimulateFixes(t, v, 5));
  auto wait = std::find_if(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& f) { return f.kind == FixKind::kCopyWait; });
  ASSERT_NE(wait, v.fixes.end());
  EXPECT_EQ(wait->simulated_edit, "side_stream_copy");
  EXPECT_GT(wait->simulated_save, Us(250));  // a step: its 306 us copy beside its kernels, not before them
  FindingTexts texts = FindingTexts::Load("en");
  std::string all;
  for (const std::string& line : RenderVerdict(texts, t, Alone(v))) all += line + "\n";
  EXPECT_NE(all.find("on a side stream"), std::string::npos) << all;
}

// The loop above with the program's own step ranges (an NVTX range "step" around each step's
// calls), as a recorder would have them.
Trace WithStepRanges(Trace t) {
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kHostWork || op.name != "batch") continue;
    TimeNs begin = t.ops[i].submit, end = begin;
    for (size_t j = i + 1; j < t.ops.size() && !(t.scenario.ops[j].kind == OpKind::kHostWork && t.scenario.ops[j].name == "batch"); ++j)
      end = std::max(end, t.ops[j].ret);
    t.ranges.push_back({0, "step", begin, end});
  }
  return t;
}

TEST(WhatIf, AVerdictOnALoopThatNeverWaitsIsTakenOverTheGpusRunOfItsSteps) {
  // The host queues a step in about 25 us; the GPU takes 706 us for one (copy, then kernels).
  Trace t = WithStepRanges(RecordedLoop({.host_work = Us(20), .pinned_input = true}, 12));
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(v.steps.found());
  EXPECT_LT(v.steps.median, Us(100));
  EXPECT_TRUE(v.gpu_paced);
  EXPECT_NEAR(static_cast<double>(v.step), static_cast<double>(Us(706)), static_cast<double>(Us(40)));
  EXPECT_NEAR(static_cast<double>(v.by_category[static_cast<int>(TimeCategory::kGpuCompute)]), static_cast<double>(Us(400)),
              static_cast<double>(Us(30)));
  EXPECT_NEAR(static_cast<double>(v.by_category[static_cast<int>(TimeCategory::kGpuCopy)]), static_cast<double>(Us(306)),
              static_cast<double>(Us(30)));
  // The kernels set the step, and the copies they wait for on their own stream are its first fix.
  EXPECT_EQ(v.bound, TimeCategory::kGpuCompute);
  ASSERT_FALSE(v.fixes.empty());
  EXPECT_EQ(v.fixes[0].kind, FixKind::kKernels);
  EXPECT_TRUE(std::any_of(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& f) { return f.kind == FixKind::kCopyWait; }));
  FindingTexts texts = FindingTexts::Load("en");
  std::string all;
  for (const std::string& line : RenderVerdict(texts, t, Alone(v))) all += line + "\n";
  EXPECT_NE(all.find("The host queued them faster than the GPU ran them"), std::string::npos) << all;
  // A loop the host paces keeps the host's window.
  Trace paced = WithStepRanges(RecordedLoop({.host_work = Ms(2)}));
  EXPECT_FALSE(LeadVerdict(paced).gpu_paced);
}

TEST(WhatIf, AVerdictSaysTheGpusPaceWhenASyncEveryFewStepsHoldsTheHost) {
  // The host queues a step in about 25 us and waits for the GPU every fourth step: the span of
  // the steps is the GPU's, but twelve of sixteen ranges close long before their kernels run.
  Trace t = WithStepRanges(RecordedLoop({.host_work = Us(20), .sync_every = 4}, 16));
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(v.steps.found());
  EXPECT_LT(v.steps.median, Us(100));
  EXPECT_TRUE(v.gpu_paced);
  EXPECT_NEAR(static_cast<double>(v.pace.ends), static_cast<double>(Us(400)), static_cast<double>(Us(30)));
  EXPECT_EQ(v.bound, TimeCategory::kGpuCompute);
  FindingTexts texts = FindingTexts::Load("en");
  std::string all;
  for (const std::string& line : RenderVerdict(texts, t, Alone(v))) all += line + "\n";
  EXPECT_NE(all.find("The host queued them faster than the GPU ran them"), std::string::npos) << all;
  // A sync at each step's end: the ranges hold the GPU's time, and the host paces the loop.
  Trace each = WithStepRanges(RecordedLoop({.host_work = Us(20), .sync_device = true}, 16));
  EXPECT_FALSE(LeadVerdict(each).gpu_paced);
}

// Four kernel functions first launched in step 1, each load costing the host 2 ms (lazy loading,
// no warm-up), in a loop that syncs each step; one allocation before the loop.
Trace RecordedFirstLoads() {
  DeviceProfile slow_loads;
  slow_loads.module_load_host = Ms(2);
  ScenarioBuilder b("first loads");
  b.settings().warmup = false;
  Stream s = b.CreateStream("compute");
  Buffer work = b.DeviceBuffer("work", 1 << 20);
  Host host = b.host();
  host.Malloc(work);
  for (int k = 0; k < 8; ++k) {
    host.Work("batch", Us(50));
    for (int i = 0; i < 4; ++i) s.Launch("k" + std::to_string(i), Spin(Us(100), 132, 128, i));
    host.SyncDevice();
  }
  return AsRecording(SimExecutor(slow_loads).Run(b.Build(), {}));
}

TEST(WhatIf, AWarmUpStepTakesTheModuleLoadsOutOfTheFirstStepNotOutOfTheRun) {
  Trace t = RecordedFirstLoads();
  StepSplit steps = FindSteps(t);
  ASSERT_TRUE(steps.found());
  ASSERT_EQ(steps.warmup, 1);
  std::vector<int> anchors = StepAnchors(t, steps);
  std::optional<WhatIfEdit> e = WarmUpEdit(t, steps, CallPlaces(t, anchors));
  ASSERT_TRUE(e);
  ASSERT_EQ(e->calls.size(), 5u);  // the first step's launches and its sync
  WhatIfRun run = RunWhatIf(t, steps, anchors, BuildReplay(t, DeviceProfile{}), {*e});
  ASSERT_EQ(run.lead_before.steps, 1);
  // The steady step keeps its time. The first step's launches take a steady step's host time: the
  // step loses the loads (4 x 2 ms) less the kernel time
  // they hid (3 of its 4 kernels ran while the host loaded the next one's module): 7.6 ms. The
  // time from the first call to the first steady step is not shorter: the loads move, they stay.
  EXPECT_NEAR(static_cast<double>(run.after), static_cast<double>(run.before), 0.01 * static_cast<double>(run.before));
  TimeNs saved = run.lead_before.first_steps - run.lead_after.first_steps;
  EXPECT_GT(saved, Us(7500));
  EXPECT_LT(saved, Ms(8));
  EXPECT_GE(run.lead_after.to_steady, run.lead_before.to_steady);
  // explain says how much of the warm-up step the loads are.
  Verdict v = LeadVerdict(t);
  ASSERT_TRUE(SimulateFixes(t, v, 5));
  auto warmup = std::find_if(v.startup.begin(), v.startup.end(), [](const StartupCost& c) { return c.kind == StartupCost::kWarmupSteps; });
  ASSERT_NE(warmup, v.startup.end());
  EXPECT_EQ(warmup->simulated_save, saved);
  EXPECT_EQ(warmup->loads, Ms(8) + 4 * DeviceProfile{}.launch_host);
  std::string all;
  for (const std::string& line : RenderVerdict(FindingTexts::Load("en"), t, Alone(v))) all += line + "\n";
  EXPECT_NE(all.find("of it module loads), of which a warm-up step before the loop"), std::string::npos) << all;
  // A loop whose first step is no slower than the rest has nothing to warm up.
  Trace warm = RecordedLoop({.host_work = Ms(2)});
  StepSplit warm_steps = FindSteps(warm);
  EXPECT_FALSE(WarmUpEdit(warm, warm_steps, CallPlaces(warm, StepAnchors(warm, warm_steps))));
}

TEST(WhatIf, TheVerdictsFixesGetSimulatedSavings) {
  Trace t = RecordedLoop({.host_work = Us(300), .read_back = true});
  Analysis a = Analyze(t);
  Verdict v = LeadVerdict(t);
  ASSERT_FALSE(v.fixes.empty());
  ASSERT_TRUE(SimulateFixes(t, v, 5));
  bool simulated = false;
  for (const VerdictFix& f : v.fixes) simulated |= f.simulated_save > 0;
  EXPECT_TRUE(simulated);
  FindingTexts texts = FindingTexts::Load("en");
  std::string all;
  for (const std::string& line : RenderVerdict(texts, t, Alone(v))) all += line + "\n";
  EXPECT_NE(all.find("simulated"), std::string::npos) << all;
}

TEST(WhatIf, AThreadWokenByAnotherWaitsForItInTheSimulator) {
  ScenarioBuilder b("woken");
  Host host = b.host();
  host.Work("main", Ms(1));
  b.OnThread(1);
  b.host().Work("helper", Us(10));
  Scenario s = b.Build();
  s.recorded = true;
  s.ops[1].woken_by = 0;  // the helper's work starts once the main thread's has returned
  s.ops[1].woken_delay = Us(5);
  Trace t = SimulateRecorded(DeviceProfile{}, s);
  EXPECT_GE(t.ops[1].submit, t.ops[0].ret + Us(5));
  // And a replay's fields survive a scenario file.
  Scenario back = ScenarioFromJson(ScenarioToJson(s), "test");
  EXPECT_EQ(back.ops[1].woken_by, 0);
  EXPECT_EQ(back.ops[1].woken_delay, Us(5));
}

}  // namespace
}  // namespace streamlab
