// Resolving a lab id or scenario file into a Scenario.
#include "app/runner/run_target.h"

#include <cstdlib>

#include "engine/util/errors.h"
#include "engine/scenario/scenario_json.h"
#include "engine/trace/trace.h"
#include "labs/catalogue.h"

namespace streamlab {

RunTarget ResolveRunTarget(const std::string& name, const std::string& variant,
                           const std::map<std::string, double>& params) {
  RunTarget target;
  bool is_file = name.find('/') != std::string::npos ||
                 (name.size() > 5 && name.substr(name.size() - 5) == ".json");
  if (is_file) {
    if (!variant.empty() || !params.empty())
      throw InputError("--variant and --param apply to labs, not to scenario files");
    target.scenario = LoadScenarioFile(name);
    return target;
  }
  target.lab = &FindLab(name);
  target.args = ResolveLabArgs(*target.lab, variant, params);
  target.scenario = target.lab->build(target.args);
  return target;
}

std::map<std::string, double> ParseParams(const std::vector<std::string>& assignments) {
  std::map<std::string, double> params;
  for (const std::string& a : assignments) {
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--param \"" + a + "\": expected name=value");
    std::string value = a.substr(eq + 1);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end == nullptr || *end != '\0')
      throw InputError("--param \"" + a + "\": value is not a number");
    params[a.substr(0, eq)] = v;
  }
  return params;
}

void LabelTrace(const RunTarget& target, Trace& trace) {
  if (!target.lab) return;
  trace.lab = target.lab->id;
  trace.variant = target.args.variant;
  trace.params = target.args.params;
}

}  // namespace streamlab
