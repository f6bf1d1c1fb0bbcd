// `streamlab-cli replay TRACE`: a recorded program replayed on the simulator, each step as it
// was measured and as replayed; the error says how far the replay (and so any what-if made on
// it) can be trusted for this program.
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/replay_common.h"
#include "engine/sim/sim_executor.h"
#include "engine/trace/trace_json.h"
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
  std::cout << "Replayed on the simulator (" << session.replay.profile.name << ")\n";
  if (report.by_steps()) {
    std::cout << "  " << report.steps.steady << " steady steps: measured " << FormatDuration(report.measured)
              << " a step (median), replayed " << FormatDuration(report.replayed) << " ("
              << FormatPercent(report.error) << " off)\n";
    std::cout << "  A GPU op's start within its step: " << FormatDuration(report.median_edge)
              << " off (median), worst " << FormatDuration(report.worst_edge);
    if (report.worst_edge_op >= 0) std::cout << " (" << DisplayName(session.trace.scenario, report.worst_edge_op) << ")";
    std::cout << "\n";
  } else {
    std::cout << "  No steps found: the GPU's first op to its last, measured " << FormatDuration(report.measured)
              << ", replayed " << FormatDuration(report.replayed) << " (" << FormatPercent(report.error) << " off)\n";
  }
  std::cout << "  Latencies from the recording: a call to its op on an idle GPU "
            << FormatDuration(session.replay.profile.submit_latency) << ", op to op on a stream "
            << FormatDuration(session.replay.profile.same_stream_gap) << ", a finished sync to its return "
            << FormatDuration(session.replay.profile.sync_wake) << "\n";
  if (!cmd.out.empty()) std::cout << "  Wrote the replayed run to " << cmd.out << "\n";
  return kExitOk;
}

}  // namespace streamlab
