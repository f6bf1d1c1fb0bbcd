// w1-gpu-is-full - two streams do not make two kernels overlap if each fills the GPU.
// A kernel of 264 blocks of 1024 threads takes every SM slot of an H200 (2 such blocks per
// SM). The second kernel is *ready* at once - its stream is free - but *starts* only when
// the first one's blocks leave: the ready -> start gap is queueing for SMs, not a sync.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// What two GPU-filling kernels do on two streams: they barely overlap, and the second
// starts only as the first one's blocks leave.
std::vector<Expectation> FullGpuClaims(TimeNs block) {
  Expectation waits_for_sms{"big2 starts after big1's blocks leave (within one block time)", [block](const Trace& t) {
    const OpRecord& k1 = OpNamed(t, "big1");
    const OpRecord& k2 = OpNamed(t, "big2");
    TimeNs gap = k2.start - (k1.end - block);
    return CheckResult{gap >= -t.clock_error, "big2 starts " + FormatDuration(k2.start - k1.end) + " after big1 ends"};
  }};
  return {OverlapAtMost("big1", "big2", 0.2), waits_for_sms};
}

}  // namespace

Lab GpuIsFullLab() {
  Lab lab;
  lab.id = "w1-gpu-is-full";
  lab.week = 1;
  lab.order = 2;
  lab.variants = {"full", "small"};
  lab.params = {{"block_us", 20, 5000, 300, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w1-gpu-is-full");
    // full: 132 SMs x 2 blocks of 1024 threads = every slot; small: 4 blocks.
    int grid = a.variant == "full" ? 264 : 4;
    int block = a.variant == "full" ? 1024 : 128;
    Stream s1 = b.CreateStream("s1");
    Stream s2 = b.CreateStream("s2");
    s1.Launch("big1", Spin(Us(a["block_us"]), grid, block));
    s2.Launch("big2", Spin(Us(a["block_us"]), grid, block));  // another stream, same GPU
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "small") return {OverlapAtLeast("big1", "big2", 0.8)};
    TimeNs block = Us(a["block_us"]);
    std::vector<Expectation> claims = FullGpuClaims(block);
    claims.push_back({"big2 was ready long before it started (queued behind busy SMs)", [block](const Trace& t) {
      TimeNs q = QueuedTime(t, OpNamed(t, "big2"));
      return CheckResult{q >= block / 2, "queued " + FormatDuration(q)};
    }});
    return claims;
  };
  // In PyTorch the kernels are StreamLab's spin kernel compiled with NVRTC (264 blocks, as
  // here), but a recorded run has no *ready* time: big2's queueing is measured from its
  // launch's return, when its empty stream let it go.
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant != "full") return {};
    TimeNs block = Us(a["block_us"]);
    std::vector<Expectation> claims = FullGpuClaims(block);
    claims.push_back({"big2 was launched long before it started (queued behind busy SMs, from its launch's return)",
                      [block](const Trace& t) {
                        const OpRecord& k2 = OpNamed(t, "big2");
                        TimeNs q = k2.start - k2.ret;
                        return CheckResult{q >= block / 2, "started " + FormatDuration(q) + " after its launch returned"};
                      }});
    return claims;
  };
  return lab;
}

}  // namespace streamlab
