// A program comparison (engine/analysis/compare_programs.h) as JSON: what `compare --json`
// prints, and, for one trace described per step, `explain --json --per NAME`'s "per_step".
#pragma once

#include "engine/analysis/findings_text.h"
#include "engine/analysis/compare_programs.h"
#include "engine/util/json_reader.h"

namespace streamlab {

// Figures, places and findings with their times in ns; one trace's (c.single) without the
// second run's fields.
Json ComparisonJson(const ProgramComparison& c, const FindingTexts& texts);

}  // namespace streamlab
