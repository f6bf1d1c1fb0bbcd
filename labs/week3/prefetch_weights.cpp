// w3-prefetch-weights - sharded training's weights (FSDP, ZeRO-3): each GPU keeps only its
// shard of every layer, and gathers a layer's full weights (an NCCL all-gather) just before
// computing it. Gathered on demand into one buffer, layer i+1's gather must wait until layer
// i is done with the buffer: communication and compute take turns. With two buffers, layer
// i+1's weights are gathered on the communication stream while layer i computes - the
// prefetch FSDP and ZeRO-3 do - at the price of two layers' full weights on the GPU at once.
#include "engine/util/format.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab PrefetchWeightsLab() {
  Lab lab;
  lab.id = "w3-prefetch-weights";
  lab.week = 3;
  lab.order = 12;
  lab.devices = 2;
  lab.variants = {"on-demand", "prefetch"};
  lab.params = {{"layers", 2, 8, 4, "layers"}, {"layer_us", 100, 5000, 400, "us"}, {"weight_mb", 8, 1024, 128, "MB"}};

  lab.build = [](const LabArgs& a) {
    constexpr int kGpus = 2;
    ScenarioBuilder b("w3-prefetch-weights", kGpus);
    int layers = static_cast<int>(a["layers"]);
    uint64_t bytes = static_cast<uint64_t>(a["weight_mb"]) << 20;  // one layer's full weights
    int buffers = a.variant == "prefetch" ? 2 : 1;  // full layers resident at once
    std::vector<Stream> compute, comm;
    std::vector<std::vector<Buffer>> weights(buffers);
    for (int g = 0; g < kGpus; ++g) {
      compute.push_back(b.CreateStream("compute" + std::to_string(g), {.device = g}));
      comm.push_back(b.CreateStream("comm" + std::to_string(g), {.device = g}));
      for (int k = 0; k < buffers; ++k)
        weights[k].push_back(b.DeviceBuffer("full" + std::to_string(k) + "_gpu" + std::to_string(g), bytes, g));
    }
    std::vector<std::vector<Event>> done(kGpus);  // done[g][i]: layer i no longer needs its buffer
    for (int i = 0; i < layers; ++i) {
      const std::vector<Buffer>& into = weights[i % buffers];
      std::string id = std::to_string(i);
      for (int g = 0; g < kGpus; ++g) {
        b.host().SetDevice(g);
        // The buffer is free once the layer that used it last has computed.
        if (i >= buffers) comm[g].Wait(done[g][i - buffers]);
      }
      b.Collective("gather" + id, CollectiveKind::kAllGather, comm, into, bytes);
      for (int g = 0; g < kGpus; ++g) {
        std::string on = "_gpu" + std::to_string(g);
        b.host().SetDevice(g);
        Event gathered = b.CreateEvent("gathered" + id + on, g);
        comm[g].Record(gathered);
        compute[g].Wait(gathered);
        compute[g].Launch("fwd" + id + on, Spin(Us(a["layer_us"]), 8), {into[g]}, {});
        done[g].push_back(b.CreateEvent("fwd" + id + on + "_done", g));
        compute[g].Record(done[g].back());
      }
    }
    b.host().SyncEveryDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "on-demand")
      return {StartsAfterEnd("gather1_gpu0", "fwd0_gpu0"), StartsAfterEnd("fwd1_gpu0", "gather1_gpu0"),
              OverlapAtMost("gather1_gpu0", "fwd0_gpu0", 0.05)};
    // gather2 reuses layer 0's buffer: it may start only once fwd0 is done.
    return {OverlapAtLeast("gather1_gpu0", "fwd0_gpu0", 0.8), StartsAfterEnd("gather2_gpu0", "fwd0_gpu0"),
            {"fwd1 starts within 50 us of fwd0's end: its weights were already there", [](const Trace& t) {
               TimeNs gap = OpNamed(t, "fwd1_gpu0").start - OpNamed(t, "fwd0_gpu0").end;
               return CheckResult{gap <= Us(50), "gap " + FormatDuration(gap)};
             }}};
  };
  return lab;
}

}  // namespace streamlab
