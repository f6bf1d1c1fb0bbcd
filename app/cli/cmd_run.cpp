// `streamlab-cli run LAB|scenario.json`: run once, print the text Gantt, save the trace.
#include <algorithm>
#include <iostream>

#include "app/cli/backend_choice.h"
#include "app/cli/commands.h"
#include "app/runner/run_on_backend.h"
#include "engine/trace/chrome_trace.h"
#include "engine/util/errors.h"
#include "engine/scenario/scenario_json.h"
#include "engine/trace/text_gantt.h"
#include "engine/trace/trace_json.h"

namespace streamlab {

int CmdRun(const RunCommand& cmd) {
  if (cmd.timeout_s <= 0 || cmd.timeout_s > 3600) throw InputError("--timeout must be 0..3600 s");
  if (cmd.repeat < 1 || cmd.repeat > 100) throw InputError("--repeat must be 1..100");
  RunTarget target = ResolveRunTarget(cmd.target, cmd.variant, ParseParams(cmd.params));
  if (!cmd.save_scenario.empty()) SaveJsonFile(ScenarioToJson(target.scenario), cmd.save_scenario);
  Backend backend = BackendFlag(cmd.backend, {Backend::kSim, Backend::kCuda, Backend::kAuto, Backend::kTorch});
  if (!cmd.save_program.empty() && backend != Backend::kTorch) throw InputError("--save-program is for --backend torch");
  RunSpec spec;
  spec.backend = backend;
  spec.profile = cmd.profile;
  spec.timeout_s = cmd.timeout_s;
  spec.repeat = cmd.repeat;
  // The lab as a PyTorch program is recorded in a child and mapped back (torch_backend.h).
  spec.in_process = CliExecutors({cmd.self, std::max(60.0, cmd.timeout_s), cmd.save_program});
  RunOutcome run = RunOnBackend(target, spec);
  if (!run.message.empty()) std::cerr << "streamlab: " << run.message << "\n";
  const Trace& trace = run.trace;

  if (!cmd.out.empty()) SaveJsonFile(TraceToJson(trace), cmd.out);
  if (!cmd.chrome.empty()) SaveJsonFile(ChromeTraceJson(trace), cmd.chrome);
  if (!cmd.quiet) {
    std::cout << RenderTextGantt(trace, cmd.width);
    for (const TraceNote& note : trace.notes) std::cout << "note: " << note.text << "\n";
  }
  return kExitOk;
}

}  // namespace streamlab
