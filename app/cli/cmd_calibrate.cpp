// `streamlab-cli calibrate [--out profile.json]`: measures the simulator's profile on this
// machine's GPU (engine/sim/calibration.h). Each calibration scenario runs in a child
// process, like a GPU lab run; the figures are then fitted, printed next to the profile
// they replace, and written as a profile the simulator loads with --profile FILE.
// `--backend sim` calibrates the simulator itself (with --profile: that profile), which
// must give the profile back.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "app/cli/backend_choice.h"
#include "app/runner/run_on_backend.h"
#include "app/cli/commands.h"
#include "engine/scenario/scenario_json.h"
#include "engine/sim/calibration.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "kernels/cuda_backend.h"

namespace streamlab {
namespace {

Trace RunOnGpu(const CalibrateCommand& cmd, const CalibrationRun& run) {
  RunTarget target;
  target.scenario = run.scenario;
  RunSpec spec;
  spec.backend = Backend::kCuda;
  spec.timeout_s = 20;
  spec.cli = cmd.self;
  try {
    return RunOnBackend(target, spec).trace;
  } catch (const RunError& e) {
    throw RunError("calibration run " + run.name + " failed: " + e.what());
  }
}

std::string Today() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

}  // namespace

int CmdCalibrate(const CalibrateCommand& cmd) {
  Backend backend = BackendFlag(cmd.backend, {Backend::kCuda, Backend::kSim});
  DeviceProfile base = ResolveProfile(cmd.profile);
  std::vector<Trace> traces;
  std::vector<CalibrationRun> runs;
  std::string device, driver;
  if (backend == Backend::kCuda) {
    CudaProbe probe = ProbeCuda();
    if (!probe.usable) throw BackendError("no usable GPU: " + probe.reason);
    device = probe.device_name;
    driver = probe.driver;
    // The SM count sizes the occupancy runs: read it from the first run's trace.
    Trace first = RunOnGpu(cmd, CalibrationRuns(base.sm_count, 1).front());
    runs = CalibrationRuns(first.sm_count > 0 ? first.sm_count : base.sm_count, probe.device_count);
    traces.push_back(std::move(first));
    for (size_t i = 1; i < runs.size(); ++i) {
      std::cerr << "calibrate: " << runs[i].name << "\n";
      traces.push_back(RunOnGpu(cmd, runs[i]));
    }
  } else {
    device = base.name;
    driver = "simulator";
    runs = CalibrationRuns(base.sm_count, 2);
    for (const CalibrationRun& run : runs) traces.push_back(SimExecutor(base).Run(run.scenario, RunOptions{}));
  }
  if (!cmd.traces.empty()) {
    // The traces each figure was read from, so a figure can be checked against its run.
    std::filesystem::create_directories(cmd.traces);
    for (size_t i = 0; i < runs.size() && i < traces.size(); ++i)
      SaveJsonFile(TraceToJson(traces[i]), (std::filesystem::path(cmd.traces) / (runs[i].name + ".json")).string());
  }
  Calibration c = FitProfile(runs, traces, base);
  c.profile.device = device;
  c.profile.driver = driver;
  c.profile.calibrated_at = Today();
  c.profile.name = device + " (calibrated " + c.profile.calibrated_at + ", driver " + driver + ")";
  std::printf("%-24s %14s %14s  %s\n", "figure", "measured", "was", "read from");
  for (const CalibratedFigure& f : c.figures)
    std::printf("%-24s %14.6g %14.6g  %s\n", f.field.c_str(), f.value, f.base, f.how.c_str());
  for (const std::string& k : c.kept) std::printf("kept from the base profile: %s\n", k.c_str());
  std::printf("profile: %s\n", c.profile.name.c_str());
  if (!cmd.out.empty()) {
    SaveJsonFile(ProfileToJson(c.profile), cmd.out);
    std::printf("wrote %s (use it with --profile %s)\n", cmd.out.c_str(), cmd.out.c_str());
  }
  return kExitOk;
}

}  // namespace streamlab
