// The simulator against real-GPU traces: for each trace in a folder (one per lab variant,
// captured with `streamlab-cli run LAB --variant V --backend cuda --out ...`), the same
// scenario runs on the simulator with a profile, and the worst error of any GPU op's start or
// end (both timelines from the host's first call) is reported as a share of the GPU's time.
// A variant is within when that share is at most 10 % or the error at most 10 us. Runs with
// several host threads are not deterministic (the threads start in any order): for those,
// the GPU times are compared and the lab's claims checked on the simulated run instead.
//
//   sim_fidelity tests/fixtures/gpu-h100 --profile h100 [--min-share 0.95] [--markdown]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/sim/device_profile.h"
#include "engine/sim/sim_executor.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

using namespace streamlab;

namespace {

struct Row {
  std::string variant;
  double gpu_us = 0, sim_us = 0, worst_us = 0, share = 0;
  bool totals_only = false, within = false;
  std::string note;
};

Row Compare(const Trace& gpu, const DeviceProfile& profile) {
  Row row;
  row.variant = gpu.lab.empty() ? gpu.scenario.name : gpu.lab + "/" + gpu.variant;
  Trace sim = SimExecutor(profile).Run(gpu.scenario, RunOptions{});
  TimeNs g0 = TraceBegin(gpu), s0 = TraceBegin(sim);
  TimeNs worst = 0;
  for (size_t i = 0; i < gpu.ops.size() && i < sim.ops.size(); ++i) {
    if (!gpu.ops[i].gpu || gpu.ops[i].end <= gpu.ops[i].start) continue;
    // An NCCL part's start on a GPU is its ready event (its kernel reads no timer): compare
    // the simulator's ready edge with it, not the simulated time its blocks got SMs.
    bool collective = gpu.scenario.ops[i].kind == OpKind::kCollective;
    TimeNs sim_start = collective ? sim.ops[i].ready : sim.ops[i].start;
    worst = std::max({worst, std::abs((gpu.ops[i].start - g0) - (sim_start - s0)),
                      std::abs((gpu.ops[i].end - g0) - (sim.ops[i].end - s0))});
  }
  double g = static_cast<double>(GpuMakespan(gpu)), s = static_cast<double>(GpuMakespan(sim));
  row.gpu_us = g / 1e3;
  row.sim_us = s / 1e3;
  row.totals_only = ThreadCount(gpu.scenario) > 1;
  if (row.totals_only) {
    // The GPU time, and the lab's claims on the simulated run.
    row.worst_us = std::abs(g - s) / 1e3;
    row.share = g > 0 ? std::abs(g - s) / g : 0;
    bool claims = true;
    if (!gpu.lab.empty()) {
      const Lab& lab = FindLab(gpu.lab);
      for (const Expectation& e : lab.expectations(ResolveLabArgs(lab, gpu.variant, gpu.params))) claims = claims && e.check(sim).pass;
    }
    row.within = (row.share <= 0.10 || row.worst_us <= 10) && claims;
    row.note = claims ? "host threads: GPU time and claims" : "host threads: a claim fails on the simulator";
  } else {
    row.worst_us = static_cast<double>(worst) / 1e3;
    row.share = g > 0 ? static_cast<double>(worst) / g : 0;
    row.within = row.share <= 0.10 || row.worst_us <= 10;
  }
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, profile_name;
  double min_share = 0;
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--profile" && i + 1 < argc) profile_name = argv[++i];
    else if (a == "--min-share" && i + 1 < argc) min_share = std::atof(argv[++i]);
    else if (a == "--markdown") markdown = true;
    else if (dir.empty() && a[0] != '-') dir = a;
    else {
      std::fprintf(stderr, "usage: sim_fidelity DIR [--profile NAME|FILE] [--min-share F] [--markdown]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "usage: sim_fidelity DIR [--profile NAME|FILE] [--min-share F] [--markdown]\n");
    return 2;
  }
  try {
    DeviceProfile profile = ResolveProfile(profile_name);
    std::vector<std::string> paths;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
    std::sort(paths.begin(), paths.end());
    std::vector<Row> rows;
    std::string device;
    for (const std::string& p : paths) {
      Trace gpu = LoadTraceFile(p);
      if (device.empty()) device = gpu.device_name;
      rows.push_back(Compare(gpu, profile));
    }
    int within = 0;
    for (const Row& r : rows) within += r.within;
    std::printf("GPU traces: %s (%s), %zu variants; simulator profile: %s\n", dir.c_str(), device.c_str(), rows.size(),
                profile.name.c_str());
    if (markdown) std::printf("| variant | GPU | simulator | worst edge error | of GPU time | |\n| --- | ---: | ---: | ---: | ---: | --- |\n");
    for (const Row& r : rows) {
      const char* verdict = r.within ? "within" : "OFF";
      if (markdown)
        std::printf("| `%s` | %.0f us | %.0f us | %.1f us | %.1f %% | %s%s%s |\n", r.variant.c_str(), r.gpu_us, r.sim_us,
                    r.worst_us, 100 * r.share, verdict, r.note.empty() ? "" : "; ", r.note.c_str());
      else
        std::printf("%-52s gpu %9.0f us  sim %9.0f us  worst %8.1f us  %5.1f %%  %s %s\n", r.variant.c_str(), r.gpu_us,
                    r.sim_us, r.worst_us, 100 * r.share, verdict, r.note.c_str());
    }
    double share = rows.empty() ? 0 : static_cast<double>(within) / static_cast<double>(rows.size());
    std::printf("%d of %zu variants within 10 %% (or 10 us): %.1f %%\n", within, rows.size(), 100 * share);
    if (share < min_share) {
      std::printf("below the required %.1f %%\n", 100 * min_share);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_fidelity: %s\n", e.what());
    return 2;
  }
  return 0;
}
