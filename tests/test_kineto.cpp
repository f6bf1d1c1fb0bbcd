// torch.profiler (Kineto) traces of the same examples, profiled on an H100
// (tests/fixtures/kineto/): each loads as a trace, the main finding of its recording holds
// on it too, and every link Kineto does not record is marked as inferred, in the op and in
// the finding's sentence. Plus malformed input and telling Kineto from our own export.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/trace/chrome_trace.h"
#include "engine/ingest/kineto.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

Trace Fixture(const std::string& name) { return LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/" + name)); }

std::vector<int> Spins(const Trace& t) { return testing::GpuOpsNamed(t, "at::cuda::spin_kernel"); }

std::vector<const Finding*> Of(const Analysis& a, FindingKind kind) { return testing::FindingsOfKind(a, kind); }

// The record op a wait captured, as the stream it was put on.
std::string RecordStreamOfWait(const Trace& t, int wait) {
  int event = t.scenario.ops[wait].event;
  for (int i = wait - 1; i >= 0; --i)
    if (t.scenario.ops[i].kind == OpKind::kRecord && t.scenario.ops[i].event == event)
      return t.scenario.streams[t.scenario.ops[i].stream].name;
  return "";
}

std::vector<int> Waits(const Trace& t) {
  std::vector<int> out;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].kind == OpKind::kWaitEvent) out.push_back(static_cast<int>(i));
  return out;
}

TEST(Kineto, EveryFixtureLoadsAsAKinetoTrace) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/kineto"))) {
    Trace t = LoadTraceFile(e.path().string());
    EXPECT_EQ(t.backend, "kineto") << e.path();
    EXPECT_EQ(t.device_name, "NVIDIA H100 80GB HBM3") << e.path();
    EXPECT_EQ(t.driver, "CUDA driver API 13.0") << e.path();
    std::string day = t.captured_at.substr(0, 10);
    EXPECT_TRUE(day == "2026-11-22" || day == "2026-11-24" || day == "2026-11-25") << e.path();
    EXPECT_NO_THROW(Analyze(t)) << e.path();
    ++n;
  }
  EXPECT_EQ(n, 17);
}

// one_tensor_two_streams.json holds 7 cuda_runtime events and 2 PyTorch ops (cpu_op): the ops
// are ranges that name the kernels launched in them, not API calls.
TEST(Kineto, PyTorchOpsAreRangesNotApiCalls) {
  Trace t = Fixture("one_tensor_two_streams.json");
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes.front().text.find(": 7 API calls logged, 3 kernels"), std::string::npos) << t.notes.front().text;
  ASSERT_EQ(t.ranges.size(), 2u);
  EXPECT_EQ(t.ranges[0].name, "aten::add_");
  EXPECT_EQ(t.ranges[1].name, "aten::mul");
  std::vector<int> adds = testing::GpuOpsNamed(t, "at::native::vectorized_elementwise_kernel");
  ASSERT_EQ(adds.size(), 2u);
  EXPECT_EQ(t.ops[adds[0]].note, "in aten::add_");
  EXPECT_EQ(t.ops[adds[1]].note, "in aten::mul");
}

TEST(Kineto, EventChainRecordsAreInferredOnTheRightStreamsAndSaySo) {
  Trace t = Fixture("event_chain.json");
  std::vector<int> waits = Waits(t);
  ASSERT_EQ(waits.size(), 2u);
  std::vector<int> spins = Spins(t);
  ASSERT_EQ(spins.size(), 3u);
  // Stage k's record is on the stream stage k ran on.
  EXPECT_EQ(RecordStreamOfWait(t, waits[0]), t.scenario.streams[t.scenario.ops[spins[0]].stream].name);
  EXPECT_EQ(RecordStreamOfWait(t, waits[1]), t.scenario.streams[t.scenario.ops[spins[1]].stream].name);
  Analysis a = Analyze(t);
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  for (int stage : {1, 2}) {
    const Finding* delay = nullptr;
    for (const Finding* f : Of(a, FindingKind::kStartDelay))
      if (f->op == spins[stage]) delay = f;
    ASSERT_NE(delay, nullptr);
    EXPECT_EQ(delay->cause, Cause::kEventWait);
    EXPECT_EQ(delay->because, std::vector<int>{spins[stage - 1]});
    EXPECT_NE(en.Render(t, *delay).find("Inferred, not recorded"), std::string::npos) << en.Render(t, *delay);
    EXPECT_NE(zh.Render(t, *delay).find("推断"), std::string::npos);
  }
}

TEST(Kineto, WaitStreamBeforeWorkHeldNothingBackAndSaysWhatIsUnknown) {
  Trace t = Fixture("wait_stream_before_work.json");
  Analysis a = Analyze(t);
  std::vector<const Finding*> empty = Of(a, FindingKind::kWaitCapturedNothing);
  ASSERT_EQ(empty.size(), 2u);  // b.wait_stream(a), c.wait_stream(b)
  for (const Finding* f : empty) {
    EXPECT_EQ(f->severity, Severity::kNote);  // a mistake or not: the trace cannot say
    std::string text = FindingTexts::Load("en").Render(t, *f);
    EXPECT_NE(text.find("cannot be told"), std::string::npos) << text;
  }
  std::vector<int> spins = Spins(t);
  ASSERT_EQ(spins.size(), 3u);
  EXPECT_LT(t.ops[spins[0]].start, t.ops[spins[1]].start);  // submission order c, b, a
  EXPECT_LT(t.ops[spins[1]].start, t.ops[spins[2]].start);
  EXPECT_GT(OverlapFraction(t.ops[spins[0]], t.ops[spins[2]]), 0.9);  // nothing ordered them
}

TEST(Kineto, FanOutFanInJoinsOnTheLastSideStream) {
  Trace t = Fixture("fan_out_fan_in.json");
  std::vector<int> waits = Waits(t);
  ASSERT_GE(waits.size(), 4u);
  for (size_t i = 0; i + 1 < waits.size(); ++i) EXPECT_EQ(RecordStreamOfWait(t, waits[i]), "legacy default");
  EXPECT_NE(RecordStreamOfWait(t, waits.back()), "legacy default");
  EXPECT_NE(RecordStreamOfWait(t, waits.back()), "unknown stream (not in the trace)");
  for (int w : waits) EXPECT_FALSE(t.ops[w].inferred.empty());
}

TEST(Kineto, SameMainFindingsAsTheRecording) {
  Analysis pageable = Analyze(Fixture("pageable_vs_pinned.json"));
  EXPECT_EQ(Of(pageable, FindingKind::kPageableAsyncCopy).size(), 1u);  // the pinned copy is not flagged
  Trace scopes = Fixture("sync_scopes.json");
  int stream_syncs = 0;
  for (const Op& op : scopes.scenario.ops) stream_syncs += op.kind == OpKind::kSyncStream;
  EXPECT_EQ(stream_syncs, 1);
  EXPECT_EQ(Of(Analyze(scopes), FindingKind::kScopeTooWide).size(), 1u);
  Trace side = Fixture("default_plus_side_stream.json");
  bool legacy = false;
  for (const StreamDesc& s : side.scenario.streams) {
    legacy = legacy || s.kind == StreamKind::kLegacyDefault;
    if (s.kind == StreamKind::kCreated) {
      EXPECT_TRUE(s.non_blocking) << s.name;
    }
  }
  EXPECT_TRUE(legacy);
}

TEST(Kineto, MalformedFilesAreLocatedErrors) {
  auto error_of = [](const std::string& text) {
    try {
      TraceFromKineto(text, "k.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{\"schemaVersion\":1}").find("no \"traceEvents\""), std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":\"x\"}]}").find("traceEvents[0].ts"),
            std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":1,\"args\":{\"grid\":[0,1,1]}}]}")
                .find("traceEvents[0].args.grid"),
            std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\":[]}").find("no torch.profiler CUDA records"), std::string::npos);
  EXPECT_NE(error_of("{\"traceEvents\":[").find("k.json:1"), std::string::npos);
}

TEST(Kineto, TellsKinetoFromOurOwnChromeExport) {
  Trace t = Fixture("event_chain.json");
  EXPECT_FALSE(LooksLikeChromeTrace(TraceToJson(t).dump()));
  EXPECT_TRUE(LooksLikeChromeTrace(ReadTextFile(testing::SourcePath("tests/fixtures/kineto/event_chain.json"))));
  // Told by the top-level keys, read only as far as the first decisive one: a word in a name
  // is not a key, and what follows that key (here cut off) is the reader's to judge.
  Json saved = TraceToJson(t);
  saved["lab"] = "\"traceEvents\"";
  EXPECT_FALSE(LooksLikeChromeTrace(saved.dump()));
  EXPECT_TRUE(LooksLikeChromeTrace(R"({"schemaVersion": 1, "deviceProperties": [{"id": 0}], "traceEvents": [{"ph")"));
  EXPECT_FALSE(LooksLikeChromeTrace(R"({"kind": "streamlab.trace", "traceEvents": []})"));
  EXPECT_FALSE(LooksLikeChromeTrace(R"({"schemaVersion": x, "traceEvents": []})"));  // malformed first
  EXPECT_FALSE(LooksLikeChromeTrace(R"({"args": {"traceEvents": []}})"));
  EXPECT_FALSE(LooksLikeChromeTrace(R"([{"traceEvents": []}])"));
  // Round trip: an imported trace saved as StreamLab JSON keeps what was inferred.
  Trace again = TraceFromJson(TraceToJson(t), "t.json");
  for (size_t i = 0; i < t.ops.size(); ++i) EXPECT_EQ(again.ops[i].inferred, t.ops[i].inferred);
}

}  // namespace
}  // namespace streamlab
