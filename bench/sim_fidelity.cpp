// The simulator against real-GPU traces: for each trace in a folder (one per lab variant,
// captured with `streamlab-cli run LAB --variant V --backend cuda --out ...`), the same
// scenario runs on the simulator with a profile, and the worst error of any GPU op's start or
// end (both timelines from the host's first call) is reported as a share of the GPU's time.
// A variant is within when that share is at most 10 % or the error at most 10 us. Runs with
// several host threads are not deterministic (the threads start in any order): for those,
// the GPU times are compared and the lab's claims checked on the simulated run instead.
// Several folders (captures of one machine start, repeated): each variant's run with the
// median GPU time stands for it, as the host's speed drifts between processes.
// A profile with ranges (figures that vary between machine starts) also predicts the GPU
// time at both ends; a variant off at the point is "in range" when its GPU time lies
// between those ends (within the same tolerance).
//
//   sim_fidelity DIR... --profile h100 [--min-share 0.95] [--min-point-share 0.9] [--markdown]
// --min-share: within, or in range; --min-point-share: within at the point figures.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/sim/device_profile.h"
#include "engine/sim/profile_ranges.h"
#include "engine/sim/sim_executor.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/trace/trace_query.h"
#include "engine/util/plain_file.h"
#include "labs/catalogue.h"

using namespace streamlab;

namespace {

struct Row {
  std::string variant;
  double gpu_us = 0, sim_us = 0, worst_us = 0, share = 0;
  double fast_us = 0, slow_us = 0;  // the GPU time at the ends of the profile's ranges
  bool totals_only = false, within = false, in_range = false;
  std::string note;
};

bool Close(double measured, double predicted) {
  double error = std::abs(measured - predicted);
  return error <= 10 || (measured > 0 && error / measured <= 0.10);
}

// The GPU time at both ends of the profile's ranges; in range if the measured one lies
// between them, give or take the tolerance.
void CheckRange(const Trace& gpu, const DeviceProfile& profile, Row& row) {
  if (profile.ranges.empty()) return;
  auto gpu_us = [&](RangeBound b) {
    Trace t = SimExecutor(ProfileAtBound(profile, b)).Run(gpu.scenario, RunOptions{});
    return static_cast<double>(GpuMakespan(t)) / 1e3;
  };
  row.fast_us = gpu_us(RangeBound::kFast);
  row.slow_us = gpu_us(RangeBound::kSlow);
  double lo = std::min(row.fast_us, row.slow_us), hi = std::max(row.fast_us, row.slow_us);
  row.in_range = (row.gpu_us >= lo && row.gpu_us <= hi) || Close(row.gpu_us, lo) || Close(row.gpu_us, hi);
}

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
  if (!row.within) CheckRange(gpu, profile, row);
  return row;
}

// Each variant's traces across the folders; the one with the median GPU time stands for it.
std::vector<Trace> MedianRuns(const std::vector<std::string>& dirs) {
  std::map<std::string, std::vector<Trace>> runs;
  for (const std::string& dir : dirs) {
    std::vector<std::string> paths;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (IsJsonFileName(entry.path().string())) paths.push_back(entry.path().string());
    for (const std::string& p : paths) {
      Trace t = LoadTraceFile(p);
      std::string key = t.lab.empty() ? t.scenario.name : t.lab + "/" + t.variant;
      runs[key].push_back(std::move(t));
    }
  }
  std::vector<Trace> chosen;
  for (auto& [key, traces] : runs) {
    std::sort(traces.begin(), traces.end(), [](const Trace& a, const Trace& b) { return GpuMakespan(a) < GpuMakespan(b); });
    chosen.push_back(std::move(traces[(traces.size() - 1) / 2]));
  }
  return chosen;
}

}  // namespace

void PrintRow(const Row& r, bool markdown) {
  const char* verdict = r.within ? "within" : r.in_range ? "in range" : "OFF";
  char range[64] = "";
  if (r.fast_us > 0) std::snprintf(range, sizeof range, "%.0f-%.0f us", std::min(r.fast_us, r.slow_us), std::max(r.fast_us, r.slow_us));
  if (markdown)
    std::printf("| `%s` | %.0f us | %.0f us | %s | %.1f us | %.1f %% | %s%s%s |\n", r.variant.c_str(), r.gpu_us, r.sim_us,
                range, r.worst_us, 100 * r.share, verdict, r.note.empty() ? "" : "; ", r.note.c_str());
  else
    std::printf("%-52s gpu %9.0f us  sim %9.0f us  %-18s worst %8.1f us  %5.1f %%  %s %s\n", r.variant.c_str(), r.gpu_us,
                r.sim_us, range, r.worst_us, 100 * r.share, verdict, r.note.c_str());
}

int Usage() {
  std::fprintf(stderr, "usage: sim_fidelity DIR... [--profile NAME|FILE] [--min-share F] [--min-point-share F] [--markdown]\n");
  return 2;
}

int main(int argc, char** argv) {
  std::vector<std::string> dirs;
  std::string profile_name;
  double min_share = 0, min_point_share = 0;
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--profile" && i + 1 < argc) profile_name = argv[++i];
    else if (a == "--min-share" && i + 1 < argc) min_share = std::atof(argv[++i]);
    else if (a == "--min-point-share" && i + 1 < argc) min_point_share = std::atof(argv[++i]);
    else if (a == "--markdown") markdown = true;
    else if (!a.empty() && a[0] != '-') dirs.push_back(a);
    else return Usage();
  }
  if (dirs.empty()) return Usage();
  try {
    DeviceProfile profile = ResolveProfile(profile_name);
    std::vector<Row> rows;
    std::string device;
    for (const Trace& gpu : MedianRuns(dirs)) {
      if (device.empty()) device = gpu.device_name;
      rows.push_back(Compare(gpu, profile));
    }
    int within = 0, in_range = 0;
    for (const Row& r : rows) {
      within += r.within;
      in_range += r.within || r.in_range;
    }
    std::string names;
    for (const std::string& d : dirs) names += (names.empty() ? "" : ", ") + d;
    std::printf("GPU traces: %s (%s), %zu variants%s; simulator profile: %s\n", names.c_str(), device.c_str(), rows.size(),
                dirs.size() > 1 ? " (each the run with the median GPU time)" : "", profile.name.c_str());
    if (markdown)
      std::printf("| variant | GPU | simulator | range | worst edge error | of GPU time | |\n"
                  "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (const Row& r : rows) PrintRow(r, markdown);
    double n = rows.empty() ? 1 : static_cast<double>(rows.size());
    std::printf("%d of %zu variants within 10 %% (or 10 us): %.1f %%\n", within, rows.size(), 100 * within / n);
    if (!profile.ranges.empty())
      std::printf("%d of %zu within or inside the predicted range (%s): %.1f %%\n", in_range, rows.size(),
                  profile.ranges_from.c_str(), 100 * in_range / n);
    if (in_range / n < min_share || within / n < min_point_share) {
      std::printf("below the required %.1f %% (%.1f %% at the point)\n", 100 * min_share, 100 * min_point_share);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sim_fidelity: %s\n", e.what());
    return 2;
  }
  return 0;
}
