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

TEST(Recording, KernelNamesAndOccupancy) {
  std::string full;
  EXPECT_EQ(ShortKernelName("_ZN2at4cuda12_GLOBAL__N_111spin_kernelEl", &full), "at::cuda::spin_kernel");
  EXPECT_NE(full.find("anonymous namespace"), std::string::npos);
  EXPECT_EQ(ShortKernelName("_Z4Spinx"), "Spin");
  EXPECT_EQ(ShortKernelName("not_mangled"), "not_mangled");
  RecordedDevice h100{0, "H100", 132, 64, 32, 65536, 233472};
  EXPECT_EQ(EstimateBlocksPerSm(h100, 128, 16, 0), 16);    // warps: 64 / 4
  EXPECT_EQ(EstimateBlocksPerSm(h100, 256, 128, 0), 2);    // registers: 65536 / (128 * 256)
  EXPECT_EQ(EstimateBlocksPerSm(h100, 32, 16, 0), 32);     // the block limit
  EXPECT_EQ(EstimateBlocksPerSm(RecordedDevice{}, 128, 16, 0), 0);  // unknown device
}

}  // namespace
}  // namespace streamlab
