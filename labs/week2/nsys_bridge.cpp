// w2-nsys-bridge - from StreamLab to the profilers used on real code.
// A small event chain with host work in between. Every call the executor makes is wrapped
// in an NVTX range named after the op, so `nsys profile -t cuda,nvtx` shows the same names
// on the same streams; the Chrome-trace export opens in Perfetto or chrome://tracing with
// a flow arrow for every record -> wait. The claims check that export against the run.
#include <string>

#include "engine/trace/chrome_trace.h"
#include "engine/scenario/dependencies.h"
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab NsysBridgeLab() {
  Lab lab;
  lab.id = "w2-nsys-bridge";
  lab.week = 2;
  lab.order = 10;
  lab.variants = {"annotated-chain"};
  lab.params = {{"kernel_us", 50, 5000, 300, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-nsys-bridge");
    Stream load = b.CreateStream("load", {.non_blocking = true});
    Stream compute = b.CreateStream("compute", {.non_blocking = true});
    Event loaded = b.CreateEvent("loaded");
    Buffer host = b.PinnedBuffer("batch_host", 16 << 20);
    Buffer dev = b.DeviceBuffer("batch", 16 << 20);
    load.Copy("upload", dev, host, 16 << 20);
    load.Record(loaded);
    b.host().Work("prepare_next", Us(a["kernel_us"] / 2));
    compute.Wait(loaded);
    compute.Launch("forward", Spin(Us(a["kernel_us"])), {dev}, {});
    compute.Launch("backward", Spin(Us(a["kernel_us"])), {dev}, {});
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs&) -> std::vector<Expectation> {
    Expectation exported{"the Chrome trace has a slice for every GPU op and a flow arrow for the record -> wait",
                       [](const Trace& t) {
                         Json chrome = ChromeTraceJson(t);
                         int gpu_ops = 0, slices = 0, flows = 0;
                         for (const OpRecord& r : t.ops) gpu_ops += r.gpu;
                         for (const Json& e : chrome["traceEvents"]) {
                           std::string ph = e.value("ph", "");
                           std::string cat = e.value("cat", "");
                           slices += ph == "X" && cat != "host" && cat != "queued";
                           flows += ph == "s";
                         }
                         return CheckResult{slices == gpu_ops && flows == 1,
                                            std::to_string(slices) + " GPU slices for " + std::to_string(gpu_ops) +
                                                " GPU ops, " + std::to_string(flows) + " flow arrow"};
                       }};
    return {StartsAfterEnd("forward", "upload"), StartsAfterEnd("backward", "forward"), exported};
  };
  return lab;
}

}  // namespace streamlab
