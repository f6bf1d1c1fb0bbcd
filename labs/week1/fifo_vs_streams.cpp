// w1-fifo-vs-streams - a stream is a FIFO queue.
// Two small kernels on one stream run back to back; on two streams they overlap; on N
// streams they fan out across the GPU (as long as their blocks fit on the SMs together).
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab FifoVsStreamsLab() {
  Lab lab;
  lab.id = "w1-fifo-vs-streams";
  lab.week = 1;
  lab.order = 1;
  lab.variants = {"one-stream", "two-streams", "n-streams"};
  lab.params = {{"kernel_us", 20, 20000, 500, "us"},
                {"blocks", 1, 16, 4, "blocks"},
                {"streams", 2, 16, 4, "streams"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w1-fifo-vs-streams");
    KernelSpec work = Spin(Us(a["kernel_us"]), static_cast<int>(a["blocks"]));
    if (a.variant == "one-stream") {
      Stream s1 = b.CreateStream("s1");
      s1.Launch("k1", work);  // both kernels in one queue:
      s1.Launch("k2", work);  // k2 cannot start before k1 ends
    } else {
      int n = a.variant == "two-streams" ? 2 : static_cast<int>(a["streams"]);
      for (int i = 1; i <= n; ++i) {
        Stream s = b.CreateStream("s" + std::to_string(i));
        s.Launch("k" + std::to_string(i), work);  // independent queues: free to overlap
      }
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "one-stream") return {OverlapAtMost("k1", "k2", 0.05), StartsAfterEnd("k2", "k1")};
    if (a.variant == "two-streams") return {OverlapAtLeast("k1", "k2", 0.8)};
    std::vector<Expectation> checks;
    for (int i = 2; i <= static_cast<int>(a["streams"]); ++i)
      checks.push_back(OverlapAtLeast("k1", "k" + std::to_string(i), 0.8));
    return checks;
  };
  return lab;
}

}  // namespace streamlab
