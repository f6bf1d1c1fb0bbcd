// w3-comm-compute-overlap - hide gradient all-reduce under the backward pass (2 or 4 GPUs).
// Each GPU runs the backward pass layer by layer. When a layer's gradient bucket is ready
// (an event on the compute stream), a communication stream all-reduces it with NCCL across
// the GPUs while the next layer computes - the bucketed overlap PyTorch's
// DistributedDataParallel does. All-reducing on the compute stream instead puts every
// collective on the critical path.
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "engine/util/format.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// Fraction of the collectives' time during which a compute kernel ran on the same GPU.
double HiddenFraction(const Trace& t) {
  TimeNs comm = 0, hidden = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kCollective) continue;
    const OpRecord& part = t.ops[i];
    comm += part.end - part.start;
    int device = t.scenario.streams[op.stream].device;
    // Compute kernels on one GPU do not overlap each other (one stream), so overlaps add up.
    for (size_t k = 0; k < t.ops.size(); ++k) {
      const Op& kop = t.scenario.ops[k];
      if (kop.kind != OpKind::kKernel || t.scenario.streams[kop.stream].device != device) continue;
      TimeNs lo = std::max(part.start, t.ops[k].start), hi = std::min(part.end, t.ops[k].end);
      if (hi > lo) hidden += hi - lo;
    }
  }
  return comm > 0 ? static_cast<double>(hidden) / static_cast<double>(comm) : 0.0;
}

}  // namespace

Lab CommComputeOverlapLab() {
  Lab lab;
  lab.id = "w3-comm-compute-overlap";
  lab.week = 3;
  lab.order = 3;
  lab.devices = 2;
  lab.variants = {"overlapped", "serial", "overlapped-4gpu", "serial-4gpu"};
  lab.variant_devices = {{"overlapped-4gpu", 4}, {"serial-4gpu", 4}};
  lab.params = {{"layers", 2, 8, 4, "layers"}, {"layer_us", 100, 5000, 500, "us"}, {"bucket_mb", 4, 256, 64, "MB"}};

  lab.build = [](const LabArgs& a) {
    int gpus = CollectiveLabGpus(a.variant);
    ScenarioBuilder b("w3-comm-compute-overlap", gpus);
    int layers = static_cast<int>(a["layers"]);
    uint64_t bytes = static_cast<uint64_t>(a["bucket_mb"]) << 20;
    bool overlapped = a.variant.starts_with("overlapped");
    std::vector<Stream> compute, comm;
    std::vector<std::vector<Buffer>> grad(layers);
    for (int g = 0; g < gpus; ++g) {
      compute.push_back(b.CreateStream("compute" + std::to_string(g), {.device = g}));
      comm.push_back(b.CreateStream("comm" + std::to_string(g), {.device = g}));
    }
    for (int l = 0; l < layers; ++l)
      for (int g = 0; g < gpus; ++g)
        grad[l].push_back(b.DeviceBuffer("grad" + std::to_string(g) + "_" + std::to_string(l), bytes, g));
    for (int l = layers - 1; l >= 0; --l) {  // backward: last layer first
      for (int g = 0; g < gpus; ++g) {
        std::string id = std::to_string(l) + "_gpu" + std::to_string(g);
        compute[g].Launch("backward" + id, Spin(Us(a["layer_us"]), 8), {}, {grad[l][g]});
        if (overlapped) {
          Event ready = b.CreateEvent("grad_ready" + id, g);
          compute[g].Record(ready);  // this layer's gradient bucket is complete
          comm[g].Wait(ready);       // the comm stream all-reduces it while the next layer computes
        }
      }
      // One all-reduce per bucket, every GPU's part in one ncclGroupStart/End.
      b.Collective("allreduce" + std::to_string(l), CollectiveKind::kAllReduce, overlapped ? comm : compute, grad[l],
                   bytes);
    }
    b.host().SyncEveryDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    int layers = static_cast<int>(a["layers"]);
    if (a.variant.starts_with("overlapped"))
      return {{"most communication is hidden under compute", [layers](const Trace& t) {
        double f = HiddenFraction(t);
        // All but the last bucket can hide behind the next layer.
        double need = 0.8 * static_cast<double>(layers - 1) / layers;
        return CheckResult{f >= need, "hidden " + FormatPercent(f) + " of the all-reduce time (need " + FormatPercent(need) + ")"};
      }}};
    return {{"no communication is hidden (it is on the compute stream)", [](const Trace& t) {
      double f = HiddenFraction(t);
      return CheckResult{f <= 0.05, "hidden " + FormatPercent(f)};
    }}};
  };
  return lab;
}

}  // namespace streamlab
