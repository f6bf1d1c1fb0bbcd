// Recorded programs (streamlab-cli record) captured on an H100 (tests/fixtures/recorded/):
// each loads as a trace, and the finding it was written to show holds on it. Plus the raw
// log's parser (located errors, a cut-off last line) and the kernel-name and occupancy
// helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/analysis/analyzer.h"
#include "engine/trace/recording.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

Trace Fixture(const std::string& name) {
  return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name));
}

using testing::FindingsOfKind;
using testing::GpuOpsNamed;

int Count(const Analysis& a, FindingKind kind) { return static_cast<int>(FindingsOfKind(a, kind).size()); }

const Finding* DelayOf(const Analysis& a, int op) {
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kStartDelay && f.op == op) return &f;
  return nullptr;
}

TEST(Recording, EveryFixtureLoadsAsARecordedTrace) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/recorded"))) {
    if (e.is_directory()) continue;  // several processes' logs, from H200s: test_recording_merge.cpp
    Trace t = LoadTraceFile(e.path().string());
    EXPECT_EQ(t.backend, "record") << e.path();
    EXPECT_TRUE(t.scenario.recorded) << e.path();
    EXPECT_EQ(t.device_name, "NVIDIA H100 80GB HBM3") << e.path();
    EXPECT_NO_THROW(ValidateScenario(t.scenario)) << e.path();
    EXPECT_NO_THROW(Analyze(t)) << e.path();
    ++n;
  }
  EXPECT_GE(n, 12);
}

TEST(Recording, WaitStreamBeforeWorkCapturedNothingAndKernelsRanInSubmissionOrder) {
  Trace t = Fixture("wait_stream_before_work.json");
  Analysis a = Analyze(t);
  EXPECT_EQ(Count(a, FindingKind::kWaitCapturedNothing), 2);  // b.wait_stream(a), c.wait_stream(b)
  std::vector<int> spins = GpuOpsNamed(t, "at::cuda::spin_kernel");
  ASSERT_GE(spins.size(), 3u);
  int c = spins[spins.size() - 3], b = spins[spins.size() - 2], x = spins.back();  // submitted c, b, a
  EXPECT_LT(t.ops[c].start, t.ops[b].start);
  EXPECT_LT(t.ops[b].start, t.ops[x].start);
  EXPECT_GT(OverlapFraction(t.ops[c], t.ops[x]), 0.9);  // nothing ordered them
}

TEST(Recording, EventChainEachStageWaitsForTheEventBeforeIt) {
  Trace t = Fixture("event_chain.json");
  Analysis a = Analyze(t);
  std::vector<int> spins = GpuOpsNamed(t, "at::cuda::spin_kernel");
  ASSERT_GE(spins.size(), 3u);
  int s1 = spins[spins.size() - 3], s2 = spins[spins.size() - 2], s3 = spins.back();
  EXPECT_GE(t.ops[s2].start, t.ops[s1].end);
  EXPECT_GE(t.ops[s3].start, t.ops[s2].end);
  for (auto [op, before] : {std::pair{s2, s1}, std::pair{s3, s2}}) {
    const Finding* f = DelayOf(a, op);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->cause, Cause::kEventWait);
    EXPECT_EQ(f->because, std::vector<int>{before});
  }
}

TEST(Recording, PageableNonBlockingCopyBlockedTheHost) {
  Trace t = Fixture("pageable_vs_pinned.json");
  Analysis a = Analyze(t);
  EXPECT_EQ(Count(a, FindingKind::kPageableAsyncCopy), 1);  // the pinned copy is not flagged
}

TEST(Recording, LegacyStreamBetweenBlockingStreamsSerialises) {
  for (const char* name : {"legacy_stall.json", "legacy_stall.raw.jsonl"}) {
    Trace t = Fixture(name);
    Analysis a = Analyze(t);
    int legacy = 0;
    for (const Finding& f : a.findings)
      legacy += f.kind == FindingKind::kStartDelay && f.cause == Cause::kLegacyBarrier;
    EXPECT_EQ(legacy, 2) << name;  // the legacy kernel after s1, s2's kernel after it
    std::vector<int> spins = GpuOpsNamed(t, "Spin");
    ASSERT_EQ(spins.size(), 6u) << name;
    EXPECT_GE(t.ops[spins[2]].start, t.ops[spins[1]].end) << name;
    EXPECT_GE(t.ops[spins[3]].start, t.ops[spins[2]].end) << name;
  }
}

TEST(Recording, ACrashedProgramStillLeavesItsWork) {
  Trace t = Fixture("crash_midway.json");
  EXPECT_NE(t.notes.front().find("killed by signal"), std::string::npos);
  EXPECT_GE(GpuOpsNamed(t, "at::cuda::spin_kernel").size(), 3u);  // warm-up + the two before abort()
}

TEST(Recording, StreamsKeepTheirKinds) {
  Trace t = Fixture("legacy_stall.json");
  int legacy = 0, blocking = 0;
  for (const StreamDesc& s : t.scenario.streams) {
    legacy += s.kind == StreamKind::kLegacyDefault;
    blocking += s.kind == StreamKind::kCreated && !s.non_blocking;
  }
  EXPECT_EQ(legacy, 1);
  EXPECT_EQ(blocking, 2);  // cudaStreamCreate gives blocking streams
  Trace torch = Fixture("event_chain.json");
  for (const StreamDesc& s : torch.scenario.streams) {
    if (s.kind == StreamKind::kCreated) {
      EXPECT_TRUE(s.non_blocking) << s.name;  // torch.cuda.Stream()
    }
  }
}

TEST(Recording, ExecutorsRefuseToReRunARecording) {
  Trace t = Fixture("event_chain.json");
  EXPECT_THROW(SimExecutor().Run(t.scenario, RunOptions{}), InputError);
}

TEST(Recording, MalformedLogsNameTheLine) {
  const std::string meta = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":1,\"start\":0}\n";
  try {
    ParseRecording(meta + "{\"t\":\"call\",\"tid\":0}\n{}\n", "x.jsonl");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.jsonl:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseRecording(meta + "not json\n{}\n", "x.jsonl"), InputError);
  EXPECT_THROW(ParseRecording("{\"t\":\"call\"}\n", "x.jsonl"), InputError);  // no meta line
  // A program killed mid-write leaves a cut-off last line: the rest is kept.
  Recording r = ParseRecording(meta + "{\"t\":\"thread\",\"tid\":0,\"os_tid\":5}\n{\"t\":\"ca", "x.jsonl");
  EXPECT_EQ(r.os_thread.at(0), 5);
  // Nothing but metadata: no GPU work, said plainly.
  EXPECT_THROW(TraceFromRecording(ParseRecording(meta, "x.jsonl")), InputError);
}

// A log written with --capture-range cudaProfilerApi: the stream was created before the range
// (its kind still counts), one kernel ran before it and one after (neither was recorded by the
// library, but a log may still hold them: they are left out), and the wait inside the range
// is on an event recorded before it, which is said to be unknown rather than "captured nothing".
TEST(Recording, ACaptureRangeKeepsOnlyItsOwnCalls) {
  auto call = [](const std::string& fn, const std::string& role, int b, int e, int corr, const std::string& more) {
    return "{\"t\":\"call\",\"tid\":0,\"fn\":\"" + fn + "\",\"role\":\"" + role + "\",\"dom\":0,\"b\":" +
           std::to_string(b) + ",\"e\":" + std::to_string(e) + ",\"corr\":" + std::to_string(corr) + more + "}\n";
  };
  auto kernel = [](int corr, int b, int e) {
    return "{\"t\":\"kernel\",\"corr\":" + std::to_string(corr) + ",\"dev\":0,\"sid\":13,\"b\":" + std::to_string(b) +
           ",\"e\":" + std::to_string(e) +
           ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"graph\":0,\"name\":\"_Z1kv\"}\n";
  };
  std::string log = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
  log += call("cudaStreamCreateWithFlags", "stream_create", 1000, 2000, 1, ",\"stream\":77,\"sid\":13,\"flags\":1");
  log += call("cudaLaunchKernel", "launch", 3000, 4000, 2, ",\"stream\":77") + kernel(2, 5000, 6000);
  log += call("cudaProfilerStart", "capture_start", 100000, 100000, 0, "");
  log += call("cudaStreamWaitEvent", "wait_event", 101000, 102000, 3, ",\"stream\":77,\"sid\":13,\"event\":55");
  log += call("cudaLaunchKernel", "launch", 103000, 104000, 4, ",\"stream\":77") + kernel(4, 105000, 115000);
  log += call("cudaProfilerStop", "capture_stop", 120000, 120000, 0, "");
  log += call("cudaLaunchKernel", "launch", 130000, 131000, 5, ",\"stream\":77") + kernel(5, 132000, 133000);
  Trace t = TraceFromRecording(ParseRecording(log, "range.jsonl"));
  ASSERT_EQ(t.scenario.ops.size(), 2u);  // the wait and the kernel inside the range
  EXPECT_EQ(t.scenario.ops[0].kind, OpKind::kWaitEvent);
  EXPECT_NE(t.ops[0].inferred.find("before the capture range"), std::string::npos);
  EXPECT_FALSE(t.ops[0].inferred_zh.empty());
  EXPECT_EQ(t.scenario.ops[1].kind, OpKind::kKernel);
  EXPECT_EQ(t.ops[1].start, 105000 - 101000);  // time starts with the range's first call
  EXPECT_TRUE(t.scenario.streams[t.scenario.ops[1].stream].non_blocking);  // created before the range
  bool noted = false;
  for (const std::string& n : t.notes) noted |= n.find("only between cudaProfilerStart and cudaProfilerStop") != std::string::npos;
  EXPECT_TRUE(noted);
  Analysis a = Analyze(t);
  EXPECT_EQ(Count(a, FindingKind::kWaitCapturedNothing), 0);
}

TEST(Recording, KernelNamesAndOccupancy) {
  std::string full;
  EXPECT_EQ(ShortKernelName("_ZN2at4cuda12_GLOBAL__N_111spin_kernelEl", &full), "at::cuda::spin_kernel");
  EXPECT_NE(full.find("anonymous namespace"), std::string::npos);
  EXPECT_EQ(ShortKernelName("_Z4Spinx"), "Spin");
  EXPECT_EQ(ShortKernelName("not_mangled"), "not_mangled");
  RecordedDevice h100{0, "H100", 132, 64, 32, 65536, 233472, ""};
  EXPECT_EQ(EstimateBlocksPerSm(h100, 128, 16, 0), 16);    // warps: 64 / 4
  EXPECT_EQ(EstimateBlocksPerSm(h100, 256, 128, 0), 2);    // registers: 65536 / (128 * 256)
  EXPECT_EQ(EstimateBlocksPerSm(h100, 32, 16, 0), 32);     // the block limit
  EXPECT_EQ(EstimateBlocksPerSm(RecordedDevice{}, 128, 16, 0), 0);  // unknown device
}

}  // namespace
}  // namespace streamlab
