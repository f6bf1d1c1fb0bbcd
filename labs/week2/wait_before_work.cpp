// w2-wait-before-work - a wait registered before the producer has work orders nothing.
// The course notes' exercise: b.wait_stream(a); c.wait_stream(b); then work on c, b and a,
// expecting a -> b -> c. But wait_stream captures only work already submitted, and none was:
// the three kernels run at once (on an H200 PyTorch ran them in submission order c, b, a).
// Registering each wait after its producer's work gives the chain.
#include "engine/scenario/scenario_builder.h"
#include "engine/analysis/analyzer.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab WaitBeforeWorkLab() {
  Lab lab;
  lab.id = "w2-wait-before-work";
  lab.week = 2;
  lab.order = 3;
  lab.variants = {"waits-first", "waits-after-work"};
  lab.params = {{"kernel_us", 50, 10000, 400, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-wait-before-work");
    KernelSpec work = Spin(Us(a["kernel_us"]));
    Stream sa = b.CreateStream("a");
    Stream sb = b.CreateStream("b");
    Stream sc = b.CreateStream("c");
    if (a.variant == "waits-first") {
      sb.WaitStream(sa);  // a has no work yet: captures nothing
      sc.WaitStream(sb);  // b has no work yet: captures nothing
      sc.Launch("work_c", work);
      sb.Launch("work_b", work);
      sa.Launch("work_a", work);
    } else {
      sa.Launch("work_a", work);
      sb.WaitStream(sa);  // captures work_a
      sb.Launch("work_b", work);
      sc.WaitStream(sb);  // captures work_b
      sc.Launch("work_c", work);
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "waits-after-work") return {StartsAfterEnd("work_b", "work_a"), StartsAfterEnd("work_c", "work_b")};
    Expectation flagged{"the analyzer flags both waits as capturing nothing", [](const Trace& t) {
      int n = 0;
      for (const Finding& f : Analyze(t).findings) n += f.kind == FindingKind::kWaitCapturedNothing;
      return CheckResult{n == 2, std::to_string(n) + " waits flagged"};
    }};
    return {OverlapAtLeast("work_a", "work_b", 0.8), OverlapAtLeast("work_b", "work_c", 0.8), flagged};
  };
  return lab;
}

}  // namespace streamlab
