// w2-implicit-sync-zoo - which calls between two streams' kernels serialise them, and which
// block the host. s1 runs a kernel, the host makes one call, s2 runs a kernel. Measured on an
// H200: cudaMalloc only costs host time; cudaFree waits for the device; cudaMemset runs on
// the legacy stream (a barrier for blocking streams) but returns at once; a pageable
// "async" copy blocks the host; cudaMallocHost is slow (it pins every page) but did not wait
// for the running kernel, although the CUDA guide lists it among the calls that prevent
// concurrency; cudaDeviceSynchronize and CUDA_LAUNCH_BLOCKING=1 serialise.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab ImplicitSyncZooLab() {
  Lab lab;
  lab.id = "w2-implicit-sync-zoo";
  lab.week = 2;
  lab.order = 6;
  lab.variants = {"malloc", "free", "memset", "pageable-copy", "malloc-host", "device-sync", "launch-blocking"};
  lab.params = {{"kernel_us", 200, 10000, 1000, "us"}, {"megabytes", 8, 256, 64, "MB"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-implicit-sync-zoo");
    const std::string& v = a.variant;
    uint64_t bytes = static_cast<uint64_t>(a["megabytes"]) << 20;
    Buffer dev = b.DeviceBuffer("dev", bytes);
    Buffer pinned = b.PinnedBuffer("pinned", bytes);
    Buffer pageable = b.PageableBuffer("pageable", bytes);
    if (v == "launch-blocking") b.settings().launch_blocking = true;  // CUDA_LAUNCH_BLOCKING=1
    Stream s1 = b.CreateStream("s1");
    Stream s2 = b.CreateStream("s2");
    Stream copies = b.CreateStream("copies", {.non_blocking = true});
    s1.Launch("k1", Spin(Us(a["kernel_us"])));
    if (v == "malloc") b.host().Malloc(dev);
    if (v == "free") b.host().Free(dev);
    if (v == "memset") b.host().Memset("cudaMemset", dev, bytes);
    if (v == "pageable-copy") copies.Copy("pageable H2D", dev, pageable, bytes);
    if (v == "malloc-host") b.host().MallocHost(pinned);
    if (v == "device-sync") b.host().SyncDevice();
    s2.Launch("k2", Spin(Us(a["kernel_us"])));
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    const std::string& v = a.variant;
    auto host_call = [](OpKind kind, const std::string& claim, std::function<bool(TimeNs)> ok) {
      return Expectation{claim, [=](const Trace& t) {
        for (size_t i = 0; i < t.ops.size(); ++i)
          if (t.scenario.ops[i].kind == kind) {
            TimeNs h = HostCallTime(t.ops[i]);
            return CheckResult{ok(h), "host in the call " + FormatDuration(h)};
          }
        return CheckResult{false, "no such call"};
      }};
    };
    TimeNs kernel = Us(a["kernel_us"]);
    if (v == "malloc") return {OverlapAtLeast("k1", "k2", 0.5)};
    if (v == "free")
      return {StartsAfterEnd("k2", "k1"),
              host_call(OpKind::kFree, "cudaFree blocks the host until k1 is done", [=](TimeNs h) { return h >= kernel / 2; })};
    if (v == "memset")
      return {StartsAfterEnd("k2", "k1"),
              host_call(OpKind::kMemset, "cudaMemset returns at once (< 100 us)", [](TimeNs h) { return h < Us(100); })};
    if (v == "pageable-copy")
      return {host_call(OpKind::kMemcpy, "the pageable copy blocks the host (> 1 ms for 64 MB)", [](TimeNs h) { return h > Ms(1); })};
    if (v == "malloc-host")
      return {{"k2 is held only by the host's time in cudaMallocHost (starts < 100 us after it returns)",
               [](const Trace& t) {
                 for (size_t i = 0; i < t.ops.size(); ++i)
                   if (t.scenario.ops[i].kind == OpKind::kMallocHost) {
                     TimeNs after = OpNamed(t, "k2").start - t.ops[i].ret;
                     return CheckResult{after > -t.clock_error - Us(1) && after < Us(100),
                                        "k2 starts " + FormatDuration(after) + " after cudaMallocHost returns"};
                   }
                 return CheckResult{false, "no cudaMallocHost"};
               }}};
    return {StartsAfterEnd("k2", "k1")};  // device-sync, launch-blocking
  };
  // PyTorch's fill_ runs on the legacy stream, but its side streams are non-blocking: k2
  // does not wait behind k1 (k2 began 864 us before k1 ended on an H100).
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "memset") return {};
    return {OverlapAtLeast("k1", "k2", 0.5)};
  };
  return lab;
}

}  // namespace streamlab
