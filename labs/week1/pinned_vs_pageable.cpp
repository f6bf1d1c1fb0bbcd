// w1-pinned-vs-pageable - an "async" copy is only asynchronous from pinned memory.
// s1 computes while a 64 MB host-to-device copy goes out on a non-blocking stream. From
// pinned memory the call returns at once and the copy engine runs alongside the kernel;
// from pageable memory the host thread itself stages the data and is blocked until the
// copy is done, so it cannot submit anything else meanwhile.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab PinnedVsPageableLab() {
  Lab lab;
  lab.id = "w1-pinned-vs-pageable";
  lab.week = 1;
  lab.order = 6;
  lab.variants = {"pinned", "pageable"};
  lab.params = {{"megabytes", 8, 512, 64, "MB"}, {"kernel_us", 100, 20000, 2000, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w1-pinned-vs-pageable");
    uint64_t bytes = static_cast<uint64_t>(a["megabytes"]) << 20;
    Buffer host = a.variant == "pinned" ? b.PinnedBuffer("host", bytes)     // cudaMallocHost
                                        : b.PageableBuffer("host", bytes);  // malloc
    Buffer dev = b.DeviceBuffer("dev", bytes);
    Stream compute = b.CreateStream("compute");
    Stream copy = b.CreateStream("copy", {.non_blocking = true});
    compute.Launch("compute", Spin(Us(a["kernel_us"])));
    copy.Copy("h2d", dev, host, bytes);  // cudaMemcpyAsync(dev, host, ..., copy)
    compute.Launch("next", Spin(Us(100)));  // the host's next submission
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "pinned")
      return {{"the copy call returns at once (< 100 us)", [](const Trace& t) {
                 TimeNs h = HostCallTime(OpNamed(t, "h2d"));
                 return CheckResult{h < Us(100), "host in the call " + FormatDuration(h)};
               }},
              OverlapAtLeast("compute", "h2d", 0.5)};
    return {{"the host is blocked for most of the copy", [](const Trace& t) {
              const OpRecord& c = OpNamed(t, "h2d");
              double f = static_cast<double>(HostCallTime(c)) / static_cast<double>(std::max<TimeNs>(1, c.end - c.start));
              return CheckResult{f > 0.7, "host blocked " + FormatDuration(HostCallTime(c)) + " (" + FormatPercent(f) +
                                              " of the copy)"};
            }},
            {"the host could submit the next kernel only after the copy", [](const Trace& t) {
              const OpRecord& c = OpNamed(t, "h2d");
              const OpRecord& n = OpNamed(t, "next");
              return CheckResult{n.submit >= c.ret, "next submitted " + FormatDuration(n.submit - c.submit) +
                                                         " after the copy call began"};
            }}};
  };
  return lab;
}

}  // namespace streamlab
