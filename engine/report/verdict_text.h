// The verdict in words (assets/analyzer.json's "verdict.*" templates, English and Chinese): at
// most ten lines that open `explain` on a program and the GUI's findings panel.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/findings_text.h"
#include "engine/verdict/verdict.h"

namespace streamlab {

// The most lines the verdict takes, and the fixes it names.
inline constexpr size_t kVerdictLines = 10;
inline constexpr size_t kVerdictFixes = 5;

std::vector<std::string> RenderVerdict(const FindingTexts& texts, const Trace& trace, const Verdict& verdict);
// One fix's sentence (without its number).
std::string RenderFix(const FindingTexts& texts, const Trace& trace, const Verdict& verdict, const VerdictFix& fix);
// The template keys the verdict uses (FindingTexts::Keys includes them).
const std::vector<std::string>& VerdictTextKeys();

}  // namespace streamlab
