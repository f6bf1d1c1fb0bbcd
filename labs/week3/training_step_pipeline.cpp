// w3-training-step-pipeline - a three-stage step (input copy, embedding, dense) over
// micro-batches, serial on one stream vs pipelined on three streams joined by events.
// Pipelined, micro-batch i+1's input is copied while i is embedded and i-1 runs the dense
// layers; events keep each micro-batch's stages in order.
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab TrainingStepPipelineLab() {
  Lab lab;
  lab.id = "w3-training-step-pipeline";
  lab.week = 3;
  lab.order = 6;
  lab.variants = {"serial", "pipelined"};
  lab.params = {{"micro_batches", 2, 8, 4, "batches"}, {"embed_us", 50, 5000, 300, "us"}, {"dense_us", 50, 5000, 400, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-training-step-pipeline");
    int m = static_cast<int>(a["micro_batches"]);
    uint64_t bytes = 16ull << 20;
    bool pipelined = a.variant == "pipelined";
    Stream input = b.CreateStream("input");
    Stream embed = pipelined ? b.CreateStream("embed") : input;
    Stream dense = pipelined ? b.CreateStream("dense") : input;
    for (int i = 0; i < m; ++i) {
      std::string id = std::to_string(i);
      Buffer host = b.PinnedBuffer("batch" + id, bytes), dev = b.DeviceBuffer("x" + id, bytes);
      Buffer act = b.DeviceBuffer("act" + id, bytes);
      input.Copy("load" + id, dev, host, bytes);
      if (pipelined) {
        Event loaded = b.CreateEvent("loaded" + id);
        input.Record(loaded);
        embed.Wait(loaded);  // embedding of batch i after its load
      }
      embed.Launch("embed" + id, Spin(Us(a["embed_us"]), 8), {dev}, {act});
      if (pipelined) {
        Event embedded = b.CreateEvent("embedded" + id);
        embed.Record(embedded);
        dense.Wait(embedded);  // dense layers of batch i after its embedding
      }
      dense.Launch("dense" + id, Spin(Us(a["dense_us"]), 8), {act}, {act});
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "serial") return {SpeedupBelow(1.1)};
    return {SpeedupAtLeast(1.4), StartsAfterEnd("embed1", "load1"), StartsAfterEnd("dense1", "embed1")};
  };
  return lab;
}

}  // namespace streamlab
