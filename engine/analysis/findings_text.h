// Turns analyzer findings into sentences in Chinese or English, from the templates in
// assets/analyzer.json ("{op} waited {delay} behind {via} ..."). Every name and number in
// a sentence comes from the trace.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"

namespace streamlab {

// A wait that held nothing back in an imported trace that does not say where its event was
// recorded: whether it captured any work cannot be told, and its text says so.
bool WaitsRecordIsUnknown(const Trace& trace, const Finding& finding);

class FindingTexts {
 public:
  // Throws InputError if the language or any template is missing.
  static FindingTexts Load(const std::string& lang);
  std::string Render(const Trace& trace, const Finding& finding) const;
  // Where in the program a host call was made ("Made in step (train.py), inside aten::item.").
  // `within`: the words to go on a sentence ("made in ...", for a group's header).
  std::string RenderSite(const ProgramSite& site, bool within = false) const;
  // Where a host thread was, as a place ("in step (train.py), by way of __next__ (...)").
  std::string RenderPlace(const ProgramSite& site) const;
  // One-line summary of the figures.
  std::string RenderFigures(const Trace& trace, const Figures& figures) const;
  // The note shown when an analysis only has figures (a very large run).
  std::string RenderSummarised(const Trace& trace) const;
  // A trace's note in this language: its "note.<key>" template filled with its values, or
  // its English sentence (English, a free sentence, or a key these texts do not have).
  std::string RenderNote(const TraceNote& note) const;
  const std::string& Get(const std::string& key) const;
  bool Has(const std::string& key) const { return templates_.count(key) > 0; }
  // The template `key` with its {vars} filled.
  std::string Fill(const std::string& key, const std::map<std::string, std::string>& vars) const;
  // Every template key the renderer uses (tests check both languages have them all).
  static const std::vector<std::string>& Keys();

 private:
  using Vars = std::map<std::string, std::string>;
  std::string RenderBody(const Trace& trace, const Finding& finding) const;
  // One kind of finding each; `vars` holds the values every sentence may use.
  std::string RenderStartDelay(const Trace& trace, const Finding& finding, Vars& vars) const;
  std::string AlsoList(const Scenario& scenario, const Finding& finding) const;
  // A recorded program that is not Python (a CUDA C++ binary) gets a template's ".cpp" variant
  // where one exists: no PyTorch advice for it. Decided at each Render (not cached by the trace's
  // address: the GUI shows each new trace in the same place).
  void ChooseLanguageOf(const Trace& trace) const;
  mutable bool native_program_ = false;
  std::string RenderHostBlock(const Trace& trace, const Finding& finding, Vars& vars) const;
  std::string RenderWaitNothing(const Trace& trace, const Finding& finding, Vars& vars) const;
  std::string RenderDataRace(const Trace& trace, const Finding& finding, Vars& vars) const;
  std::string RenderAddressRace(const Trace& trace, const Finding& finding, Vars& vars) const;
  std::string RenderGpuIdle(const Trace& trace, const Finding& finding, Vars& vars) const;
  // A site's words from the template `at_key` ("Made in {frame}") on, without the full stop.
  std::string SiteWords(const ProgramSite& site, const char* at_key, const char* in_only_key) const;
  // "Where the host was in these gaps: 78% in step (train.py), ...; 12% in ...".
  std::string RenderPlaces(const Finding& finding) const;
  // Where the thread came back to CUDA after the gaps, when where it was is unknown.
  std::string RenderResumed(const Finding& finding) const;
  std::string RenderIdle(const Figures& figures) const;
  std::map<std::string, std::string> templates_;
  std::string lang_;
};

}  // namespace streamlab
