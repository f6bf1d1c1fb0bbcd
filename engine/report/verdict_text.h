// The verdict in words (assets/analyzer.json's "verdict.*" templates, English and Chinese): at
// most ten lines that open `explain` on a program and the GUI's answer panel. A race whose write
// side is known comes first; then what bounds the step, where the step's time went (the
// account), the fixes by their time a step, and the one-off costs.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/findings_text.h"
#include "engine/verdict/verdict.h"

namespace streamlab {

// The most lines the verdict takes, and the fixes it names.
inline constexpr size_t kVerdictLines = 10;
inline constexpr size_t kVerdictFixes = 5;

std::vector<std::string> RenderVerdict(const FindingTexts& texts, const Trace& trace, const ProgramVerdict& verdict);
// One fix's sentence (without its number). `fix` is one of `verdict.fixes` itself, not a copy:
// a sentence said once per verdict goes with the first fix it fits.
std::string RenderFix(const FindingTexts& texts, const Trace& trace, const Verdict& verdict, const VerdictFix& fix);
// Where a step's time went, as one line ("GPU compute 45 %, launching 30 %, ...").
std::string RenderAccount(const FindingTexts& texts, const Verdict& verdict);
// A category's and a kind's name in this language.
std::string CategoryName(const FindingTexts& texts, TimeCategory category);
std::string KindName(const FindingTexts& texts, TimeKind kind);
// The template keys the verdict uses (a test holds both languages to them).
const std::vector<std::string>& VerdictTextKeys();

}  // namespace streamlab
