// Scenario <-> JSON. Ops name their streams, events and buffers by name so the file is
// easy to write by hand; the schema version is checked on load.
#pragma once

#include <string>

#include "engine/util/json_reader.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

Json ScenarioToJson(const Scenario& scenario);
// Throws InputError with the source and the JSON path of the first problem.
Scenario ScenarioFromJson(const Json& json, const std::string& source);
Scenario LoadScenarioFile(const std::string& path);
void SaveJsonFile(const Json& json, const std::string& path);

}  // namespace streamlab
