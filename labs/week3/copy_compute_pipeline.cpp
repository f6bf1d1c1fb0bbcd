// w3-copy-compute-pipeline - chunk the data and spread it over streams so copies and
// compute overlap. H2D -> kernel -> D2H on one stream is strictly serial. Split into N chunks
// on N streams, chunk k+1's upload runs while chunk k computes and chunk k-1 downloads: the
// H2D engine, the SMs and the D2H engine all work at once.
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab CopyComputePipelineLab() {
  Lab lab;
  lab.id = "w3-copy-compute-pipeline";
  lab.week = 3;
  lab.order = 1;
  lab.variants = {"streams-1", "streams-2", "streams-4"};
  lab.params = {{"megabytes", 8, 512, 64, "MB"}, {"compute_us_per_mb", 1, 200, 20, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-copy-compute-pipeline");
    int n = a.variant == "streams-1" ? 1 : a.variant == "streams-2" ? 2 : 4;
    uint64_t chunk = (static_cast<uint64_t>(a["megabytes"]) << 20) / n;
    TimeNs compute = Us(a["compute_us_per_mb"] * a["megabytes"] / n);  // a stand-in for real work
    for (int k = 0; k < n; ++k) {
      std::string id = std::to_string(k);
      Stream s = b.CreateStream("s" + id);
      Buffer in = b.PinnedBuffer("in" + id, chunk), out = b.PinnedBuffer("out" + id, chunk);
      Buffer dev = b.DeviceBuffer("dev" + id, chunk);
      s.Copy("h2d" + id, dev, in, chunk);                     // upload chunk k
      s.Launch("compute" + id, Spin(compute, 8), {dev}, {dev});  // work on it
      s.Copy("d2h" + id, out, dev, chunk);                    // download it
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "streams-1") return {SpeedupBelow(1.1)};
    return {SpeedupAtLeast(a.variant == "streams-2" ? 1.3 : 1.6)};
  };
  return lab;
}

}  // namespace streamlab
