// How long the analyzer takes on a large run: a synthetic training loop (an input upload, a
// forward/backward chain of kernels, gradients on a side stream, a loss read back with a
// host sync, host work) repeated until the scenario has N ops. It is run on the simulator,
// then analysed, grouped and rendered. Prints the times and the ratio analysis / simulation,
// the measure that stays put on a noisy machine; exits 1 if a limit given is exceeded.
//   analyze_scale [--ops N] [--max-seconds S] [--max-ratio R] [--out trace.json] [--no-sync]
// (--out saves the simulated trace, e.g. for the GUI test that opens a large run; --no-sync
// leaves out the per-step loss read, so one chain of work - the critical path - runs
// through the whole run.)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/finding_groups.h"
#include "engine/analysis/findings_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace_json.h"

namespace streamlab {
namespace {

Scenario TrainingLoop(size_t max_ops, bool sync) {
  ScenarioBuilder b("analyze-scale");
  Stream copy = b.CreateStream("copy", {.non_blocking = true});
  Stream compute = b.CreateStream("compute");
  Stream comm = b.CreateStream("comm", {.non_blocking = true, .priority = -1});
  Event in = b.CreateEvent("input_ready"), grads = b.CreateEvent("grads_ready"), reduced = b.CreateEvent("reduced");
  Buffer host_in = b.PinnedBuffer("batch_pinned", 1 << 20), dev_in = b.DeviceBuffer("batch", 1 << 20);
  Buffer act = b.DeviceBuffer("activations", 16 << 20), grad = b.DeviceBuffer("grads", 16 << 20);
  Buffer loss = b.DeviceBuffer("loss", 4), host_loss = b.PageableBuffer("loss_host", 4);
  const size_t per_step = 52;
  for (int step = 0; (step + 1) * per_step <= max_ops; ++step) {
    std::string s = "step" + std::to_string(step);
    copy.Copy(s + ".upload", dev_in, host_in, 1 << 20);
    copy.Record(in);
    compute.Wait(in);
    compute.Wait(reduced);
    for (int k = 0; k < 20; ++k) compute.Launch(s + ".fwd" + std::to_string(k), Spin(Us(15)), {dev_in}, {act});
    for (int k = 0; k < 20; ++k) compute.Launch(s + ".bwd" + std::to_string(k), Spin(Us(20)), {act}, {grad});
    compute.Record(grads);
    comm.Wait(grads);
    comm.Launch(s + ".allreduce", Spin(Us(60)), {grad}, {grad});
    comm.Record(reduced);
    compute.Launch(s + ".loss", Spin(Us(5)), {act}, {loss});
    if (sync) {
      compute.Copy(s + ".loss.item()", host_loss, loss, 4);
      compute.Synchronize();
    } else {
      compute.Launch(s + ".metrics", Spin(Us(5)), {loss}, {loss});
      compute.Launch(s + ".log", Spin(Us(5)), {loss}, {loss});
    }
    b.host().Work(s + ".python", Us(30));
  }
  return b.Build();
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Main(int argc, char** argv) {
  size_t ops = 100000;
  double max_seconds = 0, max_ratio = 0;
  std::string out;
  bool sync = true;
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--no-sync") {
      sync = false;
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "analyze_scale: %s needs a value\n", argv[i]);
      return 2;
    }
    if (flag == "--ops") ops = std::strtoul(argv[i + 1], nullptr, 10);
    else if (flag == "--max-seconds") max_seconds = std::atof(argv[i + 1]);
    else if (flag == "--max-ratio") max_ratio = std::atof(argv[i + 1]);
    else if (flag == "--out") out = argv[i + 1];
    else {
      std::fprintf(stderr, "analyze_scale: unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  if (ops > kMaxScenarioOps) {
    std::fprintf(stderr, "analyze_scale: --ops %zu: a scenario holds at most %zu ops\n", ops, kMaxScenarioOps);
    return 2;
  }
  Scenario scenario = TrainingLoop(ops, sync);
  auto t0 = std::chrono::steady_clock::now();
  Trace trace = SimExecutor(DeviceProfile{}).Run(scenario, RunOptions{});
  double sim = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  Analysis analysis = Analyze(trace);
  double analyze = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  FindingTexts texts = FindingTexts::Load("en");
  std::vector<FindingGroup> groups = GroupFindings(trace, analysis, false);
  size_t chars = texts.RenderFigures(trace, analysis.figures).size();
  for (const FindingGroup& g : groups) {
    chars += RenderGroupHeader(texts, g).size();
    for (size_t k = 0; k < std::min(g.members.size(), kGroupShown); ++k)
      chars += texts.Render(trace, analysis.findings[g.members[k]]).size();
  }
  double render = Seconds(t0);
  double ratio = (analyze + render) / sim;
  std::printf("ops %zu  findings %zu in %zu groups%s\n", trace.ops.size(), analysis.findings.size(), groups.size(),
              analysis.summarised_only ? "  (summarised only!)" : "");
  std::printf("simulate %.3f s  analyze %.3f s  group+render %.3f s (%zu chars)  ratio (analyze+render)/simulate %.2f\n",
              sim, analyze, render, chars, ratio);
  std::string figures = texts.RenderFigures(trace, analysis.figures);
  std::printf("%s\n", figures.substr(0, figures.find("\nCritical path")).c_str());
  for (const FindingGroup& g : groups)
    std::printf("  %zu x %s: %s\n", g.members.size(), g.pattern.c_str(), texts.Render(trace, analysis.findings[g.members.front()]).substr(0, 160).c_str());
  bool ok = !analysis.summarised_only;
  if (!out.empty()) {
    std::ofstream file(out);
    file << TraceToJson(trace).dump();
    ok = ok && static_cast<bool>(file);
  }
  if (max_seconds > 0 && analyze + render > max_seconds) {
    std::printf("FAIL: analysis took %.3f s, more than %.3f s\n", analyze + render, max_seconds);
    ok = false;
  }
  if (max_ratio > 0 && ratio > max_ratio) {
    std::printf("FAIL: ratio %.2f is above %.2f\n", ratio, max_ratio);
    ok = false;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace streamlab

int main(int argc, char** argv) { return streamlab::Main(argc, argv); }
