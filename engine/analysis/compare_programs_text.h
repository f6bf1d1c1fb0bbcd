// A comparison of two traces of one program (compare_programs.h) in words, line by line, in the
// texts' language: what `streamlab-cli compare` prints and the GUI's compare view shows.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/findings_text.h"
#include "engine/analysis/compare_programs.h"

namespace streamlab {

// `label_a`, `label_b`: how each trace is named (e.g. its file). A line's leading spaces
// indent it under the one before.
std::vector<std::string> RenderProgramComparison(const ProgramComparison& c, const FindingTexts& texts,
                                                 const std::string& label_a, const std::string& label_b,
                                                 const std::string& backend_a, const std::string& backend_b);

// One trace's steps (DescribeSteps): its figures per step, where the host was in its own work,
// and its findings per step, largest first (what `explain --per NAME` prints after the findings).
std::vector<std::string> RenderStepReport(const ProgramComparison& c, const FindingTexts& texts);

}  // namespace streamlab
