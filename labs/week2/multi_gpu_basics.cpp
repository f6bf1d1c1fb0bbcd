// w2-multi-gpu-basics - a stream per GPU; parallel vs one after another; waits across GPUs.
// Work on two GPUs runs in parallel when the host submits both before waiting for either;
// synchronising the first GPU before submitting to the second makes it serial. A stream on
// GPU 1 can wait on an event recorded on GPU 0 (cudaStreamWaitEvent works across devices).
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab MultiGpuBasicsLab() {
  Lab lab;
  lab.id = "w2-multi-gpu-basics";
  lab.week = 2;
  lab.order = 9;
  lab.devices = 2;
  lab.variants = {"parallel", "serial", "cross-device-wait"};
  lab.params = {{"kernel_us", 100, 20000, 1000, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-multi-gpu-basics", 2);
    KernelSpec work = Spin(Us(a["kernel_us"]));
    Stream g0 = b.CreateStream("gpu0", {.device = 0});
    Stream g1 = b.CreateStream("gpu1", {.device = 1});
    Event done0 = b.CreateEvent("done0", 0);
    b.host().SetDevice(0);
    g0.Launch("k_gpu0", work);
    if (a.variant == "serial") b.host().SyncDevice();  // waits for GPU 0 before GPU 1 gets work
    if (a.variant == "cross-device-wait") g0.Record(done0);
    b.host().SetDevice(1);
    if (a.variant == "cross-device-wait") g1.Wait(done0);  // GPU 1 waits for GPU 0's event
    g1.Launch("k_gpu1", work);
    b.host().SyncDevice();  // GPU 1
    b.host().SetDevice(0);
    b.host().SyncDevice();  // GPU 0: now both are done
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs kernel = Us(a["kernel_us"]);
    if (a.variant == "parallel")
      return {OverlapAtLeast("k_gpu0", "k_gpu1", 0.8),
              GpuTime("about one GPU's work (< 1.3 kernel times)", [=](TimeNs m) { return m < kernel * 13 / 10; })};
    if (a.variant == "serial")
      return {StartsAfterEnd("k_gpu1", "k_gpu0"),
              GpuTime("about the sum (> 1.8 kernel times)", [=](TimeNs m) { return m > kernel * 18 / 10; })};
    return {StartsAfterEnd("k_gpu1", "k_gpu0")};
  };
  return lab;
}

}  // namespace streamlab
