// The verdict (engine/analysis/verdict.h) as JSON: `explain --json`'s "verdict", which the
// corpus check (tests/corpus/check_corpus.py) and scripts read.
#pragma once

#include "engine/analysis/findings_text.h"
#include "engine/analysis/verdict.h"
#include "engine/util/json_reader.h"

namespace streamlab {

// Times in ns; `sites` as SiteJson writes them; "text" the lines explain prints.
Json VerdictJson(const Verdict& v, const Trace& trace, const FindingTexts& texts, Json (*site_json)(const ProgramSite&));

}  // namespace streamlab
