// w2-priority - stream priority picks which *pending* blocks go next; it never preempts.
// A low-priority flood of 20 waves keeps blocks pending; a late kernel on a high-priority
// stream gets the next blocks that free up (it waits one block time, not the whole flood).
// With equal priority it waits for the flood's pending blocks. When the flood is fully
// resident (nothing pending), priority changes nothing: running blocks are not preempted.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// The high-priority late kernel waits at most about one block time - from when it was ready,
// or (where that is not recorded) from its launch's return - and finishes before the flood.
std::vector<Expectation> HighPriorityClaims(TimeNs block, bool from_launch) {
  std::string since = from_launch ? "its launch's return" : "being ready";
  return {{"late starts within one block time of " + since, [block, from_launch](const Trace& t) {
             const OpRecord& l = OpNamed(t, "late");
             TimeNs wait = l.start - (from_launch ? l.ret : l.ready);
             return CheckResult{wait <= block + block / 2 + t.clock_error, "waited " + FormatDuration(wait)};
           }},
          {"late finishes before the flood does", [](const Trace& t) {
             TimeNs d = OpNamed(t, "flood").end - OpNamed(t, "late").end;
             return CheckResult{d > 0, "flood ends " + FormatDuration(d) + " after late"};
           }}};
}

}  // namespace

Lab PriorityLab() {
  Lab lab;
  lab.id = "w2-priority";
  lab.week = 2;
  lab.order = 8;
  lab.variants = {"high-priority", "same-priority", "resident-flood"};
  lab.params = {{"block_us", 20, 1000, 50, "us"}, {"waves", 4, 40, 20, "waves"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-priority");
    bool resident = a.variant == "resident-flood";
    TimeNs block = Us(a["block_us"]) * (resident ? 4 : 1);
    int waves = resident ? 2 : static_cast<int>(a["waves"]);
    int priority = a.variant == "same-priority" ? 0 : -5;  // lower number = higher priority
    Stream low = b.CreateStream("low");
    Stream late = b.CreateStream("late", {.priority = priority});
    // 264 blocks of 1024 threads fill an H200 (2 per SM): `waves` rounds of them.
    low.Launch("flood", Spin(block, 264 * waves, 1024));
    b.host().Work("arrive later", block * (resident ? 5 : 6) / (resident ? 4 : 1));
    late.Launch("late", Spin(block, 264, 1024, 1));
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs block = Us(a["block_us"]) * (a.variant == "resident-flood" ? 4 : 1);
    if (a.variant == "high-priority") return HighPriorityClaims(block, false);
    return {{"late waits for the flood (starts within one block time of its end)", [block](const Trace& t) {
      const OpRecord& l = OpNamed(t, "late");
      const OpRecord& f = OpNamed(t, "flood");
      return CheckResult{l.start >= f.end - block - t.clock_error,
                         "late starts " + FormatDuration(l.start - f.end) + " after the flood ends"};
    }}};
  };
  // In PyTorch the flood and the late kernel are StreamLab's spin kernel compiled with NVRTC
  // (as many blocks as here), but a recorded run has no *ready* time: late's stream is
  // empty, so it is ready when its launch returns, and its wait is measured from there.
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "high-priority") return {};  // the lab's own claims need no ready time
    return HighPriorityClaims(Us(a["block_us"]), true);
  };
  return lab;
}

}  // namespace streamlab
