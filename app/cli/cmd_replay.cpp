// `streamlab-cli replay TRACE`: a recorded program replayed on the simulator, each step as it
// was measured and as replayed; the error says how far the replay (and so any what-if made on
// it) can be trusted for this program.
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/replay_common.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace_json.h"
#include "engine/analysis/findings_text.h"
#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"
#include "engine/whatif/replay_steps.h"

namespace streamlab {
namespace {

Json ReportJson(const ReplayReport& r, const Replay& replay, const LeadIn& measured, const LeadIn& replayed) {
  Json steps = Json::array();
  for (const StepReplay& s : r.per_step)
    steps.push_back({{"step", s.step}, {"measured_ns", s.measured}, {"replayed_ns", s.replayed}, {"steady", s.steady}});
  return {{"by_steps", r.by_steps()},
          {"steady_steps", r.steps.steady},
          {"measured_ns", r.measured},
          {"replayed_ns", r.replayed},
          {"error", r.error},
          {"worst_edge_ns", r.worst_edge},
          {"worst_edge_op", r.worst_edge_op},
          {"median_edge_ns", r.median_edge},
          {"profile", replay.profile.name},
          {"submit_latency_ns", replay.profile.submit_latency},
          {"same_stream_gap_ns", replay.profile.same_stream_gap},
          {"sync_wake_ns", replay.profile.sync_wake},
          {"graph_node_gap_ns", replay.profile.graph_node_gap},
          {"warmup_steps", measured.steps},
          {"warmup_measured_ns", measured.first_steps},
          {"warmup_replayed_ns", replayed.first_steps},
          {"to_steady_measured_ns", measured.to_steady},
          {"to_steady_replayed_ns", replayed.to_steady},
          {"steps", steps}};
}

}  // namespace

int CmdReplay(const ReplayCommand& cmd) {
  ReplaySession session = OpenReplaySession(cmd.trace, cmd.profile);
  Trace replayed = SimulateRecorded(session.replay.profile, session.replay.scenario);
  ReplayReport report = CompareReplay(session.trace, session.steps, session.replay, replayed);
  MarkReplayedSteps(session.anchors, session.replay, replayed);
  if (!cmd.out.empty()) WriteTraceFile(replayed, cmd.out);
  if (cmd.json) {
    LeadIn measured, replayed_lead;
    if (report.by_steps()) {
      measured = MeasuredLeadIn(session.trace, session.steps, session.anchors);
      replayed_lead = ReplayedLeadIn(session.steps, session.anchors, session.replay, replayed);
    }
    std::cout << DumpJson(ReportJson(report, session.replay, measured, replayed_lead), 1) << "\n";
    return kExitOk;
  }
  FindingTexts texts = FindingTexts::Load(cmd.lang.empty() ? DefaultLanguage() : cmd.lang);
  std::cout << texts.Fill("replay.title", {{"profile", session.replay.profile.name}}) << "\n";
  if (report.by_steps()) {
    std::cout << "  " << texts.Fill("replay.steps", {{"steady", std::to_string(report.steps.steady)},
                                                      {"measured", FormatDuration(report.measured)},
                                                      {"replayed", FormatDuration(report.replayed)},
                                                      {"error", FormatPercent(report.error)}}) << "\n";
    std::string op = report.worst_edge_op >= 0 ? " (" + DisplayName(session.trace.scenario, report.worst_edge_op) + ")" : "";
    std::cout << "  " << texts.Fill("replay.edges", {{"median", FormatDuration(report.median_edge)},
                                                      {"worst", FormatDuration(report.worst_edge)}, {"op", op}}) << "\n";
  } else {
    std::cout << "  " << texts.Fill("replay.no_steps", {{"measured", FormatDuration(report.measured)},
                                                         {"replayed", FormatDuration(report.replayed)},
                                                         {"error", FormatPercent(report.error)}}) << "\n";
  }
  std::cout << "  " << texts.Fill("replay.latencies", {{"submit", FormatDuration(session.replay.profile.submit_latency)},
                                                        {"gap", FormatDuration(session.replay.profile.same_stream_gap)},
                                                        {"wake", FormatDuration(session.replay.profile.sync_wake)}}) << "\n";
  if (!cmd.out.empty()) std::cout << "  " << texts.Fill("replay.wrote", {{"path", cmd.out}}) << "\n";
  return kExitOk;
}

}  // namespace streamlab
