// Calibration: the simulator's profile measured on a GPU. A handful of small scenarios run
// on the CUDA executor - the same instrumented calls the labs make - and each figure the
// simulator uses is read off their traces the way the simulator applies it (a launch's
// host time, the gap between back-to-back kernels, a copy's duration against its bytes,
// ...). The same scenarios run on the simulator give back the profile it ran with, which is
// how the fit itself is tested without a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/sim/device_profile.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct CalibrationRun {
  std::string name;  // "calls", "copies", ...
  Scenario scenario;
  // The op ids each figure is read from, by role ("launch", "record", "h2d", ...).
  std::map<std::string, std::vector<int>> roles;
};

// The scenarios, for a GPU with `sm_count` SMs (read from a first run) and `devices` GPUs
// (peer bandwidth needs two).
std::vector<CalibrationRun> CalibrationRuns(int sm_count, int devices);

struct CalibratedFigure {
  std::string field;    // the profile's JSON key
  double value = 0;     // in the field's unit (ns, GB/s, count)
  double base = 0;      // the profile it started from
  std::string how;      // what it was read from
};

struct Calibration {
  DeviceProfile profile;
  std::vector<CalibratedFigure> figures;
  std::vector<std::string> kept;  // fields no run measures (kept from the base profile)
};

// Reads every figure off the runs' traces (same order as `runs`); figures a run did not
// produce (no second GPU) keep `base`'s value. Throws RunError if a trace lacks an op.
Calibration FitProfile(const std::vector<CalibrationRun>& runs, const std::vector<Trace>& traces,
                       const DeviceProfile& base);

}  // namespace streamlab
