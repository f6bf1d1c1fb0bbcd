// w3-graphs - the same multi-stream DAG, launched op by op or replayed as a CUDA graph.
// One training-like step: a -> (b on s2, c on s3) -> d, joined with events. Eagerly, the
// host makes every launch, record and wait call each step; captured into a graph once,
// each step is one cudaGraphLaunch. The first step runs eagerly in both variants (as
// PyTorch warms up before capturing), so the graph variant compares the two in one run.
#include <string>

#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "engine/util/format.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

std::string StepName(const std::string& op, int step) { return op + "@" + std::to_string(step); }

// The host's time issuing step `step`: from its first call to the next step's first call.
TimeNs StepIssueTime(const Trace& t, const std::string& first_op, int step, const std::string& next_first) {
  return OpNamed(t, StepName(next_first, step + 1)).submit - OpNamed(t, StepName(first_op, step)).submit;
}

}  // namespace

Lab GraphsLab() {
  Lab lab;
  lab.id = "w3-graphs";
  lab.week = 3;
  lab.order = 5;
  lab.variants = {"eager", "graph"};
  lab.params = {{"steps", 3, 20, 8, "steps"}, {"kernel_us", 2, 200, 5, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-graphs");
    Stream s1 = b.CreateStream("s1", {.non_blocking = true});
    Stream s2 = b.CreateStream("s2", {.non_blocking = true});
    Stream s3 = b.CreateStream("s3", {.non_blocking = true});
    Event forked = b.CreateEvent("forked"), b_done = b.CreateEvent("b_done"), c_done = b.CreateEvent("c_done");
    KernelSpec small = Spin(Us(a["kernel_us"]), 1);
    int steps = static_cast<int>(a["steps"]);
    for (int step = 1; step <= steps + 1; ++step) {
      bool last = step == steps + 1;  // a closing eager kernel marks where the last step's calls end
      bool replay = a.variant == "graph" && step > 1 && !last;
      if (replay) b.BeginGraph(s1, StepName("step", step));
      else if (a.variant == "graph" || last) s1.Launch(StepName("step", step), Spin(Us(1), 1));
      if (last) break;
      s1.Launch(StepName("a", step), small);
      s1.Record(forked);
      s2.Wait(forked);
      s3.Wait(forked);
      s2.Launch(StepName("b", step), small);
      s3.Launch(StepName("c", step), small);
      s2.Record(b_done);
      s3.Record(c_done);
      s1.Wait(b_done);
      s1.Wait(c_done);
      s1.Launch(StepName("d", step), small);
      if (replay) b.EndGraph();
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    int steps = static_cast<int>(a["steps"]);
    std::vector<Expectation> out{StartsAfterEnd(StepName("d", steps), StepName("b", steps)),
                                 StartsAfterEnd(StepName("d", steps), StepName("c", steps)),
                                 StartsAfterEnd(StepName("a", steps), StepName("d", steps - 1))};
    if (a.variant == "graph")
      out.push_back({"a replayed step costs the host under half the eager first step", [=](const Trace& t) {
                       TimeNs eager = StepIssueTime(t, "step", 1, "step");
                       TimeNs replay = StepIssueTime(t, "step", steps - 1, "step");
                       return CheckResult{replay * 2 < eager, "eager step " + FormatDuration(eager) +
                                                                  ", replayed step " + FormatDuration(replay)};
                     }});
    return out;
  };
  return lab;
}

}  // namespace streamlab
