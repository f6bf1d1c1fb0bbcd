// `streamlab-cli whatif TRACE --fix ID...`: the recorded program replayed on the simulator with
// fixes made: a fix's number as `explain` lists it, or an edit by name (connections=N, kernels=F,
// the host's work before each call of a fix shortened with host-work=US). Prints the replayed step before
// and after; --out writes the predicted run as a trace (the GUI's Compare sets it beside the
// measured one).
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/replay_common.h"
#include "engine/analysis/analyzer.h"
#include "engine/explain/explain_program.h"
#include "engine/trace/trace_note.h"
#include "engine/analysis/findings_text.h"
#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/order_races.h"
#include "engine/whatif/whatif.h"

namespace streamlab {
namespace {

int ParseNumber(const std::string& text, const std::string& what) {
  size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 0) throw InputError("--fix " + what + ": expected a whole number, got \"" + text + "\"");
  return value;
}

struct ChosenEdit {
  std::string label;
  WhatIfEdit edit;
};

// "3" (fix 3 as explain lists it), "connections=N", "3:host-work=US" (fix 3's host work cut to US),
// "races" (every possible race the findings flag ordered by an event), "warm-up" (the loop's
// first, slower steps run once before it).
ChosenEdit ParseFix(const std::string& id, const Trace& t, const Analysis& a, const Verdict& v, const StepSplit& steps,
                     const CallPlaces& places) {
  if (id == "races") {
    WhatIfEdit e;
    e.kind = EditKind::kOrderRaces;
    for (const RacePair& p : FlaggedRaces(t, a)) e.calls.insert(e.calls.end(), {p.first, p.second});
    if (e.calls.empty()) throw InputError("--fix races: the findings flag no possible race in this trace");
    return {id + " (" + std::to_string(e.calls.size() / 2) + " flagged, each ordered by an event)", e};
  }
  if (id == "warm-up") {
    std::optional<WhatIfEdit> e = WarmUpEdit(t, steps, places);
    if (!e)
      throw InputError("--fix warm-up: no step before the steady ones is slower than they are (or the trace has no steps): "
                       "nothing for a warm-up to take out");
    return {id + " (the first " + std::to_string(steps.warmup) + " step(s) run once before the loop: their " +
                std::to_string(e->calls.size()) + " calls at a steady step's host time)",
            *e};
  }
  if (id.rfind("connections=", 0) == 0) {
    WhatIfEdit e;
    e.kind = EditKind::kConnections;
    e.connections = ParseNumber(id.substr(12), id);
    if (e.connections < 1 || e.connections > 32) throw InputError("--fix " + id + ": connections must be 1..32");
    return {id, e};
  }
  if (id.rfind("kernels=", 0) == 0) {
    WhatIfEdit e;
    e.kind = EditKind::kScaleKernels;
    char* end = nullptr;
    e.scale = std::strtod(id.c_str() + 8, &end);
    if (end == id.c_str() + 8 || *end != '\0' || !(e.scale > 0 && e.scale <= 10))
      throw InputError("--fix " + id + ": kernels= takes the share of their measured time the kernels take, 0 to 10 (0.5: twice as fast)");
    return {id + " (every kernel and memset at " + id.substr(8) + " of its measured time)", e};
  }
  std::string number = id, host_work;
  if (size_t colon = id.find(":host-work="); colon != std::string::npos) {
    number = id.substr(0, colon);
    host_work = id.substr(colon + 11);
  }
  int n = ParseNumber(number, id);
  if (n < 1 || n > static_cast<int>(v.fixes.size()))
    throw InputError("--fix " + id + ": the verdict lists " + std::to_string(v.fixes.size()) +
                     " fixes (streamlab-cli explain shows them)");
  const VerdictFix& fix = v.fixes[n - 1];
  std::optional<WhatIfEdit> e = EditForFix(t, places, fix);
  if (!e)
    throw InputError("--fix " + id + ": no edit stands for this fix (" + ToString(fix.kind) +
                     "): what it would change is not something the replay can make");
  if (!host_work.empty()) {
    if (e->kind != EditKind::kShortenHostWork) throw InputError("--fix " + id + ": host-work= applies to a host-work fix");
    e->host_time = Us(ParseNumber(host_work, id));
  }
  return {std::string("fix ") + number + " (" + ToString(fix.kind) + ": " + ToString(e->kind) + ")", *e};
}

// A warm-up moves time out of the first steps, not out of the run: both said, replayed.
void PrintLeadIn(const FindingTexts& texts, const LeadIn& before, const LeadIn& after) {
  std::cout << "  " << texts.Fill("whatif.lead_in", {{"n", std::to_string(before.steps)}, {"before", FormatDuration(before.first_steps)},
                                                      {"after", FormatDuration(after.first_steps)}}) << "\n";
  std::cout << "  " << texts.Fill("whatif.to_steady", {{"before", FormatDuration(before.to_steady)},
                                                        {"after", FormatDuration(after.to_steady)}}) << "\n";
}

}  // namespace

int CmdWhatIf(const ReplayCommand& cmd) {
  ReplaySession session = OpenReplaySession(cmd.trace, cmd.profile);
  // The fixes as explain numbers them: the pipeline's verdict, without its replays.
  Explanation explained = ExplainProgram(session.trace, {0});
  const Analysis& analysis = explained.analysis;
  if (!explained.verdict.found()) throw InputError(cmd.trace + ": no GPU work to replay");
  const Verdict& verdict = explained.verdict.lead();
  CallPlaces places(session.trace, session.anchors);
  std::vector<ChosenEdit> chosen;
  for (const std::string& id : cmd.fixes) chosen.push_back(ParseFix(id, session.trace, analysis, verdict, session.steps, places));
  std::vector<WhatIfEdit> edits;
  for (const ChosenEdit& c : chosen) edits.push_back(c.edit);
  WhatIfRun run = RunWhatIf(session.trace, session.steps, session.anchors, session.replay, edits);
  std::string list;
  for (const ChosenEdit& c : chosen) list += (list.empty() ? "" : "; ") + c.label;
  run.predicted.notes.push_back(Note("whatif_predicted", {{"fixes", std::to_string(chosen.size())}, {"list", list}}));
  if (!cmd.out.empty()) WriteTraceFile(run.predicted, cmd.out);
  TimeNs saved = run.before - run.after;
  double share = run.before > 0 ? static_cast<double>(saved) / static_cast<double>(run.before) : 0;
  if (cmd.json) {
    Json fixes = Json::array();
    for (const ChosenEdit& c : chosen) fixes.push_back({{"fix", c.label}, {"edit", ToString(c.edit.kind)}, {"calls", c.edit.calls.size()}});
    Json steps = Json::array();
    for (size_t k = 0; k < run.steps_before.size() && k < run.steps_after.size(); ++k)
      if (run.steps_before[k] >= 0 && run.steps_after[k] >= 0)
        steps.push_back({{"step", k}, {"replayed_ns", run.steps_before[k]}, {"predicted_ns", run.steps_after[k]}});
    std::cout << DumpJson({{"by_steps", session.steps.found()},
                           {"replayed_ns", run.before},
                           {"predicted_ns", run.after},
                           {"predicted_fast_graph_ns", run.after_fast_graph},
                           {"predicted_loader_ns", run.after_loader},
                           {"saved_ns", saved},
                           {"saved_share", share},
                           {"warmup_steps", run.lead_before.steps},
                           {"warmup_replayed_ns", run.lead_before.first_steps},
                           {"warmup_predicted_ns", run.lead_after.first_steps},
                           {"to_steady_replayed_ns", run.lead_before.to_steady},
                           {"to_steady_predicted_ns", run.lead_after.to_steady},
                           {"fixes", fixes},
                           {"steps", steps}},
                          1)
              << "\n";
    return kExitOk;
  }
  FindingTexts texts = FindingTexts::Load(cmd.lang.empty() ? DefaultLanguage() : cmd.lang);
  std::string unit = texts.Get(session.steps.found() ? "whatif.unit.step" : "whatif.unit.run");
  std::cout << texts.Fill("whatif.title", {{"profile", session.replay.profile.name}}) << "\n";
  for (const ChosenEdit& c : chosen)
    std::cout << "  " << texts.Fill("whatif.edit", {{"label", c.label}, {"n", std::to_string(c.edit.calls.size())}}) << "\n";
  std::cout << "  " << texts.Fill("whatif.before", {{"time", FormatDuration(run.before)}, {"unit", unit}}) << "\n";
  // A fix that adds waits (ordering a race) can cost time instead of saving it.
  std::cout << "  " << texts.Fill(saved >= 0 ? "whatif.after.saves" : "whatif.after.costs",
                                  {{"time", FormatDuration(run.after)}, {"delta", FormatDuration(saved >= 0 ? saved : -saved)},
                                   {"share", FormatPercent(saved >= 0 ? share : -share)}}) << "\n";
  if (run.after_fast_graph > 0)
    std::cout << "  " << texts.Fill("whatif.fast_graph", {{"time", FormatDuration(run.after_fast_graph)},
                                                           {"fast", FormatDuration(session.replay.profile.replay_graph_node_gap_fast)},
                                                           {"gap", FormatDuration(session.replay.profile.graph_node_gap)}}) << "\n";
  if (run.after_loader > 0) std::cout << "  " << texts.Fill("whatif.loader", {{"time", FormatDuration(run.after_loader)}}) << "\n";
  // The calls after shortened host work keep the cost measured right after it; in the pairs
  // they ran 12-34 % faster with the work gone on three H100 starts and 14 % slower on an H200.
  bool shortened = std::any_of(chosen.begin(), chosen.end(),
                               [](const ChosenEdit& c) { return c.edit.kind == EditKind::kShortenHostWork; });
  if (shortened) std::cout << "  " << texts.Get("whatif.shortened") << "\n";
  bool warm_up = std::any_of(chosen.begin(), chosen.end(), [](const ChosenEdit& c) { return c.edit.kind == EditKind::kWarmUp; });
  if (warm_up && run.lead_before.steps > 0) PrintLeadIn(texts, run.lead_before, run.lead_after);
  if (!cmd.out.empty()) std::cout << "  " << texts.Fill("whatif.wrote", {{"path", cmd.out}}) << "\n";
  return kExitOk;
}

}  // namespace streamlab
