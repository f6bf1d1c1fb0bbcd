// The scenario as the program a student would write: CUDA C++ runtime calls, and the
// PyTorch equivalent (torch.cuda.Stream / Event / wait_stream ...). Shown in the GUI's
// Code tab so the chart can be read against the program that produced it.
#pragma once

#include <string>

#include "engine/scenario/scenario.h"

namespace streamlab {

std::string ScenarioAsCuda(const Scenario& scenario);
// The runnable PyTorch program (engine/scenario/torch_program.h): what the Code tab shows is
// what `--backend torch` runs.
std::string ScenarioAsPyTorch(const Scenario& scenario);
// A name as a C++/Python identifier.
std::string CodeIdent(const std::string& name);

}  // namespace streamlab
