// w1-hardware-queues - many streams share few hardware queues.
// 32 streams each run A then B. With CUDA_DEVICE_MAX_CONNECTIONS = 8 (the default), four
// streams share each hardware queue, and a queue is FIFO across its streams: B of one
// stream, waiting for its A, holds back A of the next stream - a false dependency. With 32
// connections every stream has its own queue; with 1, everything is nearly serial (which is
// why Megatron-LM sets 1: it pins the order of communication and compute kernels).
// Submitting breadth-first (all A, then all B) avoids the false dependencies.
#include <algorithm>

#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab HardwareQueuesLab() {
  Lab lab;
  lab.id = "w1-hardware-queues";
  lab.week = 1;
  lab.order = 5;
  lab.variants = {"connections-8", "connections-32", "connections-1", "breadth-first"};
  lab.params = {{"kernel_us", 100, 5000, 1000, "us"}, {"streams", 8, 32, 32, "streams"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w1-hardware-queues");
    int n = static_cast<int>(a["streams"]);
    if (a.variant == "connections-32") b.settings().max_connections = 32;  // CUDA_DEVICE_MAX_CONNECTIONS
    if (a.variant == "connections-1") b.settings().max_connections = 1;
    std::vector<Stream> streams;
    for (int i = 0; i < n; ++i) streams.push_back(b.CreateStream("s" + std::to_string(i)));
    KernelSpec kernel_a = Spin(Us(a["kernel_us"]), 1, 128, 0);
    KernelSpec kernel_b = Spin(Us(a["kernel_us"]), 1, 128, 1);
    if (a.variant == "breadth-first") {
      for (int i = 0; i < n; ++i) streams[i].Launch("A" + std::to_string(i), kernel_a);
      for (int i = 0; i < n; ++i) streams[i].Launch("B" + std::to_string(i), kernel_b);
    } else {  // depth-first: A0 B0 A1 B1 ...
      for (int i = 0; i < n; ++i) {
        streams[i].Launch("A" + std::to_string(i), kernel_a);
        streams[i].Launch("B" + std::to_string(i), kernel_b);
      }
    }
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs kernel = Us(a["kernel_us"]);
    int n = static_cast<int>(a["streams"]);
    // Ideal: A then B, plus the host's time to submit 2n launches (~5-10 us each).
    TimeNs ideal = 2 * kernel + n * Us(20);
    if (a.variant == "connections-32" || a.variant == "breadth-first" || n <= 8)
      return {GpuTime("about the ideal time (A then B)", [=](TimeNs m) { return m <= ideal; })};
    if (a.variant == "connections-1")
      return {GpuTime("nearly serial: at least (n + 1) / 2 kernel times", [=](TimeNs m) { return m >= (n + 1) * kernel / 2; })};
    return {GpuTime("longer than ideal by at least one kernel time (false dependencies)",
                     [=](TimeNs m) { return m >= 2 * kernel + kernel; })};
  };
  // In PyTorch each launch costs Python ~35 us (with the NVTX range per op), so 64 launches
  // take ~2.2 ms and the GPU time follows the host (4.19 ms with 32 connections, 3.14 ms
  // breadth-first, on an H100). What the lab is about still shows, per kernel: with a queue
  // per stream, or breadth-first order, nothing but its own stream and its launch holds a
  // kernel back (worst 29 us late on the H100), while with 8 connections 24 of 64 were held
  // by another stream's work, up to 1.49 ms. The other variants keep the lab's claims.
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "connections-32" && a.variant != "breadth-first") return {};
    int n = static_cast<int>(a["streams"]);
    return {{"no false dependencies: every kernel starts within 100 us of when its stream and its launch allow",
             [=](const Trace& t) {
               TimeNs worst = 0;
               for (int i = 0; i < n; ++i) {
                 const OpRecord& first = OpNamed(t, "A" + std::to_string(i));
                 const OpRecord& second = OpNamed(t, "B" + std::to_string(i));
                 worst = std::max({worst, first.start - first.submit, second.start - std::max(first.end, second.submit)});
               }
               return CheckResult{worst <= Us(100), "the latest kernel started " + FormatDuration(worst) + " after it could"};
             }}};
  };
  return lab;
}

}  // namespace streamlab
