// The verdict (engine/verdict) reads only the account: its bound is the account's largest
// category, its fixes' times never exceed the step, a race with a known writer comes first, and
// every sentence it says exists in English and Chinese with the same values.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/ingest/open_trace.h"
#include "engine/report/verdict_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/sim/sim_executor.h"
#include "engine/util/assets.h"
#include "engine/util/json_reader.h"
#include "tests/test_util.h"
#include "tests/verdict_util.h"
#include "tests/whatif_recorded_loops.h"

namespace streamlab {
namespace {

std::set<std::string> VarsOf(const std::string& tpl) {
  std::set<std::string> vars;
  for (size_t open = tpl.find('{'); open != std::string::npos; open = tpl.find('{', open + 1))
    if (size_t close = tpl.find('}', open); close != std::string::npos) vars.insert(tpl.substr(open + 1, close - open - 1));
  return vars;
}

TEST(Verdict, EverySentenceIsInBothLanguagesWithTheSameValues) {
  Json texts = ParseJson(ReadTextFile(AssetsDir() + "/analyzer.json"), "analyzer.json");
  std::vector<std::string> keys = VerdictTextKeys();
  // replay's and whatif's sentences (app/cli) too.
  for (auto it = texts["en"].begin(); it != texts["en"].end(); ++it)
    if (it.key().rfind("replay.", 0) == 0 || it.key().rfind("whatif.", 0) == 0) keys.push_back(it.key());
  EXPECT_GE(keys.size(), VerdictTextKeys().size() + 19);
  for (const std::string& key : keys) {
    ASSERT_TRUE(texts["en"].contains(key)) << key;
    ASSERT_TRUE(texts["zh"].contains(key)) << key;
    EXPECT_EQ(VarsOf(texts["zh"][key].get<std::string>()), VarsOf(texts["en"][key].get<std::string>())) << key;
  }
}

// On every recorded fixture: the bound is the largest category, no fix costs more than a step,
// and a race with a known writer is the verdict's first line.
TEST(Verdict, TheBoundIsTheAccountsLargestCategoryAndRacesComeFirst) {
  FindingTexts en = FindingTexts::Load("en");
  int races = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/recorded"))) {
    std::string path = e.path().string();
    if (!(e.is_directory() || e.path().extension() == ".json")) continue;
    Trace t = LoadTraceFile(path);
    ProgramVerdict pv = ProgramVerdictOf(t);
    for (const Verdict& v : pv.processes) {
      TimeNs largest = *std::max_element(v.by_category.begin(), v.by_category.end());
      EXPECT_EQ(v.by_category[static_cast<int>(v.bound)], largest) << path;
      EXPECT_EQ(CategoryOf(v.bound_kind), v.bound) << path;
      for (const VerdictFix& f : v.fixes) EXPECT_LE(f.per_step, v.step) << path << " " << ToString(f.kind);
    }
    std::vector<std::string> lines = RenderVerdict(en, t, pv);
    EXPECT_LE(lines.size(), kVerdictLines) << path;
    for (const std::string& l : lines) EXPECT_EQ(l.find('{'), std::string::npos) << path << ": " << l;
    if (!pv.races.empty()) {
      ++races;
      ASSERT_FALSE(lines.empty());
      EXPECT_NE(lines.front().find("wrong results first"), std::string::npos) << path;
      const RaceLine& r = pv.races.front();
      EXPECT_GE(r.occurrences, 1) << path;
      EXPECT_LE(r.overlapped, r.occurrences) << path;
      if (r.overlapped > 0) {
        EXPECT_NE(lines.front().find("may already be wrong"), std::string::npos) << path;
      } else if (r.closest >= 0) {
        EXPECT_NE(lines.front().find("by timing alone"), std::string::npos) << path;
      }
    }
  }
  EXPECT_GE(races, 1);
}

// A race whose later call writes where the earlier one only read is the freed-block reuse that
// tensor.record_stream prevents (record_stream.py --without-record-stream: the main stream's
// torch.zeros got a block the side stream still read); its remedy says so. A write before a read
// (one_tensor_two_streams.py) needs the wait alone.
TEST(Verdict, AWriteAfterAReadOnAnotherStreamNamesRecordStream) {
  FindingTexts en = FindingTexts::Load("en");
  auto first_line = [&](const char* fixture) {
    Trace t = LoadTraceFile(testing::SourcePath(std::string("tests/fixtures/recorded/") + fixture));
    std::vector<std::string> lines = RenderVerdict(en, t, ProgramVerdictOf(t));
    return lines.empty() ? std::string() : lines.front();
  };
  for (const char* reuse : {"record_stream_without.json", "prefetch_overlap_without_record_stream.json"}) {
    std::string line = first_line(reuse);
    EXPECT_NE(line.find("wrong results first"), std::string::npos) << reuse;
    EXPECT_NE(line.find("tensor.record_stream(the reading stream)"), std::string::npos) << reuse << ": " << line;
  }
  std::string raw = first_line("one_tensor_two_streams.json");
  EXPECT_NE(raw.find("wrong results first"), std::string::npos);
  EXPECT_EQ(raw.find("record_stream"), std::string::npos) << raw;
}

// Every figure explain and the app show about a program says its scope: the verdict's are a
// steady step's (or, without steps, the whole run's, said so), and the figures and idle findings
// below it are the whole run's, said so; no two figures of one scope disagree without saying why.
TEST(Verdict, EveryFigureSaysItsScope) {
  FindingTexts en = FindingTexts::Load("en");
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/recorded"))) {
    std::string path = e.path().string();
    if (!(e.is_directory() || e.path().extension() == ".json")) continue;
    Trace t = LoadTraceFile(path);
    Analysis a = Analyze(t);
    ProgramVerdict pv = VerdictOf(t, a, AccountOf(t));
    if (!pv.found()) continue;
    const Verdict& v = pv.lead();
    std::string account = RenderAccount(en, v);
    EXPECT_NE(account.find(v.found() ? "steady steps walked" : "the whole run after CUDA's start-up"), std::string::npos) << path << ": " << account;
    EXPECT_EQ(en.RenderFigures(t, a.figures).rfind("Whole run: ", 0), 0u) << path;
    for (const Finding& f : a.findings)
      if (f.kind == FindingKind::kGpuIdle) {
        EXPECT_NE(en.Render(t, f).find("whole run"), std::string::npos) << path << ": " << en.Render(t, f);
      }
  }
}

// Launches of 8 us each (this profile) for 6 us kernels: the launches bound the step, and the GPU
// is busy three quarters of it, so the verdict says a faster host alone saves at most the rest.
// Kernels of 0.5 us leave the GPU idle most of the step: nothing to say about balance.
TEST(Verdict, AHostBoundStepWithABusyGpuSaysWhatAFasterHostCanSave) {
  FindingTexts en = FindingTexts::Load("en");
  auto verdict_text = [&](TimeNs kernel) {
    ScenarioBuilder b("launches");
    Stream s = b.CreateStream("compute");
    for (int k = 0; k < 8; ++k) {
      for (int i = 0; i < 40; ++i) s.Launch("k" + std::to_string(i), Spin(kernel, 132));
      b.host().SyncDevice();
    }
    Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
    ProgramVerdict pv = ProgramVerdictOf(t);
    EXPECT_EQ(pv.processes.at(0).bound, TimeCategory::kLaunch);
    std::vector<std::string> lines = RenderVerdict(en, t, pv);
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    return all;
  };
  std::string busy = verdict_text(Us(6));
  EXPECT_NE(busy.find("host and GPU are close"), std::string::npos) << busy;
  std::string idle = verdict_text(Ns(500));
  EXPECT_EQ(idle.find("host and GPU are close"), std::string::npos) << idle;
}

// A race's timing in this run: the op called later beginning before the one called first ended
// (together, or in the other order) may already have given a wrong result; beginning after it is
// right by timing alone, and the line says by how little.
TEST(Verdict, ARacesLineSaysWhetherThisRunsOrderWasAlreadyWrong) {
  Trace t;
  t.ops.resize(6);
  auto gpu = [&](int i, TimeNs submit, TimeNs start, TimeNs end) {
    t.ops[i].gpu = true;
    t.ops[i].submit = submit;
    t.ops[i].start = start;
    t.ops[i].end = end;
  };
  gpu(0, 0, Us(10), Us(100));   // a copy called first
  gpu(1, Us(5), Us(50), Us(60));  // a kernel called after it, run while the copy ran
  gpu(2, 0, Us(10), Us(100));
  gpu(3, Us(5), Us(1), Us(8));    // called after, run before the copy began: the other order
  gpu(4, 0, Us(10), Us(100));
  gpu(5, Us(5), Us(130), Us(140));  // run 30 us after the copy ended
  RaceLine wrong, right;
  CountRaceOccurrence(t, 0, 1, wrong);
  CountRaceOccurrence(t, 3, 2, wrong);  // either way round
  EXPECT_EQ(wrong.occurrences, 2);
  EXPECT_EQ(wrong.overlapped, 2);
  CountRaceOccurrence(t, 4, 5, right);
  EXPECT_EQ(right.overlapped, 0);
  EXPECT_EQ(right.closest, Us(30));
}

// One process (the app) explains many traces: each verdict is worded for its own trace (the
// one-off line once kept the first trace's wording, in a function-local table made once).
TEST(Verdict, EachTracesWordingIsItsOwnInOneProcess) {
  Trace inferred = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/launch_bound.json"));
  bool guessed = false;
  int call = ContextCreationCall(inferred, &guessed);
  ASSERT_GE(call, 0);
  ASSERT_TRUE(guessed);
  Trace recorded = inferred;
  recorded.ops[call].created_context = true;
  FindingTexts en = FindingTexts::Load("en");
  auto startup = [&](const Trace& t) {
    for (const std::string& line : RenderVerdict(en, t, ProgramVerdictOf(t)))
      if (line.find("One-off:") != std::string::npos) return line;
    return std::string();
  };
  EXPECT_NE(startup(inferred).find("most likely CUDA context creation"), std::string::npos);
  EXPECT_EQ(startup(recorded).find("most likely"), std::string::npos) << startup(recorded);
  EXPECT_NE(startup(recorded).find("CUDA context creation"), std::string::npos);
  EXPECT_NE(startup(inferred).find("most likely CUDA context creation"), std::string::npos);
}

// A Python loop that allocates and frees device memory every step: with the caching allocator
// turned off in the program's environment, the remedy is that setting, not fixed shapes.
TEST(Verdict, AllocationsWithTheCachingAllocatorOffAreToldToTurnItBackOn) {
  auto loop = [](bool caching_off) {
    ScenarioBuilder b("no-cache");
    Stream s = b.CreateStream("s1");
    for (int step = 0; step < 10; ++step) {
      Buffer activation = b.DeviceBuffer("act" + std::to_string(step), 256 << 20);
      b.host().Malloc(activation);
      s.Launch("forward", Spin(Us(300)));
      b.host().Free(activation);
    }
    b.host().SyncDevice();
    Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
    t.notes.push_back(Note("program.exited", {{"command", "python3 train.py"}, {"status", "0"}}));
    t.scenario.settings.known = true;
    if (caching_off) t.scenario.settings.env["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1";
    std::string text;
    for (const std::string& l : RenderVerdict(FindingTexts::Load("en"), t, ProgramVerdictOf(t))) text += l + "\n";
    return text;
  };
  std::string off = loop(true), on = loop(false);
  EXPECT_NE(off.find("PYTORCH_NO_CUDA_MEMORY_CACHING=1 in the program's environment"), std::string::npos) << off;
  EXPECT_EQ(off.find("growing its pool"), std::string::npos) << off;
  EXPECT_EQ(on.find("PYTORCH_NO_CUDA_MEMORY_CACHING"), std::string::npos) << on;
}

// A C++ loop that pins its staging buffer every frame (heldout8's pinned_staging_per_frame): the
// fix says host memory is pinned and unpinned, not that device memory is allocated, and its
// remedy is to pin once, not cudaMallocAsync (which allocates device memory); a loop that
// allocates device memory keeps its own words.
TEST(Verdict, PinningHostMemoryInTheLoopIsToldAsSuchNotAsDeviceMemory) {
  auto loop = [](bool pinned) {
    ScenarioBuilder b("staging");
    Stream s = b.CreateStream("s1");
    Buffer device = b.DeviceBuffer("frame", 24 << 20);
    for (int step = 0; step < 10; ++step) {
      Buffer staging = pinned ? b.PinnedBuffer("staging" + std::to_string(step), 24 << 20)
                              : b.DeviceBuffer("scratch" + std::to_string(step), 24 << 20);
      if (pinned) b.host().MallocHost(staging);
      else b.host().Malloc(staging);
      s.Copy("upload", device, pinned ? staging : device, 24 << 20);
      s.Launch("grade", Spin(Us(300)));
      s.Synchronize();
      if (!pinned) b.host().Free(staging);  // (a scenario frees device memory only: a recording has cudaFreeHost as its own call)
    }
    Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
    std::string text;
    for (const std::string& l : RenderVerdict(FindingTexts::Load("en"), t, ProgramVerdictOf(t))) text += l + "\n";
    return text;
  };
  std::string pinned = loop(true), device = loop(false);
  EXPECT_NE(pinned.find("host memory pinned or unpinned in the loop"), std::string::npos) << pinned;
  EXPECT_NE(pinned.find("Pin the staging buffers once before the loop"), std::string::npos) << pinned;
  EXPECT_EQ(pinned.find("device memory allocated"), std::string::npos) << pinned;
  EXPECT_EQ(pinned.find("cudaMallocAsync"), std::string::npos) << pinned;
  EXPECT_NE(device.find("device memory allocated or freed in the loop"), std::string::npos) << device;
}

// A pinned pipeline that moves as much back as up: both copy engines run most of each step, so
// the copies' fix says both directions bound it and how little one direction alone can save;
// with a small download, it does not.
TEST(Verdict, CopiesThatFillBothEnginesSayBothDirectionsBoundTheStep) {
  auto pipeline = [](uint64_t down_bytes) {
    ScenarioBuilder b("pipeline");
    Stream up = b.CreateStream("up", {.non_blocking = true}), compute = b.CreateStream("compute", {.non_blocking = true}),
           down = b.CreateStream("down", {.non_blocking = true});
    const uint64_t chunk = 32ull << 20;
    Buffer host_in = b.PinnedBuffer("host_in", 8 * chunk), host_out = b.PinnedBuffer("host_out", 8 * chunk);
    Buffer dev_in = b.DeviceBuffer("dev_in", 8 * chunk), dev_out = b.DeviceBuffer("dev_out", 8 * chunk);
    for (int step = 0; step < 8; ++step) {
      for (int c = 0; c < 8; ++c) {
        Event in = b.CreateEvent("in"), out = b.CreateEvent("out");
        up.Copy("upload", dev_in, host_in, chunk);
        up.Record(in);
        compute.Wait(in);
        compute.Launch("scale", Spin(Us(20)));
        compute.Record(out);
        down.Wait(out);
        down.Copy("download", host_out, dev_out, down_bytes);
      }
      down.Synchronize();
    }
    Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
    std::string text;
    for (const std::string& l : RenderVerdict(FindingTexts::Load("en"), t, ProgramVerdictOf(t))) text += l + "\n";
    return text;
  };
  std::string both = pipeline(32ull << 20), one = pipeline(1ull << 20);
  EXPECT_NE(both.find("both directions bound it"), std::string::npos) << both;
  EXPECT_EQ(one.find("both directions bound it"), std::string::npos) << one;
  // Data sent in and results brought back are two causes: a fix each, each naming its direction.
  EXPECT_NE(both.find("in device-to-host copies on the critical path"), std::string::npos) << both;
  EXPECT_NE(both.find("in host-to-device copies on the critical path"), std::string::npos) << both;
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

// Four 8-block workers on four blocking streams, each after a tiny kernel on the legacy default
// stream, 8 steps (heldout5's legacy_flag_serialize): the legacy stream orders the workers one
// after another, so the fix is streams that do not wait for it, not "more kernels side by side".
// With non-blocking streams the workers overlap and nothing on the path is held by it.
Trace LegacyFlagLoop(bool non_blocking) {
  ScenarioBuilder b(non_blocking ? "non_blocking_workers" : "legacy_flag_workers");
  Stream legacy = b.LegacyDefaultStream();
  std::vector<Stream> workers;
  for (int w = 0; w < 4; ++w) workers.push_back(b.CreateStream("w" + std::to_string(w), {non_blocking}));
  for (int step = 0; step < 8; ++step) {
    for (int w = 0; w < 4; ++w) {
      legacy.Launch("reset_flag", Spin(Us(2), 1));
      workers[w].Launch("worker", Spin(Us(1000), 8));
    }
    b.host().SyncDevice();
  }
  return AsRecording(SimExecutor().Run(b.Build(), {}));
}

TEST(Verdict, KernelsTheLegacyDefaultStreamSerializesAreToldToStopWaitingForIt) {
  Trace serialized = LegacyFlagLoop(false);
  ProgramVerdict pv = ProgramVerdictOf(serialized);
  ASSERT_TRUE(pv.found());
  const Verdict& v = pv.lead();
  EXPECT_GE(v.legacy_serialized * 2, v.step) << "the workers' time on the path was held by the legacy stream";
  std::string text;
  for (const std::string& l : RenderVerdict(FindingTexts::Load("en"), serialized, pv)) text += l + "\n";
  EXPECT_NE(text.find("legacy default stream orders them"), std::string::npos) << text;
  EXPECT_NE(text.find("cudaStreamNonBlocking"), std::string::npos) << text;

  Trace overlapped = LegacyFlagLoop(true);
  ProgramVerdict free_pv = ProgramVerdictOf(overlapped);
  ASSERT_TRUE(free_pv.found());
  EXPECT_EQ(free_pv.lead().legacy_serialized, 0);
  EXPECT_LT(free_pv.lead().step * 2, v.step) << "non-blocking workers run side by side";
  std::string free_text;
  for (const std::string& l : RenderVerdict(FindingTexts::Load("en"), overlapped, free_pv)) free_text += l + "\n";
  EXPECT_EQ(free_text.find("legacy default stream orders them"), std::string::npos) << free_text;
}

}  // namespace
}  // namespace streamlab
