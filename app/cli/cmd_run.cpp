// `streamlab-cli run LAB|scenario.json`: run once, print the text Gantt, save the trace.
#include <iostream>

#include "app/cli/backend_choice.h"
#include "app/cli/commands.h"
#include "app/cli/run_target.h"
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
  BackendChoice backend = ChooseBackend(cmd.backend, target.scenario, cmd.profile);
  if (!backend.message.empty()) std::cerr << "streamlab: " << backend.message << "\n";

  RunOptions options;
  options.timeout = static_cast<TimeNs>(cmd.timeout_s * 1e9);
  options.repeat = cmd.repeat;
  Trace trace = backend.executor->Run(target.scenario, options);
  LabelTrace(target, trace);

  if (!cmd.out.empty()) SaveJsonFile(TraceToJson(trace), cmd.out);
  if (!cmd.chrome.empty()) SaveJsonFile(ChromeTraceJson(trace), cmd.chrome);
  if (!cmd.quiet) {
    std::cout << RenderTextGantt(trace, cmd.width);
    for (const std::string& note : trace.notes) std::cout << "note: " << note << "\n";
  }
  return kExitOk;
}

}  // namespace streamlab
