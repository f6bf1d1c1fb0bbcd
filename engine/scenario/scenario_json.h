// Scenario <-> JSON. Ops name their streams, events and buffers by name so the file is
// easy to write by hand; the schema version is checked on load.
#pragma once

#include <functional>
#include <string>

#include "engine/util/json_reader.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

Json ScenarioToJson(const Scenario& scenario);
// Throws InputError with the source and the JSON path of the first problem.
Scenario ScenarioFromJson(const Json& json, const std::string& source);
// Calls `each` with every op of a scenario, in order, as a reader whose path is "ops[i]".
using ScenarioOpSource = std::function<void(const std::function<void(const JsonReader& op)>& each)>;
// ScenarioFromJson for a scenario whose ops are read one at a time, not held in `json` (a saved
// trace's scenario: trace_json.cpp reads its ops from the file's text as they are converted).
// Any "ops" in `json` itself is not read.
Scenario ScenarioFromJsonAndOps(const Json& json, const std::string& source, const ScenarioOpSource& ops);
Scenario LoadScenarioFile(const std::string& path);
void SaveJsonFile(const Json& json, const std::string& path);

}  // namespace streamlab
