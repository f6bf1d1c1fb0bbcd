// What a lab is: an id and place in the course, its parameters and variants, a function
// from (variant, parameters) to the Scenario it runs, and its expectations - the lab's
// claims about the GPU, checked on the trace of every run (simulated or real).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/trace/backend.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct LabParam {
  std::string name;
  double min = 0;
  double max = 0;
  double fallback = 0;  // the default
  std::string unit;     // "us", "blocks", "streams", ...
};

struct LabArgs {
  std::string variant;
  std::map<std::string, double> params;
  // The parameter's value; throws std::out_of_range for a name the lab did not declare.
  double operator[](const std::string& name) const { return params.at(name); }
};

struct CheckResult {
  bool pass = false;
  std::string measured;  // the figure behind the verdict, e.g. "overlap 97%"
};

struct Expectation {
  std::string claim;  // e.g. "k_legacy starts after k_s1 ends"
  std::function<CheckResult(const Trace&)> check;
};

struct Lab {
  std::string id;
  int week = 1;
  int order = 0;
  int devices = 1;  // the fewest GPUs any variant needs
  std::vector<std::string> variants;
  // Variants that need more GPUs than `devices` (e.g. "overlapped-4gpu" -> 4).
  std::map<std::string, int> variant_devices;
  std::vector<LabParam> params;
  std::function<Scenario(const LabArgs&)> build;
  std::function<std::vector<Expectation>(const LabArgs&)> expectations;
  // What a variant does instead when run as a PyTorch program (--backend torch) where
  // PyTorch cannot do what the lab's program does (engine/scenario/torch_program.h says
  // why), measured on an H100; empty (or unset): the lab's own claims hold in PyTorch too.
  std::function<std::vector<Expectation>(const LabArgs&)> torch_expectations;
};

// The claims a run on `backend` is checked against: in PyTorch, a variant's PyTorch claims
// where it has them; otherwise the lab's own.
std::vector<Expectation> ExpectationsFor(const Lab& lab, const LabArgs& args, Backend backend);

// How many GPUs a variant of the lab runs on.
int DevicesFor(const Lab& lab, const std::string& variant);

// Fills in defaults and checks variant and parameter names and ranges (InputError).
LabArgs ResolveLabArgs(const Lab& lab, const std::string& variant,
                       const std::map<std::string, double>& overrides);

// Common expectation shapes, so a lab states its claims in one line each.
Expectation StartsAfterEnd(const std::string& later, const std::string& earlier);
// `first` ends before `second` does (the claim says what that shows, e.g. a race's read came
// first); measured as how long before.
Expectation EndsBeforeEnd(const std::string& first, const std::string& second, const std::string& claim);
Expectation OverlapAtLeast(const std::string& a, const std::string& b, double fraction);
Expectation OverlapAtMost(const std::string& a, const std::string& b, double fraction);
// GPU time (first GPU start to last end) satisfies `ok`; the claim says how.
Expectation GpuTime(const std::string& claim, std::function<bool(TimeNs)> ok);
// The analyzer's speed-up (serial time / GPU time) is at least / below a bound.
Expectation SpeedupAtLeast(double bound);
Expectation SpeedupBelow(double bound);
// After the run, the buffer holds what program order gives / something else (a race's
// wrong result), compared element by element on a GPU (engine/sim/buffer_contents.h).
Expectation ContentsCorrect(const std::string& buffer);
Expectation ContentsWrong(const std::string& buffer);
// The analyzer finds exactly `count` data races (unordered accesses to one buffer's memory).
Expectation RacesFlagged(int count);

}  // namespace streamlab
