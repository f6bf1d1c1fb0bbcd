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
    if (a.variant == "high-priority")
      return {{"late starts within one block time of being ready", [block](const Trace& t) {
                const OpRecord& l = OpNamed(t, "late");
                TimeNs wait = l.start - l.ready;
                return CheckResult{wait <= block + block / 2 + t.clock_error, "waited " + FormatDuration(wait)};
              }},
              {"late finishes before the flood does", [](const Trace& t) {
                TimeNs d = OpNamed(t, "flood").end - OpNamed(t, "late").end;
                return CheckResult{d > 0, "flood ends " + FormatDuration(d) + " after late"};
              }}};
    return {{"late waits for the flood (starts within one block time of its end)", [block](const Trace& t) {
      const OpRecord& l = OpNamed(t, "late");
      const OpRecord& f = OpNamed(t, "flood");
      return CheckResult{l.start >= f.end - block - t.clock_error,
                         "late starts " + FormatDuration(l.start - f.end) + " after the flood ends"};
    }}};
  };
  // torch.cuda._sleep is one block: the "flood" leaves every SM free, so there is nothing
  // to wait for and no pending block for priority to jump (late started at once on an H100).
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "high-priority") return {};
    return {{"late starts at once: a one-block flood leaves the SMs free (< 100 us after its launch returns)",
             [](const Trace& t) {
               const OpRecord& l = OpNamed(t, "late");
               return CheckResult{l.start - l.ret < Us(100), "late starts " + FormatDuration(l.start - l.ret) +
                                                                 " after its launch returned"};
             }}};
  };
  return lab;
}

}  // namespace streamlab
