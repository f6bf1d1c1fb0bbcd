// The PyTorch backend without a GPU: the program written for every lab variant (what the
// Code tab shows is what runs), what it says PyTorch cannot do or does differently, and the
// mapping of a recorded run back onto the lab's ops by NVTX range.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/scenario/scenario_json.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"
#include "engine/classroom/lab_texts.h"
#include "engine/classroom/sandbox_model.h"
#include "engine/scenario/code_gen.h"
#include "engine/scenario/torch_program.h"
#include "engine/sim/buffer_contents.h"
#include "engine/ingest/torch_mapping.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// The ops the measured pass's ranges name: "op_range(tag, 7)" and "op_range(tag, \"3+4+5\")".
std::set<int> RangedOps(const std::string& text) {
  std::set<int> ops;
  const std::string call = "op_range(tag, ";
  for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
    size_t begin = at + call.size(), end = text.find(')', begin);
    std::string arg = text.substr(begin, end - begin);
    if (!arg.empty() && arg.front() == '"') arg = arg.substr(1, arg.size() - 2);
    for (int op : TorchRangeOps("streamlab:" + arg)) ops.insert(op);
  }
  return ops;
}

TEST(TorchProgram, TheCodeTabShowsTheProgramThatRuns) {
  int variants = 0;
  for (const Lab& lab : AllLabs())
    for (const std::string& v : lab.variants) {
      Scenario s = lab.build(ResolveLabArgs(lab, v, {}));
      TorchProgram p = ScenarioAsTorchProgram(s);
      EXPECT_EQ(ScenarioAsPyTorch(s), p.text) << lab.id << "/" << v;
      // Every op the host issues has its range in the measured pass (alone, or in a
      // hand-written body's range of several ops).
      std::set<int> ranged = RangedOps(p.text);
      for (size_t i = 0; i < s.ops.size(); ++i) {
        if (s.ops[i].graph >= 0 || !p.unsupported.empty()) continue;
        EXPECT_TRUE(ranged.count(static_cast<int>(i))) << lab.id << "/" << v << " op " << i;
      }
      ++variants;
    }
  EXPECT_GE(variants, 58);
}

TEST(TorchProgram, SaysWhatPyTorchCannotDoOrDoesDifferently) {
  auto program = [](const char* lab, const char* variant) {
    const Lab& l = FindLab(lab);
    return ScenarioAsTorchProgram(l.build(ResolveLabArgs(l, variant, {})));
  };
  TorchProgram legacy = program("w2-legacy-default-stall", "legacy");
  ASSERT_FALSE(legacy.differs.empty());
  EXPECT_NE(legacy.differs.front().find("non-blocking"), std::string::npos);
  EXPECT_TRUE(legacy.unsupported.empty());
  EXPECT_NE(program("w2-legacy-default-stall", "per-thread").differs.front().find("per-thread"), std::string::npos);
  EXPECT_TRUE(program("w2-event-chain", "chain").differs.empty());  // blocking streams, but no legacy-stream work
  TorchProgram graphs = program("w3-graphs", "graph");
  EXPECT_TRUE(graphs.unsupported.empty());  // captured with torch.cuda.graph, replayed, mapped back
  EXPECT_NE(graphs.text.find("with torch.cuda.graph(graphs[12], stream=s1):"), std::string::npos);
  EXPECT_NE(graphs.text.find("graphs[12].replay()"), std::string::npos);
  TorchProgram atomics = program("w2-myth-check", "atomics");
  EXPECT_TRUE(atomics.unsupported.empty());  // StreamLab's kernel, compiled with NVRTC
  EXPECT_NE(atomics.text.find("torch.cuda._compile_kernel(ATOMIC_SOURCE"), std::string::npos);
  EXPECT_NE(atomics.text.find("args=[buf[\"counter\"], 32, 10000])  # count_s1"), std::string::npos);
  TorchProgram full = program("w1-gpu-is-full", "full");
  EXPECT_TRUE(full.differs.empty());  // 264 blocks: StreamLab's spin kernel, compiled with NVRTC
  EXPECT_NE(full.text.find("spin_kernel(grid=(264, 1, 1), block=(1024, 1, 1), args=[300000])  # big1"), std::string::npos);
  EXPECT_NE(program("w1-gpu-is-full", "small").text.find("spin(300)  # big1"), std::string::npos);  // 4 blocks: _sleep
  // Collectives: a torchrun program, each GPU's ops in its own process's function.
  TorchProgram straggler = program("w3-straggler", "straggler");
  EXPECT_TRUE(straggler.unsupported.empty());
  EXPECT_EQ(straggler.processes, 2);
  EXPECT_NE(straggler.text.find("def rank_1(tag):\n    with op_range(tag, 1), torch.cuda.stream(gpu1):\n        spin(3000)"),
            std::string::npos);
  EXPECT_NE(straggler.text.find("dist.all_reduce(buf[\"grads0\"].view(torch.float32))  # allreduce_gpu0"), std::string::npos);
  EXPECT_NE(straggler.text.find("{0: rank_0, 1: rank_1}[RANK](tag)"), std::string::npos);
  EXPECT_EQ(program("w2-event-chain", "chain").processes, 1);
  TorchProgram priority = program("w3-comm-priority", "high-priority");
  EXPECT_NE(priority.text.find("options.is_high_priority_stream = True"), std::string::npos);
  EXPECT_EQ(program("w3-comm-priority", "default-priority").text.find("is_high_priority_stream"), std::string::npos);
  // A cross-GPU wait cannot be written with one process per GPU.
  ScenarioBuilder b("cross", 2);
  Stream s0 = b.CreateStream("s0", {.device = 0});
  Stream s1 = b.CreateStream("s1", {.device = 1});
  Buffer g0 = b.DeviceBuffer("g0", 1024, 0), g1 = b.DeviceBuffer("g1", 1024, 1);
  Event e = b.CreateEvent("e0", 0);
  s0.Record(e);
  s1.Wait(e);
  b.Collective("ar", CollectiveKind::kAllReduce, {s0, s1}, {g0, g1}, 1024);
  TorchProgram cross = ScenarioAsTorchProgram(b.Build());
  ASSERT_EQ(cross.unsupported.size(), 1u);
  EXPECT_NE(cross.unsupported.front().find("another GPU's event"), std::string::npos);
  // Checked memory: zeroed, written by the compiled spin kernel, saved after the run.
  TorchProgram hazard = program("w3-record-stream-hazard", "hazard");
  EXPECT_TRUE(hazard.differs.empty());
  EXPECT_NE(hazard.text.find("buf[\"x\"] = torch.zeros(262144"), std::string::npos);
  EXPECT_NE(hazard.text.find("spin_fill_kernel(grid=(4, 1, 1), block=(128, 1, 1), args=[1000000, buf[\"x\"], 65536, "
                             "buf[\"out\"], 65536])  # read_x"), std::string::npos);
  EXPECT_NE(hazard.text.find("for storage, names in {0: [\"x\", \"y\"], 1: [\"out\"]}.items():"), std::string::npos);
  EXPECT_NE(hazard.text.find("run_pass(\"streamlab\")\nsave_contents()\n"), std::string::npos);
  EXPECT_EQ(program("w2-event-chain", "chain").text.find("save_contents"), std::string::npos);  // nothing checked
  TorchProgram threads = program("w3-thread-per-stream", "per-thread-default-stream");
  EXPECT_NE(threads.text.find("threading.Thread(target=thread_3"), std::string::npos);
}

// A recorded run as the recorder's import gives it: one kernel launched inside the range
// "streamlab:0", a sync inside "streamlab:1"; a warm-up pass's ranges are ignored.
Trace RecordedRun() {
  Trace r;
  r.backend = "record";
  r.device_name = "NVIDIA H100 80GB HBM3";
  Op launch;
  launch.kind = OpKind::kKernel;
  launch.stream = 0;
  launch.name = "at::cuda::sleep_kernel";
  Op sync;
  sync.kind = OpKind::kSyncDevice;
  r.scenario.streams.push_back({"stream 13", 0, StreamKind::kCreated, true, 0, 0});
  OpRecord warm;
  warm.op = 0, warm.submit = 100, warm.ret = 110, warm.gpu = true, warm.ready = warm.start = 120, warm.end = 200;
  OpRecord k;
  k.op = 1, k.submit = 1010, k.ret = 1020, k.gpu = true, k.ready = k.start = 1030, k.end = 1500;
  OpRecord s;
  s.op = 2, s.submit = 1100, s.ret = 1510;
  r.scenario.ops = {launch, launch, sync};
  r.ops = {warm, k, s};
  r.ranges = {{0, "warmup:0", 90, 115}, {0, "streamlab:0", 1000, 1050}, {0, "streamlab:1", 1090, 1520}};
  return r;
}

Scenario LabScenario() {
  Scenario lab;
  lab.streams.push_back({"s1", 0, StreamKind::kCreated, false, 0, 0});
  Op k;
  k.kind = OpKind::kKernel;
  k.stream = 0;
  k.name = "k1";
  Op sync;
  sync.kind = OpKind::kSyncDevice;
  lab.ops = {k, sync};
  return lab;
}

TEST(TorchMapping, EachOpIsItsRangesCallsAndGpuWork) {
  Trace t = MapTorchRun(RecordedRun(), LabScenario());
  EXPECT_EQ(t.backend, "torch");
  ASSERT_EQ(t.ops.size(), 2u);
  EXPECT_EQ(t.ops[0].submit, 1010);  // the launch call, not the warm-up's
  EXPECT_EQ(t.ops[0].ret, 1020);
  EXPECT_TRUE(t.ops[0].gpu);
  EXPECT_EQ(t.ops[0].start, 1030);
  EXPECT_EQ(t.ops[0].end, 1500);
  EXPECT_EQ(t.ops[1].submit, 1100);
  EXPECT_EQ(t.ops[1].ret, 1510);
  EXPECT_FALSE(t.ops[1].gpu);
}

TEST(TorchMapping, AMissingRangeOrGpuOpIsARunError) {
  Trace cut = RecordedRun();
  cut.ranges.pop_back();
  EXPECT_THROW(MapTorchRun(cut, LabScenario()), RunError);
  Trace no_kernel = RecordedRun();
  no_kernel.ops[1].gpu = false;
  EXPECT_THROW(MapTorchRun(no_kernel, LabScenario()), RunError);
}

TEST(TorchProgram, RangeNamesListTheirOps) {
  EXPECT_EQ(TorchRangeOps("streamlab:7"), std::vector<int>({7}));
  EXPECT_EQ(TorchRangeOps("streamlab:3+4+10"), std::vector<int>({3, 4, 10}));
  EXPECT_TRUE(TorchRangeOps("warmup:3+4").empty());
  EXPECT_TRUE(TorchRangeOps("streamlab:").empty());
  EXPECT_TRUE(TorchRangeOps("streamlab:3++4").empty());
  EXPECT_TRUE(TorchRangeOps("streamlab:3+x").empty());
  EXPECT_TRUE(TorchRangeOps("streamlab:12345678").empty());
}

// w3-autograd-streams: a real autograd.Function and loss.backward(), written by hand; the
// engine's calls are one range of several ops. An edit in the sandbox drops the hand-written
// body, whose op numbers no longer fit.
TEST(TorchProgram, AHandWrittenBodyRunsRealAutograd) {
  const Lab& lab = FindLab("w3-autograd-streams");
  TorchProgram caller = ScenarioAsTorchProgram(lab.build(ResolveLabArgs(lab, "default-caller", {})));
  EXPECT_TRUE(caller.unsupported.empty());
  EXPECT_NE(caller.text.find("class Layer(torch.autograd.Function):"), std::string::npos);
  EXPECT_NE(caller.text.find("    with op_range(tag, \"3+4+5+6+7+8+9\"):\n        loss.backward()\n"), std::string::npos);
  EXPECT_NE(caller.text.find("args=[2000000, buf[\"x\"], 16384, buf[\"g\"], 16384])  # bwd"), std::string::npos);
  EXPECT_EQ(caller.text.find("{op:"), std::string::npos);
  TorchProgram side = ScenarioAsTorchProgram(lab.build(ResolveLabArgs(lab, "side-caller", {})));
  EXPECT_NE(side.text.find("with op_range(tag, \"3+4+5\"), torch.cuda.stream(side):\n        loss.backward()"),
            std::string::npos);
  EXPECT_NE(ScenarioAsTorchProgram(lab.build(ResolveLabArgs(lab, "wait-stream", {})))
                .text.find("torch.cuda.current_stream().wait_stream(side)"),
            std::string::npos);
  Scenario broken = lab.build(ResolveLabArgs(lab, "side-caller", {}));
  broken.torch_source += "\n    {op:99}";
  EXPECT_FALSE(ScenarioAsTorchProgram(broken).unsupported.empty());
  SandboxModel sandbox;
  ASSERT_TRUE(sandbox.Open(lab.build(ResolveLabArgs(lab, "side-caller", {}))));
  EXPECT_FALSE(sandbox.scenario().torch_source.empty());
  ASSERT_TRUE(sandbox.Apply("wait_stream default side"));
  EXPECT_TRUE(sandbox.scenario().torch_source.empty());
  EXPECT_EQ(ScenarioAsTorchProgram(sandbox.scenario()).text.find("loss.backward()"), std::string::npos);
}

// A lab of a seed fill, the engine's record and wait, and bwd, on two streams.
Scenario BackwardScenario() {
  ScenarioBuilder b("backward");
  Stream def = b.LegacyDefaultStream(0, "default");
  Stream side = b.CreateStream("side", {.non_blocking = true});
  Buffer seed = b.DeviceBuffer("seed", 4);
  Event e = b.CreateEvent("seed_ready");
  def.Memset("seed", seed, 4, 0);
  def.Record(e);
  side.Wait(e);
  side.Launch("bwd", Spin(Us(100)));
  return b.Build();
}

// Its recorded run: the caller's fill and record on thread 0, the engine's wait and launch
// on thread 1, all inside thread 0's range "streamlab:0+1+2+3"; an API call in between.
Trace RecordedBackward() {
  Trace r;
  r.backend = "record";
  r.scenario.streams.push_back({"stream 7", 0, StreamKind::kLegacyDefault, false, 0, 0});
  r.scenario.streams.push_back({"stream 13", 0, StreamKind::kCreated, true, 0, 0});
  auto add = [&](OpKind kind, int stream, int thread, TimeNs submit, bool gpu, TimeNs start, TimeNs end) {
    Op op;
    op.kind = kind;
    op.stream = stream;
    op.thread = thread;
    r.scenario.ops.push_back(op);
    OpRecord rec;
    rec.op = static_cast<int>(r.ops.size());
    rec.submit = submit, rec.ret = submit + 5, rec.gpu = gpu, rec.ready = rec.start = start, rec.end = end;
    r.ops.push_back(rec);
  };
  add(OpKind::kKernel, 0, 0, 1010, true, 1020, 1022);    // ones_like(loss)
  add(OpKind::kRecord, 0, 0, 1030, true, 1040, 1040);
  add(OpKind::kApiCall, -1, 1, 1050, false, 0, 0);       // cudaGetDevice, say
  add(OpKind::kWaitEvent, 1, 1, 1060, true, 1070, 1070);
  add(OpKind::kKernel, 1, 1, 1080, true, 1090, 1190);    // bwd
  r.ranges = {{0, "streamlab:0+1+2+3", 1000, 1200}};
  return r;
}

TEST(TorchMapping, ARangeOfSeveralOpsTakesTheirCallsInOrderOnAnyThread) {
  Trace t = MapTorchRun(RecordedBackward(), BackwardScenario());
  ASSERT_EQ(t.ops.size(), 4u);
  EXPECT_EQ(t.ops[0].start, 1020);  // the fill stands for the memset
  EXPECT_EQ(t.ops[1].submit, 1030);
  EXPECT_EQ(t.ops[2].submit, 1060);  // the engine thread's wait
  EXPECT_EQ(t.ops[3].start, 1090);
  EXPECT_EQ(t.ops[3].end, 1190);
  bool grouped = false, placement = false;
  for (const TraceNote& n : t.notes) {
    grouped |= n.key == "torch_calls_grouped";
    placement |= n.key == "torch_stream_split" || n.key == "torch_stream_merged";
  }
  EXPECT_TRUE(grouped);
  EXPECT_FALSE(placement);
  // Without the engine's launch, bwd has no call: the error names it and the range.
  Trace cut = RecordedBackward();
  cut.ops.pop_back();
  cut.scenario.ops.pop_back();
  try {
    MapTorchRun(cut, BackwardScenario());
    ADD_FAILURE() << "mapped a run without bwd";
  } catch (const RunError& e) {
    EXPECT_NE(std::string(e.what()).find("op bwd inside range streamlab:0+1+2+3"), std::string::npos) << e.what();
  }
}

// PyTorch put bwd on the caller's stream instead of side: the trace says so, and the
// autograd lab's first claim would fail on it.
TEST(TorchMapping, WorkOnAnotherStreamThanTheLabSaysIsNoted) {
  Trace moved = RecordedBackward();
  moved.scenario.ops[4].stream = 0;
  Trace t = MapTorchRun(moved, BackwardScenario());
  std::string merged;
  for (const TraceNote& n : t.notes)
    if (n.key == "torch_stream_merged") merged = n.text;
  EXPECT_NE(merged.find("PyTorch ran bwd and seed on one stream, though the lab puts them on side and default"),
            std::string::npos) << merged;
}

// The PyTorch program of w3-graphs/graph (steps=3) recorded on an H100: torch.cuda.graph
// captured each step, and every replayed kernel is mapped to its lab op through the node
// CUPTI named and the capture range that node was made in.
TEST(TorchMapping, GraphReplaysMapToTheirCapturedOps) {
  Trace recorded = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/graph_replay.raw.jsonl"));
  const Lab& lab = FindLab("w3-graphs");
  LabArgs args = ResolveLabArgs(lab, "graph", {{"steps", 3}});
  Scenario s = lab.build(args);
  Trace t = MapTorchRun(recorded, s);
  int nodes = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    if (s.ops[i].graph < 0) continue;
    ++nodes;
    EXPECT_TRUE(t.ops[i].gpu) << DisplayName(s, static_cast<int>(i));  // kernels and the graph's markers
    EXPECT_EQ(t.ops[i].submit, t.ops[s.ops[i].graph].submit);
  }
  EXPECT_EQ(nodes, 2 * 11);  // steps 2 and 3: 4 kernels, 3 records, 4 waits each
  for (const Expectation& e : ExpectationsFor(lab, args, Backend::kTorch)) EXPECT_TRUE(e.check(t).pass) << e.claim;
  // A replayed kernel is the node captured in its op's range, inside its launch's range.
  int d2 = -1;
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].name == "d@2") d2 = static_cast<int>(i);
  ASSERT_GE(d2, 0);
  bool found = false;
  for (const OpRecord& r : recorded.ops)
    found |= r.graph_replay && r.captured_in == TorchCaptureRangeName(d2) && r.start == t.ops[d2].start;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

TEST(TorchFixtures, EachClaimHoldsOrPyTorchDiffersForANamedReason) {
  int files = 0, held = 0, differ = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/torch"))) {
    Trace t = LoadTraceFile(entry.path().string());
    ++files;
    EXPECT_EQ(t.backend, "torch") << entry.path();
    EXPECT_NE(t.device_name.find("NVIDIA"), std::string::npos) << entry.path();
    const Lab& lab = FindLab(t.lab);
    LabArgs args = ResolveLabArgs(lab, t.variant, t.params);
    std::vector<std::string> differs = ScenarioAsTorchProgram(lab.build(args)).differs;
    // Where the lab says what PyTorch does instead, that is what must hold.
    if (lab.torch_expectations && !lab.torch_expectations(args).empty()) differs.clear();
    EXPECT_EQ(ScenarioToJson(t.scenario), ScenarioToJson(lab.build(args))) << entry.path() << ": the lab's own ops";
    for (const Expectation& e : ExpectationsFor(lab, args, Backend::kTorch)) {
      CheckResult r = e.check(t);
      if (r.pass) ++held;
      else if (!differs.empty()) ++differ;
      else ADD_FAILURE() << entry.path() << ": " << e.claim << " (" << r.measured << ")";
    }
    (void)Analyze(t);  // the analyzer reads a PyTorch run like any other
  }
  std::printf("PyTorch fixtures: %d variants, %d claims hold, %d differ for a named reason\n", files, held, differ);
  EXPECT_GE(files, 66);
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

TEST(TorchTexts, ALabWithPyTorchClaimsSaysWhatPyTorchDoesInBothLanguages) {
  int labs = 0;
  for (const Lab& lab : AllLabs()) {
    // A lab says what PyTorch does where it has PyTorch claims, where PyTorch runs it as
    // several processes (torchrun), and where its PyTorch program is written by hand: the
    // lab's one program is not what runs there.
    bool claims = false, torchrun = false;
    for (const std::string& v : lab.variants) {
      LabArgs args = ResolveLabArgs(lab, v, {});
      claims = claims || (lab.torch_expectations && !lab.torch_expectations(args).empty());
      Scenario s = lab.build(args);
      torchrun = torchrun || ScenarioAsTorchProgram(s).processes > 1 || !s.torch_source.empty();
    }
    for (const std::string& lang : LabLanguages()) {
      std::string text = LoadLabText(lab.id, lang).pytorch;
      EXPECT_EQ(claims || torchrun, !text.empty()) << lab.id << " (" << lang << ")";
    }
    labs += claims || torchrun;
  }
  EXPECT_EQ(labs, 15);
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

// What a PyTorch program saved (one file of bytes per checked storage) is checked like a
// CUDA run's read-back; a storage it did not save (or saved short) is a note, not a check.
TEST(TorchContents, SavedBytesAreComparedWithProgramOrder) {
  const Lab& lab = FindLab("w3-record-stream-hazard");
  Scenario s = lab.build(ResolveLabArgs(lab, "hazard", {}));
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "streamlab-contents-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto save = [&](int buffer, uint32_t value, size_t elements) {
    std::vector<uint32_t> v(elements, value);
    std::ofstream(dir / (std::to_string(buffer) + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  };
  save(1, 0x07070708u, 65536);  // out: read_x saw the reused block's memset
  std::vector<TraceNote> notes;
  std::vector<BufferCheck> checks = SavedContentsChecks(s, dir.string(), notes);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].buffer, "out");
  EXPECT_FALSE(checks[0].ok);
  EXPECT_EQ(checks[0].actual, "65536 of 65536 elements differ (the first is 117901064)");
  ASSERT_EQ(notes.size(), 1u);  // x was not saved
  EXPECT_NE(notes[0].text.find("buffer x"), std::string::npos);
  save(0, 0x07070707u, 65536);
  save(1, 2u, 100);  // short: not checked
  notes.clear();
  checks = SavedContentsChecks(s, dir.string(), notes);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].buffer, "x");
  EXPECT_TRUE(checks[0].ok) << checks[0].actual;
  EXPECT_EQ(notes.size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace streamlab
