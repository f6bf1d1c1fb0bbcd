// w3-comm-compute-overlap - hide gradient communication under compute (two GPUs).
// Each GPU runs the backward pass layer by layer. When a layer's gradient bucket is ready
// (an event on the compute stream), a communication stream sends it to the other GPU with
// cudaMemcpyPeerAsync while the next layer computes - the bucketed overlap data-parallel
// training uses (NCCL all-reduce in practice; peer copies here). Sending on the compute
// stream instead puts every transfer on the critical path.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// Fraction of the sends' time during which a compute kernel ran on the same GPU.
double HiddenFraction(const Trace& t) {
  TimeNs comm = 0, hidden = 0;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kPeerCopy) continue;
    const OpRecord& send = t.ops[i];
    comm += send.end - send.start;
    int device = t.scenario.streams[op.stream].device;
    // Compute kernels on one GPU do not overlap each other (one stream), so overlaps add up.
    for (size_t k = 0; k < t.ops.size(); ++k) {
      const Op& kop = t.scenario.ops[k];
      if (kop.kind != OpKind::kKernel || t.scenario.streams[kop.stream].device != device) continue;
      TimeNs lo = std::max(send.start, t.ops[k].start), hi = std::min(send.end, t.ops[k].end);
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
  lab.variants = {"overlapped", "serial"};
  lab.params = {{"layers", 2, 8, 4, "layers"}, {"layer_us", 100, 5000, 500, "us"}, {"bucket_mb", 4, 256, 64, "MB"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-comm-compute-overlap", 2);
    int layers = static_cast<int>(a["layers"]);
    uint64_t bytes = static_cast<uint64_t>(a["bucket_mb"]) << 20;
    bool overlapped = a.variant == "overlapped";
    std::vector<Stream> compute, comm;
    std::vector<std::vector<Buffer>> grad(2), recv(2);
    for (int g = 0; g < 2; ++g) {
      compute.push_back(b.CreateStream("compute" + std::to_string(g), {.device = g}));
      comm.push_back(b.CreateStream("comm" + std::to_string(g), {.device = g}));
      for (int l = 0; l < layers; ++l) {
        grad[g].push_back(b.DeviceBuffer("grad" + std::to_string(g) + "_" + std::to_string(l), bytes, g));
        recv[g].push_back(b.DeviceBuffer("recv" + std::to_string(g) + "_" + std::to_string(l), bytes, g));
      }
    }
    for (int l = layers - 1; l >= 0; --l) {  // backward: last layer first
      for (int g = 0; g < 2; ++g) {
        std::string id = std::to_string(l) + "_gpu" + std::to_string(g);
        compute[g].Launch("backward" + id, Spin(Us(a["layer_us"]), 8), {}, {grad[g][l]});
        if (overlapped) {
          Event ready = b.CreateEvent("grad_ready" + id, g);
          compute[g].Record(ready);  // this layer's gradient bucket is complete
          comm[g].Wait(ready);       // the comm stream sends it while the next layer computes
          comm[g].PeerCopy("send" + id, recv[1 - g][l], grad[g][l], bytes);
        } else {
          compute[g].PeerCopy("send" + id, recv[1 - g][l], grad[g][l], bytes);  // on the critical path
        }
      }
    }
    for (int g = 0; g < 2; ++g) {
      b.host().SetDevice(g);
      b.host().SyncDevice();
    }
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    int layers = static_cast<int>(a["layers"]);
    if (a.variant == "overlapped")
      return {{"most communication is hidden under compute", [layers](const Trace& t) {
        double f = HiddenFraction(t);
        // All but the last bucket can hide behind the next layer.
        double need = 0.8 * static_cast<double>(layers - 1) / layers;
        return CheckResult{f >= need, "hidden " + FormatPercent(f) + " of the transfer time (need " + FormatPercent(need) + ")"};
      }}};
    return {{"no communication is hidden (it is on the compute stream)", [](const Trace& t) {
      double f = HiddenFraction(t);
      return CheckResult{f <= 0.05, "hidden " + FormatPercent(f)};
    }}};
  };
  return lab;
}

}  // namespace streamlab
