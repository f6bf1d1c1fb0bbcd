// Several processes' recordings on one timeline (engine/ingest/recording_merge.cpp): the clock
// mapping, one device numbering, per-process stream semantics, NCCL kernels matched into
// collectives - on small logs built here - and a real `torchrun --nproc_per_node=2` DDP job
// recorded on two H200s (tests/fixtures/recorded/ddp-*/, examples/pytorch/ddp_straggler.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/happens_before.h"
#include "engine/explain/explain_program.h"
#include "engine/scenario/dependencies.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "tests/recorder_log.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

constexpr TimeNs kMs = 1000000;

// One process that launched `kernel` (1 ms) on the legacy stream of its device 0 at host
// time `host_at`, then synchronized; its CUPTI clock reads `cupti_ahead` more than the host's.
Recording OneLaunch(int pid, int rank, TimeNs cupti_ahead_ns, TimeNs host_at_ns, const std::string& uuid,
                    const std::string& kernel = "_Z4Spinx") {
  const uint64_t cupti_ahead = static_cast<uint64_t>(cupti_ahead_ns), host_at = static_cast<uint64_t>(host_at_ns);
  const uint64_t ms = static_cast<uint64_t>(kMs);
  Recording r;
  r.pid = pid;
  r.rank = rank;
  r.clocks = {{1 * ms + cupti_ahead, 1 * ms, 30}, {50 * ms + cupti_ahead, 50 * ms, 30}};
  r.devices.push_back({0, "NVIDIA H200", 132, 64, 32, 65536, 233472, uuid});
  RecordedCall launch;
  launch.function = "cudaLaunchKernel";
  launch.role = CallRole::kLaunch;
  launch.begin = host_at + cupti_ahead;
  launch.end = launch.begin + 5000;
  launch.correlation = 1;
  launch.stream = 0;
  launch.stream_id = 7;
  r.calls.push_back(launch);
  RecordedCall sync;
  sync.function = "cudaDeviceSynchronize";
  sync.role = CallRole::kSyncDevice;
  sync.begin = launch.end + 1000;
  sync.end = launch.begin + 1 * ms + 20000;
  sync.correlation = 2;
  r.calls.push_back(sync);
  RecordedActivity k;
  k.type = "kernel";
  k.correlation = 1;
  k.stream_id = 7;
  k.begin = launch.begin + 10000;
  k.end = k.begin + 1 * ms;
  k.name = kernel;
  k.block = 128;
  r.activity.push_back(k);
  return r;
}

int OpNamed(const Trace& t, const std::string& prefix, int process) {
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.stream >= 0 && t.scenario.streams[op.stream].process == process && op.name.rfind(prefix, 0) == 0)
      return static_cast<int>(i);
  }
  return -1;
}

TEST(RecordingMerge, ProcessesShareOneTimelineThroughTheHostClock) {
  // B's CUPTI clock runs 5 ms ahead of A's; B launched 500 us after A in host time.
  Trace t = TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa"), OneLaunch(11, 1, 5 * kMs, 2 * kMs + 500000, "bb")});
  ASSERT_EQ(t.scenario.processes, (std::vector<std::string>{"rank 0 (pid 10)", "rank 1 (pid 11)"}));
  int a = OpNamed(t, "Spin", 0), b = OpNamed(t, "Spin", 1);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_EQ(t.ops[b].start - t.ops[a].start, 500000);
  EXPECT_LT(a, b);  // ops interleave in host time
  EXPECT_EQ(t.clock_error, 60);
  EXPECT_EQ(t.scenario.streams[t.scenario.ops[a].stream].name.rfind("rank 0: ", 0), 0u);
  // "aa" and "bb" are both device 0 in their own process (CUDA_VISIBLE_DEVICES): one
  // numbering makes them GPU 0 and GPU 1.
  EXPECT_EQ(t.scenario.device_count, 2);
  EXPECT_NE(t.scenario.streams[t.scenario.ops[a].stream].device, t.scenario.streams[t.scenario.ops[b].stream].device);
}

TEST(RecordingMerge, ALegacyStreamOrADeviceSyncReachesOnlyItsOwnProcess) {
  // Both processes on the same GPU (one UUID): two legacy default streams of one device.
  Trace t = TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa"), OneLaunch(11, 1, 0, 2 * kMs + 200000, "aa")});
  ASSERT_EQ(t.scenario.device_count, 1);
  int a = OpNamed(t, "Spin", 0), b = OpNamed(t, "Spin", 1);
  StreamDependencies deps = ComputeDependencies(t.scenario);
  for (const DepEdge& e : deps.into[b]) EXPECT_NE(e.from, a) << "a legacy barrier across processes";
  HappensBefore hb(t.scenario);
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    if (t.scenario.ops[i].kind != OpKind::kSyncDevice) continue;
    int process = ProcessOfThread(t.scenario, t.scenario.ops[i].thread);
    for (int w : hb.WaitedFor(static_cast<int>(i))) EXPECT_EQ(w, process == 0 ? a : b);
  }
  EXPECT_NO_THROW(Analyze(t));
}

TEST(RecordingMerge, NcclKernelsBecomeOneCollectiveAndTheLateRankIsNamed) {
  const std::string nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  Trace t = TraceFromRecordings(
      {OneLaunch(10, 0, 0, 2 * kMs, "aa", nccl), OneLaunch(11, 1, 0, 2 * kMs + 700000, "bb", nccl)});
  int a = OpNamed(t, "ncclDevKernel", 0), b = OpNamed(t, "ncclDevKernel", 1);
  ASSERT_EQ(t.scenario.ops[a].kind, OpKind::kCollective);
  EXPECT_EQ(CollectiveParts(t.scenario, b), (std::vector<int>{a, b}));
  Analysis analysis = Analyze(t);
  std::vector<const Finding*> waits = testing::FindingsOfKind(analysis, FindingKind::kCollectiveWait);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0]->op, a);
  EXPECT_EQ(waits[0]->other, b);
  EXPECT_EQ(waits[0]->amount, 700000);

  // A kernel on one GPU only has nothing to be matched with: it stays a kernel, with a note.
  Trace lone = TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa", nccl), OneLaunch(11, 1, 0, 2 * kMs, "bb")});
  EXPECT_EQ(lone.scenario.ops[OpNamed(lone, "ncclDevKernel", 0)].kind, OpKind::kKernel);
  EXPECT_TRUE(std::any_of(lone.notes.begin(), lone.notes.end(),
                          [](const TraceNote& n) { return n.text.find("GPU 0 only") != std::string::npos; }));
}

TEST(RecordingMerge, SaysWhyItCannotAlignLogsWithoutClockPairs) {
  Recording old = OneLaunch(11, 1, 0, 2 * kMs, "bb");
  old.clocks.clear();
  try {
    TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa"), old});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no clock readings"), std::string::npos) << e.what();
  }
}

// Each process replays a two-branch CUDA graph; the launch stays followed by its nodes, and
// the nodes' edges still name the right ops once both processes share one op list.
TEST(RecordingMerge, AGraphReplayStaysWholeWithItsEdges) {
  auto replaying = [](int pid) {
    testing::Log log(pid);
    log.Clock(1000, 1000).BeginCapture(77).CapturedKernel(77, "[4096]", 1).Record(77, 5).Wait(88, 5);
    log.CapturedKernel(88, "[4096]", 2).Record(88, 6).Wait(77, 6).EndCapture(77).Instantiate({1, 2});
    log.Replay(77, {{1, 77}, {2, 150}}).Kernel(99, "[8192]").Addresses(3).Clock(90000000, 90000000);
    return ParseRecording(log.text(), "rank.jsonl");
  };
  Trace t = TraceFromRecordings({replaying(10), replaying(11)});
  int nodes = 0;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.graph < 0) continue;
    ++nodes;
    EXPECT_EQ(t.scenario.ops[op.graph].name, "cudaGraphLaunch");
    EXPECT_EQ(ProcessOfThread(t.scenario, t.scenario.ops[op.graph].thread), ProcessOfThread(t.scenario, op.thread));
    if (op.stream == t.scenario.ops[op.graph].other_stream) continue;  // branch 1, on the launch stream
    ASSERT_EQ(op.graph_after.size(), 1u) << i;  // branch 2 comes after branch 1 of its own launch
    EXPECT_EQ(t.scenario.ops[op.graph_after[0]].graph, op.graph);
  }
  EXPECT_EQ(nodes, 4);
  EXPECT_TRUE(testing::FindingsOfKind(Analyze(t), FindingKind::kAddressRace).empty());
}

TEST(RecordingMerge, LogsHoursApartAreNotOneRun) {
  EXPECT_THROW(TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa"), OneLaunch(11, 1, 0, 2 * kMs + 7200 * 1000 * kMs, "bb")}),
               InputError);
}

TEST(RecordingMerge, ProcessesSurviveTheTraceFile) {
  Trace t = TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa"), OneLaunch(11, 1, 0, 2 * kMs, "bb")});
  Trace back = TraceFromJson(TraceToJson(t), "merged");
  EXPECT_EQ(back.scenario.processes, t.scenario.processes);
  EXPECT_EQ(back.scenario.thread_process, t.scenario.thread_process);
  for (size_t i = 0; i < t.scenario.streams.size(); ++i)
    EXPECT_EQ(back.scenario.streams[i].process, t.scenario.streams[i].process);
  // Two processes that claim one rank keep distinct lane names (the file needs them).
  Trace twice = TraceFromRecordings({OneLaunch(10, 0, 0, 2 * kMs, "aa"), OneLaunch(11, 0, 0, 2 * kMs, "bb")});
  EXPECT_NO_THROW(TraceFromJson(TraceToJson(twice), "twice"));
  // A scenario that is to be run has one process.
  Scenario runnable = back.scenario;
  runnable.recorded = false;
  EXPECT_THROW(ValidateScenario(runnable), InputError);
}

// [SECTION] the DDP job on two H200s -----------------------------------------------------
// examples/pytorch/ddp_straggler.py under `record --capture-range cudaProfilerApi`, three
// steps; rank 1 spins 3 ms before each backward pass in "straggler", not in "balanced".
Trace Ddp(const std::string& variant) {
  return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/ddp-" + variant));
}

std::vector<const Finding*> Waits(const Analysis& a) { return testing::FindingsOfKind(a, FindingKind::kCollectiveWait); }

TEST(RecordingMerge, DdpRanksAreLaneGroupsOnOneClockAndTheLauncherIsLeftOut) {
  Trace t = Ddp("straggler");
  ASSERT_EQ(t.scenario.processes.size(), 2u);
  EXPECT_EQ(t.scenario.processes[0].rfind("rank 0 (pid", 0), 0u);
  EXPECT_EQ(t.scenario.processes[1].rfind("rank 1 (pid", 0), 0u);
  EXPECT_EQ(t.scenario.device_count, 2);
  for (const StreamDesc& st : t.scenario.streams) EXPECT_EQ(st.device, st.process) << st.name;  // rank r on GPU r
  EXPECT_GT(t.clock_error, 0);
  EXPECT_LT(t.clock_error, 1000);  // the clock pairs were read to within ~30 ns
  auto has = [&](const std::string& text) {
    return std::any_of(t.notes.begin(), t.notes.end(), [&](const TraceNote& n) { return n.text.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("used CUDA but ran no GPU work"));  // torchrun's own process
  EXPECT_TRUE(has("NCCL collectives matched"));
  int collectives = 0;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kCollective || op.collective_first != static_cast<int>(i)) continue;
    ++collectives;
    std::vector<int> parts = CollectiveParts(t.scenario, static_cast<int>(i));
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_NE(t.scenario.streams[t.scenario.ops[parts[0]].stream].process,
              t.scenario.streams[t.scenario.ops[parts[1]].stream].process);
  }
  EXPECT_EQ(collectives, 24);  // 3 steps x 8 buckets (one Linear layer's gradients each)
}

TEST(RecordingMerge, DdpStragglerEveryStepRankZeroWaitsForRankOneInsideTheAllReduce) {
  Trace t = Ddp("straggler");
  Analysis a = Analyze(t);
  int long_waits = 0;
  for (const Finding* f : Waits(a)) {
    if (f->amount < 1 * kMs) continue;
    ++long_waits;
    EXPECT_EQ(t.scenario.streams[t.scenario.ops[f->op].stream].process, 0);
    EXPECT_EQ(t.scenario.streams[t.scenario.ops[f->other].stream].process, 1);  // the late rank
    EXPECT_NEAR(static_cast<double>(f->amount), 3.0 * kMs, 0.2 * 3.0 * kMs);   // the 3 ms it spun
    ASSERT_FALSE(f->because.empty());  // what rank 1 was still computing
    EXPECT_EQ(t.scenario.streams[t.scenario.ops[f->because[0]].stream].process, 1);
  }
  // Steps 2 and 3, at the first bucket after the spin. In step 1 both ranks' first launch of
  // the window was slow (~3.4 ms: CUPTI switching activity recording on, or a first launch),
  // which hid rank 1's 3 ms (the trace says so on those launches; README, "Multi-process programs").
  EXPECT_EQ(long_waits, 2);
}

// The verdict names rank 1 where it spun 3 ms a step, and no one in the balanced job, where each
// rank arrives last at some collectives (rank 0 still waits on its path there).
TEST(RecordingMerge, TheStragglerIsTheRankWaitedForMoreThanItWaits) {
  for (const char* variant : {"straggler", "balanced"}) {
    Trace t = Ddp(variant);
    Explanation e = ExplainProgram(t, {0});
    ASSERT_EQ(e.verdict.processes.size(), 2u) << variant;
    EXPECT_EQ(e.verdict.straggler, std::string(variant) == "straggler" ? 1 : -1) << variant;
  }
}

// The same job on four H200s (torchrun --nproc_per_node=4, 2026-11-26): each of ranks 0, 2 and
// 3 waits inside the all-reduce for rank 1 in steps 2 and 3, about the 3 ms it spun (one wait
// was 2.07 ms: that rank was itself late). In step 1 the window's slow first launches again
// hide the spin (two waits of 1.1-1.3 ms there, for rank 2).
TEST(RecordingMerge, DdpStragglerOnFourGpusTheOtherThreeWaitForRankOne) {
  Trace t = Ddp("straggler-4");
  ASSERT_EQ(t.scenario.processes.size(), 4u);
  EXPECT_EQ(t.scenario.device_count, 4);
  int collectives = 0;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kCollective || op.collective_first != static_cast<int>(i)) continue;
    ++collectives;
    EXPECT_EQ(CollectiveParts(t.scenario, static_cast<int>(i)).size(), 4u);
  }
  EXPECT_EQ(collectives, 24);
  Analysis a = Analyze(t);
  std::map<int, int> waits_for_rank_one;  // waiting rank -> how many
  auto process = [&](int op) { return t.scenario.streams[t.scenario.ops[op].stream].process; };
  for (const Finding* f : Waits(a)) {
    if (f->amount < 1 * kMs || process(f->other) != 1) continue;
    ++waits_for_rank_one[process(f->op)];
    EXPECT_GT(f->amount, 1.8 * kMs);
    EXPECT_LT(f->amount, 3.6 * kMs);
    ASSERT_FALSE(f->because.empty());
    EXPECT_EQ(process(f->because[0]), 1);  // what rank 1 was still computing
  }
  EXPECT_EQ(waits_for_rank_one, (std::map<int, int>{{0, 2}, {2, 2}, {3, 2}}));
}

TEST(RecordingMerge, DdpBalancedNoRankWaitsLong) {
  Analysis a = Analyze(Ddp("balanced"));
  for (const Finding* f : Waits(a)) EXPECT_LT(f->amount, 1 * kMs);
}

TEST(RecordingMerge, TheWindowsStartIsNotBlamedOnTheProgram) {
  // The first launch after cudaProfilerStart blocked ~3.4 ms, inferred as CUPTI switching
  // activity recording on or a first launch; the trace says so, and no record is said to
  // have captured nothing.
  Trace t = Ddp("straggler");
  Analysis a = Analyze(t);
  EXPECT_TRUE(testing::FindingsOfKind(a, FindingKind::kWaitCapturedNothing).empty());
  int marked = 0;
  for (const OpRecord& r : t.ops) marked += r.inferred.find("CUPTI switching") != std::string::npos;
  EXPECT_EQ(marked, 2);  // one per rank
}

// Two ranks' kernels handed the same number are two pieces of memory (each process has its own
// address space, and ranks that allocate alike often get equal addresses): no race between them.
TEST(RecordingMerge, EqualAddressesInTwoProcessesAreNotOneMemory) {
  Recording a = OneLaunch(100, 0, 0, 2 * kMs, "GPU-a"), b = OneLaunch(200, 1, 0, 2 * kMs, "GPU-b");
  for (Recording* r : {&a, &b}) {
    r->addresses = 1;
    r->launches_read = 1;
    r->calls[0].args = {0x7f0000000000};
  }
  Trace t = TraceFromRecordings({a, b});
  ASSERT_EQ(t.scenario.processes.size(), 2u);
  EXPECT_TRUE(testing::FindingsOfKind(Analyze(t), FindingKind::kAddressRace).empty());
  // The same two launches in one process, on the legacy stream and a non-blocking one, are a
  // possible race.
  Recording one = a;
  one.default_non_blocking = true;
  RecordedCall second = one.calls[0];
  second.correlation = 3;
  second.stream = 0x55;
  second.stream_id = 13;
  second.begin += 100;
  second.end += 100;
  one.calls.insert(one.calls.begin() + 1, second);
  RecordedActivity k = one.activity[0];
  k.correlation = 3;
  k.stream_id = 13;
  one.activity.push_back(k);
  EXPECT_EQ(testing::FindingsOfKind(Analyze(TraceFromRecording(one)), FindingKind::kAddressRace).size(), 1u);
}

}  // namespace
}  // namespace streamlab
