// w2-lazy-loading - the first launch of a kernel can be a hidden synchronisation.
// Under CUDA_MODULE_LOADING=LAZY (the default since CUDA 12.2) a kernel function's module is
// loaded at its first launch. On an H200 the load waited for the work already running and
// all later work waited for the load: 8 streams of A -> B took three kernel times instead of
// two. EAGER loading, or one warm-up launch, removes it.
#include "engine/analysis/analyzer.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab LazyLoadingLab() {
  Lab lab;
  lab.id = "w2-lazy-loading";
  lab.week = 2;
  lab.order = 7;
  lab.variants = {"lazy", "eager", "lazy-with-warm-up"};
  lab.params = {{"kernel_us", 200, 10000, 1000, "us"}, {"streams", 2, 16, 8, "streams"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-lazy-loading");
    b.settings().lazy_loading = a.variant != "eager";             // CUDA_MODULE_LOADING
    b.settings().warmup = a.variant == "lazy-with-warm-up";       // one unmeasured pass first
    for (int i = 0; i < static_cast<int>(a["streams"]); ++i) {
      Stream s = b.CreateStream("s" + std::to_string(i));
      s.Launch("A" + std::to_string(i), Spin(Us(a["kernel_us"]), 1, 128, 2));  // function A
      s.Launch("B" + std::to_string(i), Spin(Us(a["kernel_us"]), 1, 128, 3));  // function B
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs kernel = Us(a["kernel_us"]);
    if (a.variant == "lazy")
      return {GpuTime("about one kernel time longer than A then B", [=](TimeNs m) { return m >= 2 * kernel + kernel * 6 / 10; }),
              {"the analyzer names the module load", [](const Trace& t) {
                int n = 0;
                for (const Finding& f : Analyze(t).findings) n += f.cause == Cause::kModuleLoad;
                return CheckResult{n > 0, std::to_string(n) + " ops held by a module load"};
              }}};
    return {GpuTime("about A then B", [=](TimeNs m) { return m <= 2 * kernel + kernel * 3 / 10; })};
  };
  // Every PyTorch kernel here is torch.cuda._sleep, one function: one module load, loaded
  // before the measured calls, so no barrier holds the streams in any variant (lazy 2.52,
  // eager 2.69, with a warm-up 2.42 ms on an H100 for A then B = 2 ms; Python's launch rate
  // spreads the starts).
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs kernel = Us(a["kernel_us"]);
    return {GpuTime("no module-load barrier between the streams: under 1.5 x (A then B)",
                    [=](TimeNs m) { return m < 3 * kernel; })};
  };
  return lab;
}

}  // namespace streamlab
