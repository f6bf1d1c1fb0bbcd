// One test per simulator rule (see engine/sim/sim_executor.cpp and engine/sim/sim_gpu.h).
#include <gtest/gtest.h>

#include "engine/scenario/scenario_builder.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

const OpRecord& K(const Trace& t, const char* name) { return OpNamed(t, name); }

TEST(SimRules, StreamIsFifo) {
  ScenarioBuilder b("fifo");
  Stream s = b.CreateStream("s");
  s.Launch("a", Spin(Us(100)));
  s.Launch("b", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  EXPECT_GE(K(t, "b").start, K(t, "a").end);
  EXPECT_EQ(OverlapFraction(K(t, "a"), K(t, "b")), 0.0);
}

TEST(SimRules, IndependentStreamsOverlapWhenBlocksFit) {
  ScenarioBuilder b("two");
  b.CreateStream("s1").Launch("a", Spin(Us(100)));
  b.CreateStream("s2").Launch("b", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  EXPECT_GT(OverlapFraction(K(t, "a"), K(t, "b")), 0.9);
  // The second starts later by the host's launch cost (GPU-FACTS: ~10 us on an H200).
  EXPECT_GT(K(t, "b").start, K(t, "a").start);
  EXPECT_LT(K(t, "b").start - K(t, "a").start, Us(15));
}

TEST(SimRules, KernelsThatFillTheGpuDoNotOverlap) {
  // 264 blocks of 1024 threads = 2 per SM on 132 SMs: each kernel fills the GPU.
  ScenarioBuilder b("full");
  b.CreateStream("s1").Launch("a", Spin(Us(100), 264, 1024));
  b.CreateStream("s2").Launch("b", Spin(Us(100), 264, 1024));
  Trace t = Simulate(b.Build());
  EXPECT_GE(K(t, "b").start, K(t, "a").end);
  // b was ready long before it started: it queued behind busy SMs.
  EXPECT_GT(K(t, "b").start - K(t, "b").ready, Us(80));
  EXPECT_GT(QueuedTime(t, K(t, "b")), 0);
}

TEST(SimRules, BlocksRunInWavesAndRecordTheirSm) {
  ScenarioBuilder b("waves");
  b.CreateStream("s").Launch("k", Spin(Us(10), 264 * 3, 1024));
  Trace t = Simulate(b.Build());
  const OpRecord& k = K(t, "k");
  ASSERT_EQ(k.blocks.size(), 264u * 3);
  EXPECT_NEAR(static_cast<double>(k.end - k.start), 30000.0, 10.0);
  for (const BlockRecord& blk : k.blocks) {
    EXPECT_GE(blk.sm, 0);
    EXPECT_LT(blk.sm, 132);
  }
}

TEST(SimRules, RecordCapturesOnlyWorkSubmittedBefore) {
  ScenarioBuilder b("capture");
  Stream s1 = b.CreateStream("s1");
  Stream s2 = b.CreateStream("s2");
  Event e = b.CreateEvent("e");
  s1.Launch("first", Spin(Us(100)));
  s1.Record(e);
  s1.Launch("second", Spin(Us(500)));  // after the record: not captured
  s2.Wait(e);
  s2.Launch("consumer", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  EXPECT_GE(K(t, "consumer").start, K(t, "first").end);
  EXPECT_LT(K(t, "consumer").start, K(t, "second").end);
}

TEST(SimRules, WaitOnEventNeverRecordedWaitsForNothing) {
  ScenarioBuilder b("empty-wait");
  Stream s1 = b.CreateStream("s1");
  Stream s2 = b.CreateStream("s2");
  Event e = b.CreateEvent("e");
  s1.Record(e);  // s1 has no work yet
  s1.Launch("producer", Spin(Us(300)));
  s2.Wait(e);
  s2.Launch("consumer", Spin(Us(300)));
  Trace t = Simulate(b.Build());
  EXPECT_GT(OverlapFraction(K(t, "producer"), K(t, "consumer")), 0.9);
}

TEST(SimRules, WaitStreamCapturesSubmittedWorkOnly) {
  ScenarioBuilder b("wait-stream");
  Stream s1 = b.CreateStream("s1");
  Stream s2 = b.CreateStream("s2");
  s1.Launch("before", Spin(Us(200)));
  s2.WaitStream(s1);
  s1.Launch("after", Spin(Us(400)));
  s2.Launch("consumer", Spin(Us(100)));
  Trace t = Simulate(b.Build());
  EXPECT_GE(K(t, "consumer").start, K(t, "before").end);
  EXPECT_LT(K(t, "consumer").start, K(t, "after").end);
}

TEST(SimRules, WaitStreamBeforeAnyWorkCapturesNothing) {
  ScenarioBuilder b("wait-stream-early");
  Stream s1 = b.CreateStream("s1");
  Stream s2 = b.CreateStream("s2");
  s2.WaitStream(s1);
  s1.Launch("producer", Spin(Us(300)));
  s2.Launch("consumer", Spin(Us(300)));
  Trace t = Simulate(b.Build());
  EXPECT_GT(OverlapFraction(K(t, "producer"), K(t, "consumer")), 0.9);
}

Trace ThreeOnDefault(bool non_blocking, bool per_thread) {
  ScenarioBuilder b("legacy");
  Stream s1 = b.CreateStream("s1", {.non_blocking = non_blocking});
  Stream mid = per_thread ? b.PerThreadDefaultStream() : b.LegacyDefaultStream();
  Stream s2 = b.CreateStream("s2", {.non_blocking = non_blocking});
  s1.Launch("a", Spin(Us(500)));
  mid.Launch("m", Spin(Us(500)));
  s2.Launch("b", Spin(Us(500)));
  return Simulate(b.Build());
}

TEST(SimRules, LegacyDefaultStreamIsABarrierForBlockingStreams) {
  Trace t = ThreeOnDefault(false, false);
  EXPECT_GE(K(t, "m").start, K(t, "a").end);
  EXPECT_GE(K(t, "b").start, K(t, "m").end);
  // GPU-FACTS: the barrier costs a few us per hop (1007, 2013 us for 1 ms kernels).
  EXPECT_LT(K(t, "m").start - K(t, "a").end, Us(10));
}

TEST(SimRules, NonBlockingStreamsIgnoreTheLegacyStream) {
  Trace t = ThreeOnDefault(true, false);
  EXPECT_GT(OverlapFraction(K(t, "a"), K(t, "m")), 0.9);
  EXPECT_GT(OverlapFraction(K(t, "m"), K(t, "b")), 0.9);
}

TEST(SimRules, PerThreadDefaultStreamDoesNotSyncWithOthers) {
  Trace t = ThreeOnDefault(false, true);
  EXPECT_GT(OverlapFraction(K(t, "a"), K(t, "m")), 0.9);
  EXPECT_GT(OverlapFraction(K(t, "m"), K(t, "b")), 0.9);
}

TEST(SimRules, SyncDeviceBlocksHostUntilAllWorkIsDone) {
  ScenarioBuilder b("sync");
  b.CreateStream("s1").Launch("a", Spin(Us(300)));
  b.CreateStream("s2").Launch("b", Spin(Us(600)));
  int sync = b.host().SyncDevice();
  Trace t = Simulate(b.Build());
  EXPECT_GE(t.ops[sync].ret, K(t, "b").end);
}

TEST(SimRules, SyncStreamWaitsOnlyForThatStream) {
  ScenarioBuilder b("sync-stream");
  Stream s1 = b.CreateStream("s1");
  s1.Launch("a", Spin(Us(300)));
  b.CreateStream("s2").Launch("b", Spin(Us(900)));
  int sync = s1.Synchronize();
  Trace t = Simulate(b.Build());
  EXPECT_GE(t.ops[sync].ret, K(t, "a").end);
  EXPECT_LT(t.ops[sync].ret, K(t, "b").end);
}

TEST(SimRules, SyncEventWaitsOnlyUntilItsEvent) {
  ScenarioBuilder b("sync-event");
  Stream s1 = b.CreateStream("s1");
  Event e = b.CreateEvent("e");
  s1.Launch("a", Spin(Us(300)));
  s1.Record(e);
  s1.Launch("later", Spin(Us(900)));
  int sync = b.host().SyncEvent(e);
  Trace t = Simulate(b.Build());
  EXPECT_GE(t.ops[sync].ret, K(t, "a").end);
  EXPECT_LT(t.ops[sync].ret, K(t, "later").end);
}

TEST(SimRules, QueryReportsWithoutBlocking) {
  ScenarioBuilder b("query");
  Stream s1 = b.CreateStream("s1");
  Event e = b.CreateEvent("e");
  s1.Launch("a", Spin(Us(300)));
  s1.Record(e);
  int early = b.host().Query(e);
  b.host().Work("think", Us(500));
  int late = b.host().Query(e);
  Trace t = Simulate(b.Build());
  EXPECT_EQ(t.ops[early].note, "not ready");
  EXPECT_EQ(t.ops[late].note, "ready");
  EXPECT_LT(HostCallTime(t.ops[early]), Us(2));
}

TEST(SimRules, FreeSynchronisesTheDevice) {
  ScenarioBuilder b("free");
  Buffer d = b.DeviceBuffer("d", 1 << 20);
  b.CreateStream("s1").Launch("a", Spin(Us(1000)));
  int free_op = b.host().Free(d);
  b.CreateStream("s2").Launch("b", Spin(Us(1000)));
  Trace t = Simulate(b.Build());
  EXPECT_GE(t.ops[free_op].ret, K(t, "a").end);
  EXPECT_GE(K(t, "b").start, K(t, "a").end);
}

TEST(SimRules, MallocCostsHostTimeButOrdersNothing) {
  ScenarioBuilder b("malloc");
  Buffer d = b.DeviceBuffer("d", 64 << 20);
  b.CreateStream("s1").Launch("a", Spin(Us(1000)));
  int malloc_op = b.host().Malloc(d);
  b.CreateStream("s2").Launch("b", Spin(Us(1000)));
  Trace t = Simulate(b.Build());
  EXPECT_NEAR(static_cast<double>(HostCallTime(t.ops[malloc_op])), 161e3, 20e3);
  EXPECT_GT(OverlapFraction(K(t, "a"), K(t, "b")), 0.8);
}

TEST(SimRules, MemsetOnLegacyStreamReturnsButOrdersBlockingStreams) {
  ScenarioBuilder b("memset");
  Buffer d = b.DeviceBuffer("d", 1 << 20);
  b.CreateStream("s1").Launch("a", Spin(Us(1000)));
  int memset_op = b.host().Memset("m", d, 1 << 20);
  b.CreateStream("s2").Launch("b", Spin(Us(1000)));
  Trace t = Simulate(b.Build());
  EXPECT_LT(HostCallTime(t.ops[memset_op]), Us(20));
  EXPECT_GE(K(t, "b").start, K(t, "a").end);
}

TEST(SimRules, PageableCopyBlocksHostPinnedDoesNot) {
  for (bool pageable : {true, false}) {
    ScenarioBuilder b("copy");
    Buffer h = pageable ? b.PageableBuffer("h", 64 << 20) : b.PinnedBuffer("h", 64 << 20);
    Buffer d = b.DeviceBuffer("d", 64 << 20);
    b.CreateStream("s1").Launch("a", Spin(Us(1000)));
    Stream copy = b.CreateStream("copy", {.non_blocking = true});
    int c = copy.Copy("h2d", d, h, 64 << 20);
    b.CreateStream("s2").Launch("b", Spin(Us(1000)));
    Trace t = Simulate(b.Build());
    if (pageable) {
      EXPECT_GT(HostCallTime(t.ops[c]), Ms(9));  // GPU-FACTS: 9.7 ms
      EXPECT_GE(K(t, "b").start, t.ops[c].ret);
    } else {
      EXPECT_LT(HostCallTime(t.ops[c]), Us(30));  // GPU-FACTS: 20 us
      EXPECT_GT(OverlapFraction(K(t, "a"), K(t, "b")), 0.9);
      EXPECT_GT(OverlapFraction(K(t, "a"), t.ops[c]), 0.9);
    }
  }
}

TEST(SimRules, CopyEnginesPerDirectionRunConcurrently) {
  ScenarioBuilder b("engines");
  Buffer h1 = b.PinnedBuffer("h1", 32 << 20), h2 = b.PinnedBuffer("h2", 32 << 20);
  Buffer h3 = b.PinnedBuffer("h3", 32 << 20);
  Buffer d1 = b.DeviceBuffer("d1", 32 << 20), d2 = b.DeviceBuffer("d2", 32 << 20);
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2"), s3 = b.CreateStream("s3");
  int up1 = s1.Copy("up1", d1, h1, 32 << 20);
  int up2 = s2.Copy("up2", d2, h2, 32 << 20);    // same engine: after up1
  int down = s3.Copy("down", h3, d1, 32 << 20);  // other engine: alongside up1
  Trace t = Simulate(b.Build());
  EXPECT_GE(t.ops[up2].start, t.ops[up1].end);
  EXPECT_GT(OverlapFraction(t.ops[up1], t.ops[down]), 0.9);
  // Pinned bandwidth from the profile: 32 MiB at 54.8 GB/s ~ 612 us.
  EXPECT_NEAR(static_cast<double>(t.ops[up1].end - t.ops[up1].start), 614e3, 10e3);
}

Trace Priority(int late_priority, bool resident) {
  ScenarioBuilder b("priority");
  Stream low = b.CreateStream("low");
  Stream late = b.CreateStream("late", {.priority = late_priority});
  if (resident) low.Launch("flood", Spin(Us(200), 264 * 2, 1024));
  else low.Launch("flood", Spin(Us(50), 264 * 20, 1024));
  b.host().Work("wait", resident ? Us(250) : Us(300));
  late.Launch("late", Spin(Us(50), 264, 1024, 1));
  return Simulate(b.Build());
}

TEST(SimRules, HighPriorityTakesTheNextFreeBlocksOfAPendingFlood) {
  Trace high = Priority(-5, false);
  Trace same = Priority(0, false);
  // GPU-FACTS: high starts at ~352 us (next wave boundary), same priority after the flood.
  EXPECT_LT(K(high, "late").start, Us(420));
  EXPECT_GE(K(same, "late").start, K(same, "flood").end - Us(60));
  EXPECT_GT(K(high, "flood").end, K(same, "flood").end + Us(40));  // flood stretched
}

TEST(SimRules, PriorityNeverPreemptsResidentBlocks) {
  Trace high = Priority(-5, true);
  Trace same = Priority(0, true);
  EXPECT_EQ(K(high, "late").start, K(same, "late").start);
  EXPECT_GE(K(high, "late").start, K(high, "flood").end);
}

Trace HardwareQueues(int connections) {
  ScenarioBuilder b("queues");
  b.settings().max_connections = connections;
  for (int i = 0; i < 32; ++i) {
    Stream s = b.CreateStream("s" + std::to_string(i));
    s.Launch("A" + std::to_string(i), Spin(Ms(1), 1, 128, 0));
    s.Launch("B" + std::to_string(i), Spin(Ms(1), 1, 128, 1));
  }
  return Simulate(b.Build());
}

TEST(SimRules, StreamsShareHardwareQueuesFifo) {
  TimeNs one = GpuMakespan(HardwareQueues(1));
  TimeNs eight = GpuMakespan(HardwareQueues(8));
  TimeNs enough = GpuMakespan(HardwareQueues(32));
  // Ideal: A then B, plus the ~0.5 ms the host needs to launch 64 kernels.
  EXPECT_LT(enough, Ms(2.7));
  EXPECT_NEAR(static_cast<double>(one), 33e6, 0.5e6);    // (n + 1) x kernel time
  EXPECT_GT(eight, enough + Ms(1));                      // false dependencies
  EXPECT_LT(eight, one);
}

TEST(SimRules, LazyLoadingSerialisesFirstLaunchWithRunningWork) {
  auto run = [](bool lazy) {
    ScenarioBuilder b("lazy");
    b.settings().lazy_loading = lazy;
    b.settings().warmup = false;
    for (int i = 0; i < 8; ++i) {
      Stream s = b.CreateStream("s" + std::to_string(i));
      s.Launch("A" + std::to_string(i), Spin(Ms(1), 1, 128, 2));
      s.Launch("B" + std::to_string(i), Spin(Ms(1), 1, 128, 3));
    }
    return GpuMakespan(Simulate(b.Build()));
  };
  EXPECT_NEAR(static_cast<double>(run(false)), 2e6, 0.2e6);  // GPU-FACTS: 20 vs 30 (x10); H200 here: 2.08 ms
  EXPECT_NEAR(static_cast<double>(run(true)), 3e6, 0.2e6);
}

TEST(SimRules, LaunchBlockingSerialisesEverything) {
  ScenarioBuilder b("blocking");
  b.settings().launch_blocking = true;
  b.CreateStream("s1").Launch("a", Spin(Us(300)));
  b.CreateStream("s2").Launch("b", Spin(Us(300)));
  Trace t = Simulate(b.Build());
  EXPECT_GE(K(t, "b").start, K(t, "a").end);
}

TEST(SimRules, CrossDeviceWaitIsHonoured) {
  ScenarioBuilder b("two-gpus", 2);
  Stream g0 = b.CreateStream("g0", {.device = 0});
  Stream g1 = b.CreateStream("g1", {.device = 1});
  Event e = b.CreateEvent("e", 0);
  g0.Launch("producer", Spin(Us(300)));
  g0.Record(e);
  g1.Wait(e);
  g1.Launch("consumer", Spin(Us(300)));
  b.CreateStream("g1b", {.device = 1}).Launch("free", Spin(Us(300)));
  Trace t = Simulate(b.Build());
  EXPECT_GE(K(t, "consumer").start, K(t, "producer").end);
  EXPECT_GT(OverlapFraction(K(t, "producer"), K(t, "free")), 0.9);  // devices run in parallel
}

TEST(SimRules, RunsAreDeterministic) {
  Trace a = HardwareQueues(8), b = HardwareQueues(8);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].start, b.ops[i].start);
    EXPECT_EQ(a.ops[i].end, b.ops[i].end);
  }
}

TEST(SimRules, ProfileChangesTheNumbersNotTheRules) {
  DeviceProfile small;
  small.sm_count = 4;  // a 4-SM GPU: two 4-block 1024-thread kernels fill it twice over
  ScenarioBuilder b("small");
  b.CreateStream("s1").Launch("a", Spin(Us(100), 8, 1024));
  b.CreateStream("s2").Launch("b", Spin(Us(100), 8, 1024));
  Trace t = Simulate(b.Build(), small);
  EXPECT_GE(K(t, "b").start, K(t, "a").end);
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

TEST(TraceInference, QueuedCopiesStartWhenThePreviousCopyInTheirDirectionEnds) {
  // Event-timed copies on two streams: both "ready" at 0, the engine ran them one by one.
  ScenarioBuilder b("copies");
  Buffer h1 = b.PinnedBuffer("h1", 1 << 20), h2 = b.PinnedBuffer("h2", 1 << 20), h3 = b.PinnedBuffer("h3", 1 << 20);
  Buffer d1 = b.DeviceBuffer("d1", 1 << 20), d2 = b.DeviceBuffer("d2", 1 << 20);
  int up1 = b.CreateStream("s1").Copy("up1", d1, h1, 1 << 20);
  int up2 = b.CreateStream("s2").Copy("up2", d2, h2, 1 << 20);
  int down = b.CreateStream("s3").Copy("down", h3, d1, 1 << 20);
  Trace t;
  t.scenario = b.Build();
  t.ops.resize(3);
  for (int i : {up1, up2, down}) {
    t.ops[i].gpu = true;
    t.ops[i].ready = t.ops[i].start = 0;
  }
  t.ops[up1].end = Us(20);
  t.ops[up2].end = Us(40);
  t.ops[down].end = Us(20);
  SerialiseCopyStarts(t);
  EXPECT_EQ(t.ops[up1].start, 0);
  EXPECT_EQ(t.ops[up2].start, Us(20));  // after up1, same direction
  EXPECT_EQ(t.ops[down].start, 0);      // other direction: its own engine
}

}  // namespace
}  // namespace streamlab
