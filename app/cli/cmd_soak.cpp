// `streamlab-cli soak [LAB...] [--runs N] [--backend sim|cuda]`: runs every variant of the
// labs N times in this one process and compares the resident memory after the first round
// with the end. Growth beyond max(8 MiB, 10 %) is a leak and fails (exit 1).
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/cli/backend_choice.h"
#include "app/cli/commands.h"
#include "app/runner/run_target.h"
#include "engine/analysis/analyzer.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

}  // namespace

int CmdSoak(const SoakCommand& cmd) {
  if (cmd.runs < 2 || cmd.runs > 100000) throw InputError("--runs must be 2..100000");
  std::vector<const Lab*> labs;
  if (cmd.labs.empty()) {
    for (const Lab& lab : AllLabs()) labs.push_back(&lab);
  } else {
    for (const std::string& id : cmd.labs) labs.push_back(&FindLab(id));
  }
  std::vector<RunTarget> targets;
  for (const Lab* lab : labs)
    for (const std::string& v : lab->variants) targets.push_back(ResolveRunTarget(lab->id, v, {}));
  BackendChoice backend = ChooseBackend(BackendFlag(cmd.backend, {Backend::kSim, Backend::kCuda}), targets.front().scenario, "");
  double first = 0;
  for (int round = 0; round < cmd.runs; ++round) {
    for (const RunTarget& target : targets) {
      Trace trace = backend.executor->Run(target.scenario, RunOptions{});
      Analysis analysis = Analyze(trace);  // what a view does with every run
      if (trace.ops.size() != target.scenario.ops.size()) throw RunError("soak: a run lost ops");
    }
    if (round == 0) first = ResidentMiB();
  }
  double last = ResidentMiB();
  double growth = last - first;
  std::printf("soak: %d rounds of %zu lab variants on %s (%d runs): resident memory %.1f MiB after the first round, "
              "%.1f MiB at the end (%+.1f MiB)\n",
              cmd.runs, targets.size(), std::string(BackendName(backend.executor->Kind())).c_str(), cmd.runs * static_cast<int>(targets.size()),
              first, last, growth);
  bool leaked = growth > std::max(8.0, 0.1 * first);
  std::printf("%d passed, %d failed\n", leaked ? 0 : 1, leaked ? 1 : 0);
  return leaked ? kExitFailed : kExitOk;
}

}  // namespace streamlab
