// w1-hardware-queues - many streams share few hardware queues.
// 32 streams each run A then B. With CUDA_DEVICE_MAX_CONNECTIONS = 8 (the default), four
// streams share each hardware queue, and a queue is FIFO across its streams: B of one
// stream, waiting for its A, holds back A of the next stream - a false dependency. With 32
// connections every stream has its own queue; with 1, everything is nearly serial (which is
// why Megatron-LM sets 1: it pins the order of communication and compute kernels).
// Submitting breadth-first (all A, then all B) avoids the false dependencies.
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
  return lab;
}

}  // namespace streamlab
