// w2-legacy-default-stall - the legacy default stream is a barrier for blocking streams.
// s1, then the legacy default stream, then s2: with blocking streams the three kernels run
// one after another; with the per-thread default stream, or with non-blocking side streams
// (what torch.cuda.Stream creates), all three overlap.
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab LegacyDefaultStallLab() {
  Lab lab;
  lab.id = "w2-legacy-default-stall";
  lab.week = 2;
  lab.order = 5;
  lab.variants = {"legacy", "per-thread", "non-blocking"};
  lab.params = {{"kernel_us", 20, 20000, 1000, "us"}, {"blocks", 1, 32, 4, "blocks"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-legacy-default-stall");
    KernelSpec work = Spin(Us(a["kernel_us"]), static_cast<int>(a["blocks"]));
    bool non_blocking = a.variant == "non-blocking";
    Stream s1 = b.CreateStream("s1", {.non_blocking = non_blocking});
    Stream middle = a.variant == "per-thread" ? b.PerThreadDefaultStream() : b.LegacyDefaultStream();
    Stream s2 = b.CreateStream("s2", {.non_blocking = non_blocking});
    s1.Launch("k_s1", work);
    middle.Launch("k_default", work);  // legacy: waits for all blocking streams' work...
    s2.Launch("k_s2", work);           // ...and blocking streams' later work waits for it
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "legacy")
      return {StartsAfterEnd("k_default", "k_s1"), StartsAfterEnd("k_s2", "k_default")};
    return {OverlapAtLeast("k_s1", "k_default", 0.8), OverlapAtLeast("k_default", "k_s2", 0.8),
            OverlapAtLeast("k_s1", "k_s2", 0.8)};
  };
  // PyTorch's side streams are non-blocking: the legacy stream holds nothing back
  // (on an H100: k_default began 952 us before k_s1 ended).
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "legacy") return {};
    return {OverlapAtLeast("k_s1", "k_default", 0.8), OverlapAtLeast("k_default", "k_s2", 0.8)};
  };
  return lab;
}

}  // namespace streamlab
