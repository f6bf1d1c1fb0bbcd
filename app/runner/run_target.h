// What `run` and `verify` run: a lab (with variant and parameters) or a scenario file.
#pragma once

#include <map>
#include <string>

#include "engine/classroom/lab.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

struct RunTarget {
  Scenario scenario;
  const Lab* lab = nullptr;  // null for a scenario file
  LabArgs args;
};

// `name` is a lab id, or a path to a scenario .json. Throws InputError.
RunTarget ResolveRunTarget(const std::string& name, const std::string& variant,
                           const std::map<std::string, double>& params);
// "k=v" strings to a map; throws InputError on a malformed one.
std::map<std::string, double> ParseParams(const std::vector<std::string>& assignments);
// Stamps lab, variant and parameters into a trace.
void LabelTrace(const RunTarget& target, struct Trace& trace);

}  // namespace streamlab
