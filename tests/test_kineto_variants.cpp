// torch.profiler traces as students bring them, not only as torch 2.11 writes them: torch
// 1.x's category names, first calls that take longer than any lab op, and the profiles that
// hold no CUDA timeline at all (CPU-only, GPU side not profiled, AMD, StreamLab's own
// export, an execution trace), each refused with a sentence that says what it is and what
// to do. The traces here are small ones written for the test, shaped like the real ones.
#include <gtest/gtest.h>

#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_json.h"
#include "engine/trace/chrome_trace.h"
#include "engine/ingest/kineto.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

// One launch, its kernel, one host-to-device copy, in the given categories, `shift` us late.
std::string LaunchAndCopy(const std::string& runtime, const std::string& kernel, const std::string& memcpy,
                          const std::string& op, double shift = 0) {
  auto at = [&](double ts) { return std::to_string(static_cast<int64_t>(ts + shift)); };
  return R"j({"traceEvents":[
    {"ph":"X","cat":")j" + op + R"j(","name":"aten::add","pid":10,"tid":10,"ts":)j" + at(100) + R"j(,"dur":30},
    {"ph":"X","cat":")j" + runtime + R"j(","name":"cudaLaunchKernel","pid":10,"tid":10,"ts":)j" + at(110) +
         R"j(,"dur":5,"args":{"correlation":5}},
    {"ph":"X","cat":")j" + kernel + R"j(","name":"add_kernel","pid":0,"tid":"stream 7","ts":)j" + at(125) + R"j(,"dur":8,
     "args":{"device":0,"stream":7,"correlation":5,"grid":[64,1,1],"block":[128,1,1]}},
    {"ph":"X","cat":")j" + runtime + R"j(","name":"cudaMemcpyAsync","pid":10,"tid":10,"ts":)j" + at(135) +
         R"j(,"dur":20,"args":{"correlation":6}},
    {"ph":"X","cat":")j" + memcpy + R"j(","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":"stream 7","ts":)j" +
         at(145) + R"j(,"dur":4,"args":{"device":0,"stream":7,"correlation":6,"bytes":4096}}
  ]})j";
}

std::string ErrorOf(const std::string& text) {
  return testing::InputErrorOf([&] { TraceFromKineto(text, "k.json"); });
}

int Count(const Trace& t, OpKind kind) {
  int n = 0;
  for (const Op& op : t.scenario.ops) n += op.kind == kind;
  return n;
}

TEST(KinetoVariants, Torch1CategoryNamesReadLikeTodays) {
  Trace today = TraceFromKineto(LaunchAndCopy("cuda_runtime", "kernel", "gpu_memcpy", "cpu_op"), "new.json");
  Trace torch1 = TraceFromKineto(LaunchAndCopy("Runtime", "Kernel", "Memcpy", "Operator"), "old.json");
  EXPECT_EQ(torch1.backend, "kineto");
  EXPECT_EQ(Count(torch1, OpKind::kKernel), 1);
  EXPECT_EQ(Count(torch1, OpKind::kMemcpy), 1);
  ASSERT_EQ(torch1.ops.size(), today.ops.size());
  for (size_t i = 0; i < today.ops.size(); ++i) {
    EXPECT_EQ(torch1.scenario.ops[i].kind, today.scenario.ops[i].kind) << i;
    EXPECT_EQ(torch1.ops[i].start, today.ops[i].start) << i;
    EXPECT_EQ(torch1.ops[i].end, today.ops[i].end) << i;
  }
  ASSERT_EQ(torch1.ranges.size(), 1u);  // "Operator" is a PyTorch op, as cpu_op is
  EXPECT_EQ(torch1.ranges[0].name, "aten::add");
}

TEST(KinetoVariants, AFirstCallLongerThanTenSecondsIsKept) {
  // A first CUDA call can take tens of seconds (context creation, module loading); a lab
  // op may not, but a recorded call took what it took.
  const double kFirstCallUs = 25e6;
  std::string text = LaunchAndCopy("cuda_runtime", "kernel", "gpu_memcpy", "cpu_op", kFirstCallUs + 10);
  text.insert(text.find('[') + 1, R"j({"ph":"X","cat":"cuda_runtime","name":"cudaGetDeviceCount","pid":10,"tid":10,)j"
                                  R"j("ts":0,"dur":25000000,"args":{"correlation":4}},)j");
  Trace t = TraceFromKineto(text, "k.json");
  TimeNs longest = 0;
  for (const OpRecord& r : t.ops) longest = std::max(longest, r.ret - r.submit);
  EXPECT_EQ(longest, static_cast<TimeNs>(kFirstCallUs * 1000));
  EXPECT_EQ(Count(t, OpKind::kKernel), 1);
}

TEST(KinetoVariants, TracesWithoutACudaTimelineSayWhatTheyAre) {
  std::string cpu_only =
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":2}]})";
  EXPECT_NE(ErrorOf(cpu_only).find("only CPU work (1 PyTorch ops"), std::string::npos) << ErrorOf(cpu_only);
  EXPECT_NE(ErrorOf(cpu_only).find("ProfilerActivity.CUDA"), std::string::npos);

  std::string calls_only =
      R"({"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,
          "args":{"correlation":3}}]})";
  EXPECT_NE(ErrorOf(calls_only).find("1 CUDA API calls but no kernel, copy or memset records"), std::string::npos)
      << ErrorOf(calls_only);

  std::string range_profiler =
      R"({"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2},
          {"ph":"X","cat":"cuda_profiler_range","name":"k","pid":0,"tid":0,"ts":1,"dur":2}]})";
  EXPECT_NE(ErrorOf(range_profiler).find("CUPTI profiler ranges"), std::string::npos) << ErrorOf(range_profiler);

  std::string amd = R"({"traceEvents":[
      {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":3}},
      {"ph":"X","cat":"kernel","name":"k","pid":2,"tid":0,"ts":4,"dur":2,"args":{"device":0,"stream":0,"correlation":3}}]})";
  EXPECT_NE(ErrorOf(amd).find("from an AMD GPU (1 HIP calls"), std::string::npos) << ErrorOf(amd);

  std::string mtia =
      R"({"traceEvents":[{"ph":"X","cat":"mtia_runtime","name":"launch","pid":1,"tid":1,"ts":1,"dur":2}]})";
  EXPECT_NE(ErrorOf(mtia).find("MTIA accelerator"), std::string::npos) << ErrorOf(mtia);

  EXPECT_NE(ErrorOf(R"({"traceEvents":[]})").find("no torch.profiler CUDA records"), std::string::npos);
}

// Profiled without enable_cuda_sync_events, a cudaStreamWaitEvent does not say which stream
// waited: a kernel that started late "for no reason the trace shows" may have been held by
// it, and the finding says so (however short the call was).
TEST(KinetoVariants, WaitsWithoutTheirStreamMakeNothingHeldItUncertain) {
  auto text_with_wait = [](bool with_wait) {
    std::string text = R"j({"traceEvents":[
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":5,"args":{"correlation":1}},
      {"ph":"X","cat":"kernel","name":"first","pid":0,"tid":7,"ts":110,"dur":10,"args":{"stream":7,"correlation":1}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":130,"dur":5,"args":{"correlation":3}},
      {"ph":"X","cat":"kernel","name":"late","pid":0,"tid":20,"ts":40000,"dur":10,"args":{"stream":20,"correlation":3}})j";
    if (with_wait)
      text += R"j(,{"ph":"X","cat":"cuda_runtime","name":"cudaStreamWaitEvent","pid":1,"tid":1,"ts":120,"dur":1,
                   "args":{"correlation":2}})j";
    return text + "]}";
  };
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  for (bool with_wait : {false, true}) {
    Trace t = TraceFromKineto(text_with_wait(with_wait), "k.json");
    Analysis a = Analyze(t);
    std::string late;
    for (const Finding& f : a.findings)
      if (f.kind == FindingKind::kStartDelay && f.cause == Cause::kUnexplained) late = en.Render(t, f) + zh.Render(t, f);
    ASSERT_FALSE(late.empty()) << with_wait;
    EXPECT_EQ(late.find("Not certain: before it started, the program made 1 cudaStreamWaitEvent") != std::string::npos,
              with_wait) << late;
    EXPECT_EQ(late.find("并不确定") != std::string::npos, with_wait) << late;
  }
}

TEST(KinetoVariants, OurOwnChromeExportIsNamedNotMisread) {
  Trace t = TraceFromKineto(LaunchAndCopy("cuda_runtime", "kernel", "gpu_memcpy", "cpu_op"), "k.json");
  std::string exported = ChromeTraceJson(t).dump();
  EXPECT_TRUE(LooksLikeChromeTrace(exported));  // it is a Chrome trace, so it reaches the reader...
  EXPECT_NE(ErrorOf(exported).find("StreamLab's own Chrome export"), std::string::npos) << ErrorOf(exported);
  EXPECT_FALSE(LooksLikeChromeTrace(TraceToJson(t).dump()));  // ...and a StreamLab trace does not
}

TEST(KinetoVariants, OtherJsonFilesAreNamedWhenOpenedAsScenarios) {
  auto error_of = [](const std::string& text) {
    try {
      ScenarioFromJson(Json::parse(text), "x.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"schema":"1.0.1","pid":7,"nodes":[]})").find("PyTorch execution trace"), std::string::npos);
  EXPECT_NE(error_of(R"({"model":"resnet"})").find("not a StreamLab scenario, trace or recording"), std::string::npos);
  // A scenario without "kind" is still read (older files have none): the error is its own.
  EXPECT_NE(error_of(R"({"schema":7})").find("schema: version 7"), std::string::npos);
}

}  // namespace
}  // namespace streamlab
