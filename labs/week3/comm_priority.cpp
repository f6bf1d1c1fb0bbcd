// w3-comm-priority - a DDP step's all-reduce on a high-priority communication stream.
// The backward pass floods every SM with pending blocks. A gradient bucket's all-reduce,
// ready once its layer is done, is a kernel too: at default priority its blocks queue
// behind the next layer's pending blocks (launched first), so it runs only when that
// layer's last wave leaves - nothing is hidden. On a high-priority stream the block
// scheduler hands it the first SMs that free up, and it runs under the next layer.
// (What DDP's and Megatron-LM's communication streams are for; priority never preempts
// running blocks, see w2-priority.) With one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1,
// as Megatron-LM sets it) the queue pins the order: the all-reduce, issued before backward0,
// reaches the GPU first. But every wait in that queue now holds all that follows: launched
// from one process for both GPUs, NCCL makes its internal stream wait for the all-reduce,
// and backward0 waits behind that for the whole all-reduce. With a process per GPU
// (torchrun, the PyTorch backend) nothing waits, and the all-reduce runs under backward0.
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "engine/util/format.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab CommPriorityLab() {
  Lab lab;
  lab.id = "w3-comm-priority";
  lab.week = 3;
  lab.order = 8;
  lab.devices = 2;
  lab.variants = {"high-priority", "default-priority", "one-connection"};
  lab.params = {{"block_us", 20, 1000, 100, "us"}, {"waves", 3, 20, 8, "waves"}, {"bucket_mb", 4, 256, 64, "MB"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-comm-priority", 2);
    TimeNs block = Us(a["block_us"]);
    int waves = static_cast<int>(a["waves"]);
    uint64_t bytes = static_cast<uint64_t>(a["bucket_mb"]) << 20;
    int priority = a.variant == "high-priority" ? -5 : 0;  // lower number = higher priority
    if (a.variant == "one-connection") b.settings().max_connections = 1;
    std::vector<Stream> compute, comm;
    std::vector<Buffer> grad1, grad0;
    for (int g = 0; g < 2; ++g) {
      compute.push_back(b.CreateStream("compute" + std::to_string(g), {.device = g}));
      comm.push_back(b.CreateStream("comm" + std::to_string(g), {.priority = priority, .device = g}));
      grad1.push_back(b.DeviceBuffer("grad1_" + std::to_string(g), bytes, g));
      grad0.push_back(b.DeviceBuffer("grad0_" + std::to_string(g), bytes, g));
    }
    for (int g = 0; g < 2; ++g) {
      // 264 blocks of 1024 threads fill an H200 or H100 (2 per SM): `waves` rounds of them.
      compute[g].Launch("backward1_gpu" + std::to_string(g), Spin(block, 264 * waves, 1024), {}, {grad1[g]});
      Event ready = b.CreateEvent("grad1_ready" + std::to_string(g), g);
      compute[g].Record(ready);
      comm[g].Wait(ready);
    }
    b.Collective("allreduce1", CollectiveKind::kAllReduce, comm, grad1, bytes);
    for (int g = 0; g < 2; ++g)
      compute[g].Launch("backward0_gpu" + std::to_string(g), Spin(block, 264 * waves, 1024, 1), {}, {grad0[g]});
    b.host().SyncEveryDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs block = Us(a["block_us"]);
    if (a.variant == "high-priority")
      return {{"allreduce1 runs under backward0: it ends at least two block times before backward0 does",
               [block](const Trace& t) {
                 TimeNs margin = OpNamed(t, "backward0_gpu0").end - OpNamed(t, "allreduce1_gpu0").end;
                 return CheckResult{margin >= 2 * block, "allreduce1 ends " + FormatDuration(margin) + " before backward0"};
               }}};
    if (a.variant == "one-connection") {
      // NCCL's wait for its own kernel (see the header) sits in the single queue ahead of
      // backward0, so backward0 gets no SM before the all-reduce has ended.
      std::vector<Expectation> claims;
      for (int g = 0; g < 2; ++g) {
        std::string gpu = std::to_string(g);
        claims.push_back({"backward0_gpu" + gpu + " starts only after allreduce1_gpu" + gpu + " has ended: one queue holds it",
                          [gpu](const Trace& t) {
                            TimeNs after = OpNamed(t, "backward0_gpu" + gpu).start - OpNamed(t, "allreduce1_gpu" + gpu).end;
                            return CheckResult{after >= -t.clock_error, "backward0 starts " + FormatDuration(after) + " after allreduce1 ends"};
                          }});
      }
      return claims;
    }
    return {{"allreduce1 waits for backward0's pending blocks: it ends after backward0 does", [](const Trace& t) {
      TimeNs after = OpNamed(t, "allreduce1_gpu0").end - OpNamed(t, "backward0_gpu0").end;
      return CheckResult{after >= -t.clock_error, "allreduce1 ends " + FormatDuration(after) + " after backward0"};
    }}};
  };
  // In PyTorch, ProcessGroupNCCL's kernel and backward0 become ready within a microsecond of
  // each other when backward1 ends, and at equal priority the block scheduler has no rule
  // for which goes first: on two H200s the all-reduce went with backward0's first wave in 3
  // of 6 GPU-runs and after backward0 in the others. What holds either way: it never starts
  // in the middle of backward0, because backward0's pending blocks are taken first.
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    TimeNs block = Us(a["block_us"]);
    // With a process per GPU (torchrun, as Megatron-LM runs) nothing ahead of backward0 in
    // the single queue waited for the all-reduce (two H200s, 3 of 3 runs): one connection
    // pins the order, and the all-reduce, issued first, runs under backward0.
    if (a.variant == "one-connection") {
      std::vector<Expectation> claims;
      for (int g = 0; g < 2; ++g) {
        std::string gpu = std::to_string(g);
        claims.push_back({"allreduce1_gpu" + gpu + " starts first and runs under backward0_gpu" + gpu +
                              ": it ends at least two block times before backward0 does",
                          [block, gpu](const Trace& t) {
                            const OpRecord& ar = OpNamed(t, "allreduce1_gpu" + gpu);
                            const OpRecord& b0 = OpNamed(t, "backward0_gpu" + gpu);
                            bool first = b0.start >= ar.start - t.clock_error;
                            return CheckResult{first && b0.end - ar.end >= 2 * block,
                                               "backward0 starts " + FormatDuration(b0.start - ar.start) + " after allreduce1, which ends " +
                                                   FormatDuration(b0.end - ar.end) + " before backward0"};
                          }});
      }
      return claims;
    }
    if (a.variant != "default-priority") return {};  // high priority: the lab's own claim
    std::vector<Expectation> claims;
    for (int g = 0; g < 2; ++g) {
      std::string gpu = std::to_string(g);
      claims.push_back({"allreduce1_gpu" + gpu + " starts with backward0's first wave or after its last, never in between",
                        [block, gpu](const Trace& t) {
                          const OpRecord& ar = OpNamed(t, "allreduce1_gpu" + gpu);
                          const OpRecord& b1 = OpNamed(t, "backward1_gpu" + gpu);
                          const OpRecord& b0 = OpNamed(t, "backward0_gpu" + gpu);
                          bool first = ar.start - b1.end <= block + t.clock_error;
                          bool last = ar.start >= b0.end - block - t.clock_error;
                          return CheckResult{first || last, "starts " + FormatDuration(ar.start - b1.end) + " after backward1, " +
                                                                FormatDuration(b0.end - ar.start) + " before backward0 ends"};
                        }});
    }
    return claims;
  };
  return lab;
}

}  // namespace streamlab
