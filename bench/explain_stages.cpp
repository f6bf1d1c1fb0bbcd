// How long `explain` takes on a program's trace, stage by stage, and how much memory: reading the
// file, the analysis (why each op started), the account (each process's steady steps walked),
// the verdict, the fixes replayed on the simulator, and the text. Prints one line per stage
// (seconds, and the peak resident memory after it); exits 1 if a limit given is exceeded.
//   explain_stages TRACE [--repeat-steps N] [--max-seconds S] [--max-peak-mb M] [--no-replay]
// --repeat-steps N: the trace's steady steps tiled N times after its run (a long loop built from a
// real recording's steps: the bench's 1 M-op case without a 1 M-op file in the repository).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/account/step_account.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/ingest/open_trace.h"
#include "engine/report/verdict_text.h"
#include "engine/whatif/whatif.h"

namespace streamlab {
namespace {

using Clock = std::chrono::steady_clock;

double PeakMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KB on Linux
}

// The trace with its steady steps (those of its first process) copied `times` times after its
// run, each copy shifted by the steps' span: the same loop, run longer.
Trace RepeatSteps(Trace t, int times) {
  StepSplit steps = FindSteps(t, 0);
  if (!steps.found() || times <= 0) return t;
  TimeNs from = steps.steps[steps.warmup].begin, to = steps.steps.back().end;
  const size_t first = static_cast<size_t>(steps.steps[steps.warmup].first_op), end = t.ops.size();
  std::vector<size_t> copy;
  for (size_t i = first; i < end; ++i)
    if (t.ops[i].submit >= from && t.ops[i].submit < to && t.scenario.ops[i].graph < 0 && t.scenario.ops[i].collective_first < 0)
      copy.push_back(i);
  for (int k = 1; k <= times; ++k) {
    TimeNs shift = (to - from) * k;
    for (size_t i : copy) {
      Op op = t.scenario.ops[i];
      op.woken_by = -1;
      op.graph_after.clear();
      OpRecord r = t.ops[i];
      r.op = static_cast<int>(t.ops.size());
      for (TimeNs* x : {&r.submit, &r.ret, &r.ready, &r.start, &r.end}) *x += shift;
      t.scenario.ops.push_back(std::move(op));
      t.ops.push_back(std::move(r));
    }
  }
  for (HostRange& r : std::vector<HostRange>(t.ranges))
    if (r.begin >= from && r.begin < to)
      for (int k = 1; k <= times; ++k) t.ranges.push_back({r.thread, r.name, r.begin + (to - from) * k, r.end + (to - from) * k});
  return t;
}

int Run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: explain_stages TRACE [--repeat-steps N] [--max-seconds S] [--max-peak-mb M] [--no-replay]\n");
    return 2;
  }
  int repeat = 0;
  double max_seconds = 0, max_peak = 0;
  bool replay = true;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat-steps" && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (a == "--max-seconds" && i + 1 < argc) max_seconds = std::atof(argv[++i]);
    else if (a == "--max-peak-mb" && i + 1 < argc) max_peak = std::atof(argv[++i]);
    else if (a == "--no-replay") replay = false;
  }
  auto t0 = Clock::now(), last = t0;
  auto stage = [&](const char* name) {
    auto now = Clock::now();
    std::printf("%-10s %7.3f s   peak %7.1f MB\n", name, std::chrono::duration<double>(now - last).count(), PeakMb());
    last = now;
  };
  Trace trace = LoadTraceFile(argv[1]);
  if (repeat > 0) trace = RepeatSteps(std::move(trace), repeat);
  std::printf("%zu ops\n", trace.ops.size());
  stage("read");
  AnalysisContext context(trace);
  Analysis analysis = Analyze(context);
  stage("analysis");
  ProgramAccount account = AccountOf(context);
  stage("account");
  ProgramVerdict verdict = VerdictOf(trace, analysis, account);
  stage("verdict");
  if (replay && verdict.found()) SimulateFixes(trace, verdict.lead(), kVerdictFixes);
  stage("replays");
  size_t lines = RenderVerdict(FindingTexts::Load("en"), trace, verdict).size();
  stage("text");
  double total = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("total      %7.3f s   peak %7.1f MB   (%zu verdict lines)\n", total, PeakMb(), lines);
  if (max_seconds > 0 && total > max_seconds) {
    std::printf("FAIL: %.3f s over the limit of %.3f s\n", total, max_seconds);
    return 1;
  }
  if (max_peak > 0 && PeakMb() > max_peak) {
    std::printf("FAIL: peak %.1f MB over the limit of %.1f MB\n", PeakMb(), max_peak);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace streamlab

int main(int argc, char** argv) {
  try {
    return streamlab::Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "explain_stages: %s\n", e.what());
    return 2;
  }
}
