// Explaining a real program like an expert (issue 51): the recording carries the process's own
// settings, module loads and context creation; a library's own streams draw no warnings; no
// finding says "0 ns"; a C++ program gets no PyTorch advice; steps are found without ranges and
// the verdict names what bounds the step. Each test fails on the code before that rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_steps.h"
#include "engine/verdict/verdict.h"
#include "engine/report/verdict_text.h"
#include "tests/verdict_util.h"
#include "engine/ingest/open_trace.h"
#include "tests/recorder_log.h"

namespace streamlab {
namespace {

using testing::Log;

std::string AllText(const Trace& t, const std::string& lang = "en") {
  FindingTexts texts = FindingTexts::Load(lang);
  Analysis a = Analyze(t);
  std::string out;
  for (const Finding& f : a.findings) out += texts.Render(t, f) + "\n";
  for (const TraceNote& n : t.notes) out += texts.RenderNote(n) + "\n";
  return out;
}

bool HasNote(const Trace& t, const std::string& key) {
  return std::any_of(t.notes.begin(), t.notes.end(), [&](const TraceNote& n) { return n.key == key; });
}

TEST(ExpertAnswer, RecordingCarriesTheProgramsOwnSettings) {
  Log log;
  log.Line(R"({"t":"env","CUDA_DEVICE_MAX_CONNECTIONS":"32","CUDA_MODULE_LOADING":"EAGER"})").Kernel(77, "[4096]");
  Trace t = log.Convert();
  EXPECT_EQ(t.scenario.settings.max_connections, 32);
  EXPECT_FALSE(t.scenario.settings.lazy_loading);
  EXPECT_TRUE(t.scenario.settings.known);
  EXPECT_TRUE(HasNote(t, "settings_own"));
  EXPECT_NE(AllText(t).find("CUDA_DEVICE_MAX_CONNECTIONS=32"), std::string::npos);
}

TEST(ExpertAnswer, ARecordingWithoutSettingsSaysTheyAreAssumed) {
  Trace t = Log().Kernel(77, "[4096]").Convert();
  EXPECT_FALSE(t.scenario.settings.known);
  EXPECT_TRUE(HasNote(t, "settings_unknown"));
}

TEST(ExpertAnswer, ALaunchThatLoadedItsModuleIsNamedAsLazyLoading) {
  Log log;
  log.Kernel(77, "[4096]", 2000000).Pause(100000);
  log.SlowCall("cudaLaunchKernel", 3000000).InsideLastCall("module_load");
  Trace t = log.Convert();
  ASSERT_TRUE(std::any_of(t.ops.begin(), t.ops.end(), [](const OpRecord& r) { return r.loaded_module; }));
}

TEST(ExpertAnswer, TheFirstSlowCallIsContextCreation) {
  Log log;
  log.SlowCall("cudaDeviceGetStreamPriorityRange", 120000000).InsideLastCall("context_created").Kernel(77, "[4096]");
  Trace t = log.Convert();
  bool inferred = true;
  int call = ContextCreationCall(t, &inferred);
  ASSERT_GE(call, 0);
  EXPECT_FALSE(inferred);
  std::string text = AllText(t);
  EXPECT_NE(text.find("CUDA created its context in this call"), std::string::npos) << text;
  // Without the callback's record it is said as inferred.
  Trace old = Log().SlowCall("cudaDeviceGetStreamPriorityRange", 120000000).Kernel(77, "[4096]").Convert();
  int slow = ContextCreationCall(old, &inferred);
  ASSERT_GE(slow, 0);
  EXPECT_EQ(old.scenario.ops[slow].name, "cudaDeviceGetStreamPriorityRange");
  EXPECT_TRUE(inferred);
  EXPECT_NE(AllText(old).find("most likely CUDA creating its context"), std::string::npos);
}

TEST(ExpertAnswer, StreamPrioritiesAreSaid) {
  Log log;
  log.Line(R"({"t":"call","tid":0,"fn":"cudaStreamCreateWithPriority","role":"stream_create","dom":0,"b":10,"e":20,"corr":900,"stream":55,"sid":55,"flags":1,"prio":-5,"out":55})");
  log.Kernel(55, "[4096]");
  Trace t = log.Convert();
  ASSERT_TRUE(HasNote(t, "priorities"));
  EXPECT_NE(AllText(t).find("(-5)"), std::string::npos);
  EXPECT_NE(AllText(t, "zh").find("(-5)"), std::string::npos);
  EXPECT_FALSE(HasNote(Log().Kernel(77, "[4096]").Convert(), "priorities"));
}

TEST(ExpertAnswer, NoFindingOfAProgramSaysZeroNanoseconds) {
  Trace t = Log().Kernel(77, "[4096]").Convert();
  std::vector<Finding> findings(1);
  findings[0].kind = FindingKind::kPageableAsyncCopy;
  findings[0].op = 0;
  findings[0].amount = 0;
  KeepFindingsTrue(t, findings);
  EXPECT_TRUE(findings.empty());
}

TEST(ExpertAnswer, WarningsAboutALibrarysOwnStreamAreNotes) {
  Trace t = Log().Memset(77, 4096).Kernel(88, "[4096]").Convert();
  Analysis before = Analyze(t);
  ASSERT_TRUE(std::any_of(before.findings.begin(), before.findings.end(),
                          [](const Finding& f) { return f.severity == Severity::kWarning; }));
  for (StreamDesc& s : t.scenario.streams)
    if (s.name.find("13") != std::string::npos) s.library = true;
  Analysis after = Analyze(t);
  EXPECT_FALSE(std::any_of(after.findings.begin(), after.findings.end(),
                           [](const Finding& f) { return f.severity == Severity::kWarning; }));
}

TEST(ExpertAnswer, ACxxProgramGetsNoPyTorchAdvice) {
  Log log;
  log.Line(R"({"t":"env"})").Memset(77, 4096).Kernel(88, "[4096]");
  std::string text = AllText(log.Convert());
  EXPECT_EQ(text.find("PyTorch"), std::string::npos) << text;
  EXPECT_EQ(text.find("record_stream"), std::string::npos) << text;
}

TEST(ExpertAnswer, TheLanguageIsDecidedForEachTraceShownInOnePlace) {
  // The GUI shows each new trace in the same object: the advice must follow the trace, not its address.
  FindingTexts texts = FindingTexts::Load("en");
  Log log;
  log.Line(R"({"t":"env"})").Memset(77, 4096).Kernel(88, "[4096]");
  Trace t = log.Convert();
  auto race_text = [&] {
    Analysis a = Analyze(t);
    for (const Finding& f : a.findings)
      if (f.kind == FindingKind::kAddressRace) return texts.Render(t, f);
    return std::string();
  };
  EXPECT_EQ(race_text().find("record_stream"), std::string::npos);
  t.backend = "kineto";  // now a torch.profiler trace: a Python program
  EXPECT_NE(race_text().find("record_stream"), std::string::npos);
}

TEST(ExpertAnswer, StepsAreFoundFromRepeatingGpuWork) {
  Trace t = LoadTraceFile(std::string(STREAMLAB_SOURCE_DIR) + "/tests/fixtures/recorded/item_every_step.json");
  StepSplit s = FindSteps(t);
  ASSERT_EQ(s.source, StepSource::kRepeating);
  // item_every_step.py runs 20 steps of the same work, reading the loss each step.
  EXPECT_NEAR(static_cast<int>(s.steps.size()), 20, 1);
  EXPECT_GT(s.median, 0);
  EXPECT_LE(s.low, s.median);
  EXPECT_GE(s.high, s.median);
}

TEST(ExpertAnswer, TheVerdictComesFirstAndFitsTenLines) {
  Trace t = LoadTraceFile(std::string(STREAMLAB_SOURCE_DIR) + "/tests/fixtures/recorded/launch_bound.json");
  ProgramVerdict v = ProgramVerdictOf(t);
  ASSERT_TRUE(v.found());
  EXPECT_EQ(v.lead().bound, TimeCategory::kLaunch);
  for (const char* lang : {"en", "zh"}) {
    std::vector<std::string> lines = RenderVerdict(FindingTexts::Load(lang), t, v);
    ASSERT_FALSE(lines.empty());
    EXPECT_LE(lines.size(), kVerdictLines);
    for (const std::string& l : lines) EXPECT_EQ(l.find('{'), std::string::npos) << l;  // every template filled
  }
}

TEST(ExpertAnswer, AProgramWithoutStepsIsJudgedOnTheWholeRun) {
  Trace t = Log().Kernel(77, "[4096]").Pause(50000000).Kernel(77, "[4096]").Convert();
  Verdict v = LeadVerdict(t);
  EXPECT_FALSE(v.steps.found());
  // The window is the whole run, from its first call to its last call or GPU op, not the GPU's
  // span alone: the 50 ms the host spent between the kernels is in it, and bounds it.
  EXPECT_EQ(v.walked, 1);
  TimeNs first = INT64_MAX, last = 0;
  for (const OpRecord& r : t.ops) {
    first = std::min(first, r.submit);
    last = std::max({last, r.ret, r.gpu ? r.end : 0});
  }
  EXPECT_EQ(v.step, last - first);
  EXPECT_EQ(v.bound, TimeCategory::kHostWork);
  TimeNs sum = 0;
  for (TimeNs c : v.by_category) sum += c;
  EXPECT_EQ(sum, v.step);
}

// simpleMultiGPU's shape: a context created in cudaFree(0), a 20 ms call, 300 ms of the host's own
// work (a rand() fill), then one 3 ms kernel. With no loop the account is the whole run after
// CUDA's start-up: the host's own work bounds it, the allocation comes next, and the context's
// creation is said apart as a one-off (the GPU's 3 ms alone would say "GPU compute").
TEST(ExpertAnswer, ARunWithoutStepsIsAccountedFromTheEndOfCudasStartUp) {
  Trace t = Log()
                .SlowCall("cudaFree", 100000000)
                .InsideLastCall("context_created")
                .SlowCall("cudaMallocHost", 20000000)
                .Pause(300000000)
                .Kernel(77, "[4096]", 3000000)
                .SyncStream(77)
                .Convert();
  ProgramVerdict pv = ProgramVerdictOf(t);
  ASSERT_TRUE(pv.found());
  const Verdict& v = pv.lead();
  ASSERT_FALSE(v.steps.found());
  EXPECT_NEAR(static_cast<double>(v.step), 323e6, 1e6);  // from cudaFree's return to the sync's
  EXPECT_EQ(v.bound, TimeCategory::kHostWork);
  EXPECT_NEAR(static_cast<double>(v.by_category[static_cast<int>(TimeCategory::kHostWork)]), 300e6, 1e6);
  EXPECT_EQ(v.by_kind[static_cast<int>(TimeKind::kContext)], 0);
  ASSERT_GE(v.fixes.size(), 2u);
  EXPECT_EQ(v.fixes[1].time_kind, TimeKind::kAllocation);
  auto context = std::find_if(v.startup.begin(), v.startup.end(), [](const StartupCost& c) { return c.kind == StartupCost::kContext; });
  ASSERT_NE(context, v.startup.end());
  EXPECT_NEAR(static_cast<double>(context->time), 100e6, 0.1e6);
  std::string text;
  for (const std::string& l : RenderVerdict(FindingTexts::Load("en"), t, pv)) text += l + "\n";
  EXPECT_NE(text.find("the whole run after CUDA's start-up"), std::string::npos) << text;
  EXPECT_EQ(text.find("GPU time leaves out"), std::string::npos) << text;
}

// A thread's time before its first recorded call is not its own (simpleCallback's callback
// threads begin after the main thread's calls): the path goes on on the thread whose call
// returned last before it, here the main thread's 20 ms pinned allocation, not "host work".
TEST(ExpertAnswer, APathReachingAThreadsFirstCallGoesOnOnTheThreadBeforeIt) {
  Log log;
  log.SlowCall("cudaFree", 100000000).InsideLastCall("context_created").SlowCall("cudaMallocHost", 20000000);
  log.Skip(500000).Kernel(77, "[4096]", 2000000);
  // The kernel's launch made by a second thread, its first call.
  std::string text = log.text();
  size_t launch = text.rfind("\"tid\":0,\"fn\":\"cudaLaunchKernel\"");
  ASSERT_NE(launch, std::string::npos);
  text.replace(launch, 7, "\"tid\":1");
  Trace t = TraceFromRecording(ParseRecording(text, "threads.jsonl"));
  ProgramVerdict pv = ProgramVerdictOf(t);
  ASSERT_TRUE(pv.found());
  const Verdict& v = pv.lead();
  ASSERT_FALSE(v.steps.found());
  EXPECT_NEAR(static_cast<double>(v.by_kind[static_cast<int>(TimeKind::kAllocation)]), 20e6, 0.1e6);
  EXPECT_LT(v.by_category[static_cast<int>(TimeCategory::kHostWork)], 1'000'000);
  EXPECT_EQ(v.bound, TimeCategory::kCudaCall);
}

// A run without steps has no loop: its fixes never say to move something before, into or out
// of "the loop" (pageable_vs_pinned: host work, a pinned allocation and a stream creation, each
// made once; the remedies of a loop were given before).
TEST(ExpertAnswer, TheFixesOfARunWithoutStepsSpeakOfNoLoop) {
  for (const char* name : {"pageable_vs_pinned", "graph_replay", "default_plus_side_stream"}) {
    Trace t = LoadTraceFile(std::string(STREAMLAB_SOURCE_DIR) + "/tests/fixtures/recorded/" + name + ".json");
    ProgramVerdict v = ProgramVerdictOf(t);
    ASSERT_TRUE(v.found()) << name;
    ASSERT_FALSE(v.lead().steps.found()) << name;
    ASSERT_GE(v.lead().fixes.size(), 2u) << name;
    for (const char* lang : {"en", "zh"}) {
      std::vector<std::string> lines = RenderVerdict(FindingTexts::Load(lang), t, v);
      for (const std::string& l : lines)
        for (const char* loop : {"before the loop", "in the loop", "out of the loop", "循环之前", "循环中", "移出循环", "循环之外"})
          EXPECT_EQ(l.find(loop), std::string::npos) << name << ": " << l;
    }
  }
}

// simpleHyperQ's shape: one kernel launched on 4 streams at once, 10 ms each. The verdict names
// the time it took on the run's critical path (10 ms), not the sum of its launches (40 ms).
TEST(ExpertAnswer, KernelsSideBySideCountTheirBusyTimeNotTheirSum) {
  Trace t;
  t.backend = "record";
  t.scenario.recorded = true;
  for (int s = 0; s < 4; ++s) {
    t.scenario.streams.push_back({"stream " + std::to_string(s), 0, StreamKind::kCreated, true, 0, 0});
    Op k;
    k.kind = OpKind::kKernel;
    k.stream = s;
    k.name = "spin";
    t.scenario.ops.push_back(k);
    OpRecord r;
    r.op = s, r.submit = 1000 + 10 * s, r.ret = r.submit + 5, r.gpu = true;
    r.ready = r.start = 2000 + 100 * s, r.end = r.start + 10000000;
    t.ops.push_back(r);
  }
  ProgramVerdict pv = ProgramVerdictOf(t);
  const Verdict& v = pv.lead();
  ASSERT_FALSE(v.top_kernels.empty());
  EXPECT_EQ(v.top_kernels[0].name, "spin");
  EXPECT_EQ(v.top_kernels[0].busy, 10000000);
  EXPECT_EQ(v.top_kernels[0].launches, 1);
  std::string line = RenderVerdict(FindingTexts::Load("en"), t, pv).front();
  EXPECT_NE(line.find("spin 10.00 ms"), std::string::npos) << line;
  EXPECT_EQ(line.find("40.0"), std::string::npos) << line;
}

}  // namespace
}  // namespace streamlab
