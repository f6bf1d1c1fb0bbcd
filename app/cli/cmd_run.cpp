// `streamlab-cli run LAB|scenario.json`: run once, print the text Gantt, save the trace.
#include <algorithm>
#include <iostream>

#include "app/cli/backend_choice.h"
#include "app/cli/commands.h"
#include "app/cli/run_target.h"
#include "app/cli/torch_backend.h"
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
  Trace trace;
  if (cmd.backend == "torch") {
    // The lab as a PyTorch program, recorded and mapped back (torch_backend.h).
    ValidateRunnable(target.scenario);
    TorchRunOptions options;
    options.self = cmd.self;
    options.timeout_s = std::max(60.0, cmd.timeout_s);
    options.save_program = cmd.save_program;
    trace = RunInTorch(target.scenario, options);
  } else {
    if (!cmd.save_program.empty()) throw InputError("--save-program is for --backend torch");
    BackendChoice backend = ChooseBackend(cmd.backend, target.scenario, cmd.profile);
    if (!backend.message.empty()) std::cerr << "streamlab: " << backend.message << "\n";
    RunOptions options;
    options.timeout = static_cast<TimeNs>(cmd.timeout_s * 1e9);
    options.repeat = cmd.repeat;
    trace = backend.executor->Run(target.scenario, options);
  }
  LabelTrace(target, trace);

  if (!cmd.out.empty()) SaveJsonFile(TraceToJson(trace), cmd.out);
  if (!cmd.chrome.empty()) SaveJsonFile(ChromeTraceJson(trace), cmd.chrome);
  if (!cmd.quiet) {
    std::cout << RenderTextGantt(trace, cmd.width);
    for (const TraceNote& note : trace.notes) std::cout << "note: " << note.text << "\n";
  }
  return kExitOk;
}

}  // namespace streamlab
