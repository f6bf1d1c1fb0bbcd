// The scenario as the program a student would write: CUDA C++ runtime calls, and the
// PyTorch equivalent (torch.cuda.Stream / Event / wait_stream ...). Shown in the GUI's
// Code tab so the chart can be read against the program that produced it.
#pragma once

#include <string>

#include "engine/scenario/scenario.h"

namespace streamlab {

std::string ScenarioAsCuda(const Scenario& scenario);
std::string ScenarioAsPyTorch(const Scenario& scenario);

}  // namespace streamlab
