// The verdict (engine/verdict/verdict.h) as JSON: `explain --json`'s "verdict", which the
// corpus check (tests/corpus/check_corpus.py) and scripts read.
#pragma once

#include "engine/analysis/findings_text.h"
#include "engine/account/account.h"
#include "engine/verdict/verdict.h"
#include "engine/util/json_reader.h"

namespace streamlab {

// Times in ns; `sites` as SiteJson writes them; "text" the lines explain prints.
Json VerdictJson(const ProgramVerdict& v, const Trace& trace, const FindingTexts& texts, Json (*site_json)(const ProgramSite&));

// The account of each process's steady step: each category's and kind's time per step (ns), and
// the walked steps' windows.
Json AccountJson(const ProgramAccount& account);

}  // namespace streamlab
