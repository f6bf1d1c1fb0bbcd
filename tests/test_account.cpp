// The account of a step's time (engine/account): each walked step's critical path tiles its
// window exactly, so the categories sum to the step, on every recorded fixture; and on loops whose
// time is known by construction (simulated runs relabelled as recordings), each category holds
// what it should.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "engine/account/step_account.h"
#include "engine/ingest/open_trace.h"
#include "engine/ingest/recording.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_json.h"
#include "engine/sim/sim_executor.h"
#include "tests/recorder_log.h"
#include "tests/test_util.h"
#include "tests/whatif_recorded_loops.h"

namespace streamlab {
namespace {

TimeNs Share(const ProcessAccount& a, TimeCategory c, double* share) {
  TimeNs t = a.by_category[static_cast<int>(c)];
  *share = a.step > 0 ? static_cast<double>(t) / static_cast<double>(a.step) : 0;
  return t;
}

double ShareOf(const ProcessAccount& a, TimeCategory c) {
  double s = 0;
  Share(a, c, &s);
  return s;
}

double KindShare(const ProcessAccount& a, TimeKind k) {
  return a.step > 0 ? static_cast<double>(a.by_kind[static_cast<int>(k)]) / static_cast<double>(a.step) : 0;
}

// The segments of each walked step cover its window once, with no gap and no overlap, and the
// process's categories and kinds each sum to its step.
void ExpectTiled(const ProgramAccount& account, const std::string& what) {
  for (const ProcessAccount& p : account.processes) {
    for (const WalkedStep& w : p.walked) {
      std::vector<PathSegment> path = w.path;
      std::sort(path.begin(), path.end(), [](const PathSegment& a, const PathSegment& b) { return a.from < b.from; });
      ASSERT_FALSE(path.empty()) << what;
      EXPECT_EQ(path.front().from, w.begin) << what << " step " << w.step;
      EXPECT_EQ(path.back().to, w.end) << what << " step " << w.step;
      TimeNs sum = 0;
      for (size_t i = 0; i < path.size(); ++i) {
        EXPECT_LT(path[i].from, path[i].to) << what;
        if (i > 0) {
          EXPECT_EQ(path[i - 1].to, path[i].from) << what << " step " << w.step << " segment " << i;
        }
        sum += path[i].length();
      }
      EXPECT_EQ(sum, w.end - w.begin) << what;
    }
    TimeNs categories = 0, kinds = 0;
    for (TimeNs c : p.by_category) categories += c;
    for (TimeNs k : p.by_kind) kinds += k;
    EXPECT_EQ(categories, p.step) << what;
    EXPECT_EQ(kinds, p.step) << what;
    EXPECT_GE(p.gpu_busy, 0) << what;
    EXPECT_LE(p.gpu_busy, p.step) << what;
  }
}

TEST(Account, EveryRecordedFixturesStepsAreTiledAndSumToTheStep) {
  int accounted = 0;
  for (const char* dir : {"tests/fixtures/recorded", "tests/fixtures/kineto"})
    for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath(dir))) {
      std::string path = e.path().string();
      bool trace = e.is_directory() || e.path().extension() == ".json" || path.ends_with(".raw.jsonl");
      if (!trace) continue;
      Trace t = LoadTraceFile(path);
      ProgramAccount account = AccountOf(t);
      ExpectTiled(account, path);
      accounted += account.found();
    }
  EXPECT_GE(accounted, 40);
}

TEST(Account, TheCategoriesNamesReadBothWays) {
  for (int c = 0; c < kTimeCategoryCount; ++c) {
    TimeCategory back{};
    ASSERT_TRUE(FromString(ToString(static_cast<TimeCategory>(c)), &back));
    EXPECT_EQ(static_cast<int>(back), c);
  }
  for (int k = 0; k < kTimeKindCount; ++k) {
    TimeKind back{};
    ASSERT_TRUE(FromString(ToString(static_cast<TimeKind>(k)), &back));
    EXPECT_EQ(static_cast<int>(back), k);
  }
}

// A loop that waits for the GPU at each step's end: its step is the host's work, its launches
// and the kernels, one after the other.
TEST(Account, ASyncedLoopIsItsHostWorkThenItsKernels) {
  ScenarioBuilder b("synced");
  Stream s = b.CreateStream("compute");
  for (int k = 0; k < 8; ++k) {
    b.host().Work("batch", Us(300));
    for (int i = 0; i < 4; ++i) s.Launch("k" + std::to_string(i), Spin(Us(100), 132));
    b.host().SyncDevice();
  }
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "synced");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_FALSE(a.gpu_paced);
  EXPECT_GE(a.walked.size(), 5u);
  EXPECT_NEAR(static_cast<double>(a.by_category[static_cast<int>(TimeCategory::kHostWork)]), Us(300), Us(5));
  EXPECT_NEAR(static_cast<double>(a.by_category[static_cast<int>(TimeCategory::kGpuCompute)]), Us(400), Us(10));
  EXPECT_LT(ShareOf(a, TimeCategory::kUnknown), 0.01);
  EXPECT_NEAR(static_cast<double>(a.gpu_busy), Us(400), Us(10));  // the four kernels, whether on the path or not
}

// Nothing holds the host: it queues the steps far ahead, and the GPU's run of them is the step.
TEST(Account, AHostThatRunsAheadIsPacedByTheGpu) {
  ScenarioBuilder b("ahead");
  Stream s = b.CreateStream("compute");
  for (int k = 0; k < 10; ++k) {
    b.host().Work("batch", Us(5));
    for (int i = 0; i < 4; ++i) s.Launch("k" + std::to_string(i), Spin(Us(500), 132));
  }
  b.host().SyncDevice();
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "ahead");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_TRUE(a.gpu_paced);
  EXPECT_GT(ShareOf(a, TimeCategory::kGpuCompute), 0.95);
  EXPECT_NEAR(static_cast<double>(a.step), Us(2000), Us(40));
  EXPECT_GT(a.gpu_busy, a.step * 95 / 100);
}

// A host nearly as fast as the GPU (1.8 ms of its own work a step, 2 ms of kernels), waiting for
// it every 5th step (a logged loss): the host's median step is its own 1.8 ms, but it is ahead
// at most step ends, and the loop takes the GPU's 2 ms a step; the kernels are the bound.
TEST(Account, AHostAheadAtMostStepEndsIsPacedByTheGpu) {
  ScenarioBuilder b("nearly");
  Stream s = b.CreateStream("compute");
  for (int k = 0; k < 20; ++k) {
    b.host().Work("batch", Us(1800));
    for (int i = 0; i < 4; ++i) s.Launch("k" + std::to_string(i), Spin(Us(500), 132));
    if (k % 5 == 4) b.host().SyncDevice();
  }
  b.host().SyncDevice();
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "nearly");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_TRUE(a.gpu_paced);
  EXPECT_GT(ShareOf(a, TimeCategory::kGpuCompute), 0.8);
}

// A loop that captures its step again each iteration: the host's short gaps between the capture's
// calls are spent building the graph, not launching (jacobiCudaGraphs -gpumethod=1's shape).
TEST(Account, TheGapsInsideAStreamCaptureBuildTheGraph) {
  testing::Log log;
  for (uint64_t k = 0; k < 8; ++k) {
    uint64_t node = 10 * k + 1;
    log.BeginCapture(77).Pause(20000).CapturedKernel(77, "[4096]", node).Pause(20000);
    log.CapturedMemset(77, 4096, node + 1).Pause(20000).EndCapture(77).Instantiate({node, node + 1});
    log.Replay(77, {{node, 77}, {node + 1, 77, true}}).SyncStream(77);
  }
  Trace t = log.Convert();
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "capture");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_GT(KindShare(a, TimeKind::kGraphBuild), 0.4);
  EXPECT_LT(KindShare(a, TimeKind::kLaunch), 0.3) << KindShare(a, TimeKind::kGraphBuild);
}

// A loop of one-value reads (Faster R-CNN's `float(score)` per detection): the host's short
// dispatch on the way to each sync is the read's cost, not launching.
TEST(Account, TheDispatchGapBeforeASyncIsTheSyncsNotALaunch) {
  testing::Log log;
  for (int k = 0; k < 8; ++k) {
    log.Kernel(77, "[4096]", 20000);
    for (int read = 0; read < 20; ++read) log.Pause(20000).SyncStream(77);
  }
  Trace t = log.Convert();
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "reads");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_GT(KindShare(a, TimeKind::kSync), 0.6);
  EXPECT_LT(KindShare(a, TimeKind::kLaunch), 0.2) << KindShare(a, TimeKind::kSync);
}

// A graph whose last node copies into pageable memory: cudaGraphLaunch returns only after the
// graph has run (25 us here, its kernel 15 us of it). The launch waited for the graph's work:
// that work is on the path, not 25 us of launching.
TEST(Account, AGraphLaunchBackOnlyAfterItsGraphRanWaitedForIt) {
  testing::Log log;
  for (int k = 0; k < 8; ++k) {
    uint64_t node = 10 * k + 1;
    log.BeginCapture(77).CapturedKernel(77, "[4096]", node).EndCapture(77).Instantiate({node});
    long at = log.Now(), corr = 5000 + k;
    log.Line("{\"t\":\"call\",\"tid\":0,\"fn\":\"cudaGraphLaunch\",\"role\":\"graph_launch\",\"dom\":0,\"b\":" +
             std::to_string(at) + ",\"e\":" + std::to_string(at + 25000) + ",\"corr\":" + std::to_string(corr) +
             ",\"stream\":77,\"sid\":13}");
    log.Line("{\"t\":\"kernel\",\"corr\":" + std::to_string(corr) + ",\"dev\":0,\"sid\":13,\"b\":" +
             std::to_string(at + 6000) + ",\"e\":" + std::to_string(at + 21000) +
             ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"_Z1kPf\",\"graph\":1,\"node\":" +
             std::to_string(node + 1000) + "}");
    log.Skip(25500).SyncStream(77);
  }
  Trace t = log.Convert();
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "blocking launch");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_GT(KindShare(a, TimeKind::kKernels) + KindShare(a, TimeKind::kSmallGrid), 0.2);
  EXPECT_LT(KindShare(a, TimeKind::kLaunch), 0.2);
}

// 16 streams of one-block kernels, A then B on each, on 8 hardware queues: B of one stream holds
// A of another behind it in their shared queue (GPU-FACTS.md), so much of the run is work ready
// but not started; and what does run covers a few of the 132 SMs.
TEST(Account, StreamsSharingAHardwareQueueWaitInIt) {
  ScenarioBuilder b("queues");
  std::vector<Stream> streams;
  for (int i = 0; i < 16; ++i) streams.push_back(b.CreateStream("s" + std::to_string(i)));
  for (Stream& s : streams) {
    s.Launch("A", Spin(Ms(1), 1));
    s.Launch("B", Spin(Ms(1), 1));
  }
  b.host().SyncDevice();
  Scenario scenario = b.Build();
  scenario.settings.max_connections = 8;
  Trace t = AsRecording(SimExecutor().Run(scenario, {}));
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "queues");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_GT(KindShare(a, TimeKind::kHardwareQueue), 0.25);  // 1 ms of the 3 the run takes
  EXPECT_GT(KindShare(a, TimeKind::kSmallGrid), 0.3);
  EXPECT_EQ(KindShare(a, TimeKind::kKernels), 0);
}

// A copy from pageable memory holds the host while it is staged: the call's time is the copy's
// staging and the copy itself, not the host's own work.
TEST(Account, APageableCopyIsTheCallAndTheCopyNotHostWork) {
  ScenarioBuilder b("pageable");
  Stream s = b.CreateStream("compute");
  Buffer dev = b.DeviceBuffer("dev", 64 << 20);
  Buffer host = b.PageableBuffer("host", 64 << 20);
  for (int k = 0; k < 6; ++k) {
    s.Copy("input", dev, host, 64 << 20);
    s.Launch("k", Spin(Us(200), 132));
    b.host().SyncDevice();
  }
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  ProgramAccount account = AccountOf(t);
  ExpectTiled(account, "pageable");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  EXPECT_GT(ShareOf(a, TimeCategory::kGpuCopy) + KindShare(a, TimeKind::kPageableCopy), 0.8);
  EXPECT_LT(ShareOf(a, TimeCategory::kHostWork), 0.05);
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

// A recorded loop (launch, a 100 us kernel, a sync, 300 us outside CUDA) whose recorder spent
// 50 us of each gap on its own work (the log's "own"), and `own_in` of each 5 us launch call.
std::string LoopWithRecorderWork(int own_in_ns) {
  std::string log = R"({"t":"meta","format":"streamlab-record","version":1,"pid":7,"start":0})" "\n"
                    R"({"t":"call","tid":0,"fn":"cudaStreamCreateWithFlags","role":"stream_create","dom":0,"b":1000,"e":2000,"corr":1,"stream":77,"sid":13,"flags":1})" "\n";
  uint64_t t = 10000;
  int corr = 2;
  for (int k = 0; k < 8; ++k) {
    std::string own = k > 0 ? R"(,"own":50000)" : "";
    if (own_in_ns > 0) own += R"(,"own_in":)" + std::to_string(own_in_ns);
    log += R"({"t":"call","tid":0,"fn":"cudaLaunchKernel","role":"launch","dom":0,"b":)" + std::to_string(t) + R"(,"e":)" +
           std::to_string(t + 5000) + R"(,"corr":)" + std::to_string(corr) + R"(,"stream":77,"sid":13)" + own + "}\n";
    log += R"({"t":"kernel","corr":)" + std::to_string(corr) + R"(,"dev":0,"sid":13,"b":)" + std::to_string(t + 8000) +
           R"(,"e":)" + std::to_string(t + 108000) + R"(,"grid":[132,1,1],"block":[256,1,1],"regs":32,"ssmem":0,"dsmem":0,"name":"_Z1kv"})" "\n";
    log += R"({"t":"call","tid":0,"fn":"cudaStreamSynchronize","role":"sync_stream","dom":0,"b":)" + std::to_string(t + 6000) +
           R"(,"e":)" + std::to_string(t + 112000) + R"(,"corr":)" + std::to_string(corr + 1) + R"(,"stream":77,"sid":13})" "\n";
    t += 112000 + 300000;
    corr += 2;
  }
  return log;
}

// That time is the recorder's, not the program's own work, and the verdict's step unrecorded
// leaves it out.
TEST(Account, TheRecordersOwnWorkIsItsOwnCategory) {
  Trace trace = TraceFromRecording(ParseRecording(LoopWithRecorderWork(0), "own.jsonl"));
  ProgramAccount account = AccountOf(trace);
  ExpectTiled(account, "own");
  ASSERT_EQ(account.processes.size(), 1u);
  const ProcessAccount& a = account.processes[0];
  ASSERT_TRUE(a.steps.found());
  EXPECT_NEAR(static_cast<double>(a.by_category[static_cast<int>(TimeCategory::kRecording)]), Us(50), Us(1));
  EXPECT_NEAR(static_cast<double>(a.by_category[static_cast<int>(TimeCategory::kHostWork)]), Us(250), Us(2));
}

// The recorder times its reading of a launch's arguments inside the call ("own_in", 2 us of the
// 5 us launch): that part of the launch on the path is the recorder's too, and a saved trace
// keeps it.
TEST(Account, TheRecordersOwnWorkInsideALaunchIsItsOwnCategory) {
  Trace trace = TraceFromRecording(ParseRecording(LoopWithRecorderWork(2000), "own_in.jsonl"));
  ProgramAccount account = AccountOf(trace);
  ExpectTiled(account, "own_in");
  const ProcessAccount& a = account.processes.at(0);
  ASSERT_TRUE(a.steps.found());
  EXPECT_NEAR(static_cast<double>(a.by_category[static_cast<int>(TimeCategory::kRecording)]), Us(52), Us(1));
  Trace back = TraceFromJsonText(TraceToJson(trace).dump(), "saved.json");
  EXPECT_NEAR(static_cast<double>(AccountOf(back).processes.at(0).by_category[static_cast<int>(TimeCategory::kRecording)]), Us(52), Us(1));
}

}  // namespace
}  // namespace streamlab
