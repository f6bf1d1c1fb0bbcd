// w3-straggler - one slow GPU makes every GPU wait inside the all-reduce.
// Each GPU computes its step (forward + backward), all-reduces its gradients with NCCL and
// runs the optimizer. In the straggler variants the last GPU's compute takes longer (a
// slower GPU, a bigger batch, a thermal throttle): the all-reduce can only move data once
// every rank has arrived, so the others sit inside it - the time shows up as communication,
// though the cause is compute on another GPU.
#include <algorithm>

#include "engine/analysis/analyzer.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "engine/util/format.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// The longest time a part of the all-reduce waited for the last rank, as the analyzer says,
// and the name of the op the late rank was still running.
struct Wait {
  TimeNs longest = 0;
  int waiting = -1, late = -1, busy = -1;
};
Wait LongestWait(const Trace& t) {
  Wait w;
  for (const Finding& f : Analyze(t).findings) {
    if (f.kind != FindingKind::kCollectiveWait || f.amount <= w.longest) continue;
    w = {f.amount, f.op, f.other, f.because.empty() ? -1 : f.because.front()};
  }
  return w;
}

}  // namespace

Lab StragglerLab() {
  Lab lab;
  lab.id = "w3-straggler";
  lab.week = 3;
  lab.order = 7;
  lab.devices = 2;
  lab.variants = {"straggler", "balanced", "straggler-4gpu"};
  lab.variant_devices = {{"straggler-4gpu", 4}};
  lab.params = {{"step_us", 200, 10000, 2000, "us"}, {"slowdown_pct", 0, 200, 50, "%"}, {"grad_mb", 4, 512, 128, "MB"}};

  lab.build = [](const LabArgs& a) {
    int gpus = CollectiveLabGpus(a.variant);
    ScenarioBuilder b("w3-straggler", gpus);
    uint64_t bytes = static_cast<uint64_t>(a["grad_mb"]) << 20;
    bool straggler = a.variant.starts_with("straggler");
    std::vector<Stream> streams;
    std::vector<Buffer> grads;
    for (int g = 0; g < gpus; ++g) {
      streams.push_back(b.CreateStream("gpu" + std::to_string(g), {.device = g}));
      grads.push_back(b.DeviceBuffer("grads" + std::to_string(g), bytes, g));
    }
    for (int g = 0; g < gpus; ++g) {
      double step = a["step_us"];
      if (straggler && g == gpus - 1) step *= 1.0 + a["slowdown_pct"] / 100.0;  // the slow one
      streams[g].Launch("compute_gpu" + std::to_string(g), Spin(Us(step), 8), {}, {grads[g]});
    }
    b.Collective("allreduce", CollectiveKind::kAllReduce, streams, grads, bytes);
    for (int g = 0; g < gpus; ++g) streams[g].Launch("optimizer_gpu" + std::to_string(g), Spin(Us(200), 8), {grads[g]});
    b.host().SyncEveryDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "balanced")
      return {{"no GPU waits inside the all-reduce for another (none longer than the analyzer's slack)", [](const Trace& t) {
        Wait w = LongestWait(t);
        return CheckResult{w.waiting < 0, w.waiting < 0 ? "no collective wait" : "longest wait " + FormatDuration(w.longest)};
      }}};
    int gpus = CollectiveLabGpus(a.variant);
    TimeNs extra = static_cast<TimeNs>(Us(a["step_us"]) * a["slowdown_pct"] / 100.0);
    std::string slow = "gpu" + std::to_string(gpus - 1);
    return {{"the analyzer names " + slow + " as the late rank, still running compute_" + slow,
             [slow](const Trace& t) {
               Wait w = LongestWait(t);
               std::string late = w.late >= 0 ? t.scenario.ops[w.late].name : "-";
               std::string busy = w.busy >= 0 ? t.scenario.ops[w.busy].name : "-";
               bool ok = late == "allreduce_" + slow && busy == "compute_" + slow;
               return CheckResult{ok, "late part " + late + ", still running " + busy};
             }},
            {"the other GPUs wait inside the all-reduce about as long as the straggler's extra compute (within 20 %)",
             [extra](const Trace& t) {
               Wait w = LongestWait(t);
               double ratio = extra > 0 ? static_cast<double>(w.longest) / static_cast<double>(extra) : 0;
               return CheckResult{ratio >= 0.8 && ratio <= 1.2,
                                  "waited " + FormatDuration(w.longest) + " for " + FormatDuration(extra) + " of extra compute"};
             }}};
  };
  // In PyTorch each GPU is its own process: even after a barrier and a synchronize the
  // processes start the step tens of microseconds apart (25-83 us on two H200s), so even
  // balanced ranks reach the all-reduce that far apart, and the earlier one waits for the
  // other's later start.
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "balanced") return {};
    int gpus = CollectiveLabGpus(a.variant);
    return {{"a GPU waits inside the all-reduce no longer than the other processes started their compute later (+ 10 us)",
             [gpus](const Trace& t) {
               TimeNs first = 0, last = 0;
               for (int g = 0; g < gpus; ++g) {
                 TimeNs start = OpNamed(t, "compute_gpu" + std::to_string(g)).start;
                 first = g == 0 ? start : std::min(first, start);
                 last = g == 0 ? start : std::max(last, start);
               }
               Wait w = LongestWait(t);
               TimeNs longest = w.waiting < 0 ? 0 : w.longest;
               return CheckResult{longest <= last - first + Us(10) + t.clock_error,
                                  "longest wait " + FormatDuration(longest) + ", compute starts " +
                                      FormatDuration(last - first) + " apart"};
             }}};
  };
  return lab;
}

}  // namespace streamlab
