// w3-activation-offload - activations sent to host memory during the forward pass and fetched
// back for the backward pass, on a copy stream beside the compute stream (what
// torch.autograd.graph.save_on_cpu and the offload options of large-model trainers do, to
// fit a model whose activations do not fit on the GPU). With pinned host memory and a chunk
// that copies faster than a layer computes, the copies hide under the compute; with pageable
// memory each save holds the host until it is done, so the next layer is launched late; with
// a chunk too large, the backward pass waits for its activations.
#include "engine/util/format.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// The compute alone: a forward and a backward kernel per layer.
TimeNs ComputeTime(const LabArgs& a) { return 2 * static_cast<TimeNs>(a["layers"]) * Us(a["layer_us"]); }

Expectation GpuTimeWithin(const LabArgs& a, double factor) {
  TimeNs compute = ComputeTime(a);
  return GpuTime("GPU time within " + FormatPercent(factor - 1) + " of the compute alone (" + FormatDuration(compute) + ")",
                 [=](TimeNs t) { return static_cast<double>(t) <= factor * static_cast<double>(compute); });
}

Expectation GpuTimeAbove(const LabArgs& a, double factor) {
  TimeNs compute = ComputeTime(a);
  return GpuTime("GPU time at least " + FormatPercent(factor - 1) + " above the compute alone (" + FormatDuration(compute) + ")",
                 [=](TimeNs t) { return static_cast<double>(t) >= factor * static_cast<double>(compute); });
}

}  // namespace

Lab ActivationOffloadLab() {
  Lab lab;
  lab.id = "w3-activation-offload";
  lab.week = 3;
  lab.order = 10;
  lab.variants = {"on-gpu", "pinned", "pageable", "large-chunk"};
  lab.params = {{"layers", 2, 8, 4, "layers"}, {"layer_us", 50, 5000, 400, "us"}, {"chunk_mb", 1, 64, 8, "MB"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-activation-offload");
    int layers = static_cast<int>(a["layers"]);
    bool offload = a.variant != "on-gpu";
    // large-chunk: eight times the activations per layer (a longer sequence, a bigger batch).
    uint64_t bytes = static_cast<uint64_t>(a["chunk_mb"]) << 20;
    if (a.variant == "large-chunk") bytes *= 8;
    TimeNs layer = Us(a["layer_us"]);
    Stream compute = b.CreateStream("compute", {.non_blocking = true});
    Stream copies = b.CreateStream("offload", {.non_blocking = true});
    Buffer input = b.DeviceBuffer("input", bytes), grad = b.DeviceBuffer("grad", bytes);
    std::vector<Buffer> act, host;
    for (int i = 0; i < layers; ++i) {
      std::string id = std::to_string(i);
      act.push_back(b.DeviceBuffer("act" + id, bytes));
      if (offload)
        host.push_back(a.variant == "pageable" ? b.PageableBuffer("saved" + id, bytes) : b.PinnedBuffer("saved" + id, bytes));
    }
    // Forward: layer i reads the previous activation, writes its own; the copy stream saves
    // it to host memory once it is written (the GPU copy can be dropped after that).
    for (int i = 0; i < layers; ++i) {
      std::string id = std::to_string(i);
      compute.Launch("fwd" + id, Spin(layer, 8), {i == 0 ? input : act[i - 1]}, {act[i]});
      if (!offload) continue;
      Event written = b.CreateEvent("fwd" + id + "_done");
      compute.Record(written);
      copies.Wait(written);
      copies.Copy("save" + id, host[i], act[i], bytes);
    }
    // Backward, last layer first: each activation is fetched back one layer ahead - when
    // the backward kernel before it starts, so at most two are back on the GPU - and its
    // copy runs under that kernel; the compute stream waits for it.
    auto fetch = [&](int i) {
      std::string id = std::to_string(i);
      if (i < layers - 1) {
        Event started = b.CreateEvent("bwd" + std::to_string(i + 1) + "_starts");
        compute.Record(started);  // recorded before bwd i+1: done when it can start
        copies.Wait(started);
      }
      copies.Copy("load" + id, act[i], host[i], bytes);
      Event loaded = b.CreateEvent("load" + id + "_done");
      copies.Record(loaded);
      return loaded;
    };
    std::vector<Event> loaded;  // loaded.back(): the next layer's activation, fetched
    if (offload) loaded.push_back(fetch(layers - 1));
    for (int i = layers - 1; i >= 0; --i) {
      if (offload) compute.Wait(loaded.back());
      if (offload && i > 0) loaded.push_back(fetch(i - 1));
      compute.Launch("bwd" + std::to_string(i), Spin(layer, 8), {act[i]}, {grad});
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "on-gpu") return {GpuTimeWithin(a, 1.05)};
    if (a.variant == "pinned")
      return {GpuTimeWithin(a, 1.2), OverlapAtLeast("save0", "fwd1", 0.9), StartsAfterEnd("bwd0", "load0")};
    // Pageable: each save holds the host until its copy is done, and the copy waits for its
    // layer, so the next layer is launched only then.
    if (a.variant == "pageable") return {StartsAfterEnd("fwd1", "save0"), GpuTimeAbove(a, 1.2)};
    return {GpuTimeAbove(a, 1.5), StartsAfterEnd("bwd0", "load0")};
  };
  return lab;
}

}  // namespace streamlab
