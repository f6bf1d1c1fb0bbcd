// w3-thread-per-stream - several host threads, each launching its own work.
// Without a stream of their own, every thread launches onto the legacy default stream: one
// FIFO for the whole process, so the threads' kernels run one after another. Built with
// --default-stream per-thread (or using cudaStreamPerThread), each thread gets its own
// default stream and the threads' work overlaps.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/util/format.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

// Each thread's work, first kernel start to last kernel end, overlaps some other thread's
// by at least half (threads start a little apart, so single kernels need not line up).
Expectation EveryThreadOverlapsAnother(int threads) {
  return {"every thread's work overlaps another thread's by >= 50%", [threads](const Trace& t) {
            std::vector<OpRecord> span(threads);
            for (OpRecord& r : span) r.start = INT64_MAX, r.end = INT64_MIN;
            for (size_t i = 0; i < t.ops.size(); ++i) {
              const Op& op = t.scenario.ops[i];
              if (op.kind != OpKind::kKernel) continue;
              span[op.thread].start = std::min(span[op.thread].start, t.ops[i].start);
              span[op.thread].end = std::max(span[op.thread].end, t.ops[i].end);
            }
            double worst = 1.0;
            for (int a = 0; a < threads; ++a) {
              double best = 0;
              for (int b = 0; b < threads; ++b)
                if (a != b) best = std::max(best, OverlapFraction(span[a], span[b]));
              worst = std::min(worst, best);
            }
            return CheckResult{worst >= 0.5, "least overlapped thread: " + FormatPercent(worst)};
          }};
}

}  // namespace

Lab ThreadPerStreamLab() {
  Lab lab;
  lab.id = "w3-thread-per-stream";
  lab.week = 3;
  lab.order = 4;
  lab.variants = {"legacy-default-stream", "per-thread-default-stream"};
  lab.params = {{"threads", 2, 8, 4, "threads"}, {"kernels", 1, 8, 3, "per thread"}, {"kernel_us", 50, 2000, 300, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-thread-per-stream");
    int threads = static_cast<int>(a["threads"]);
    std::vector<Stream> stream_of_thread;
    if (a.variant == "legacy-default-stream") stream_of_thread.assign(threads, b.LegacyDefaultStream());
    else
      for (int t = 0; t < threads; ++t) stream_of_thread.push_back(b.PerThreadDefaultStream(0, t));
    for (int k = 0; k < static_cast<int>(a["kernels"]); ++k)
      for (int t = 0; t < threads; ++t) {
        b.OnThread(t);
        stream_of_thread[t].Launch("t" + std::to_string(t) + "_k" + std::to_string(k), Spin(Us(a["kernel_us"])));
      }
    for (int t = 0; t < threads; ++t) {
      b.OnThread(t);
      stream_of_thread[t].Synchronize();
    }
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "legacy-default-stream") return {SpeedupBelow(1.2)};
    return {SpeedupAtLeast(0.6 * a["threads"]), EveryThreadOverlapsAnother(static_cast<int>(a["threads"]))};
  };
  // Python threads share the GIL: the threads' kernels still overlap, but launching is
  // serialised, so the speed-up stays low (0.46 with four threads on an H100).
  lab.torch_expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "legacy-default-stream") return {};
    return {{"Python's GIL serialises the launching threads: speed-up over serial < 1.5",
             [](const Trace& t) {
               double s = Analyze(t).figures.speedup;
               char text[48];
               std::snprintf(text, sizeof text, "speed-up %.2f", s);
               return CheckResult{s < 1.5, text};
             }},
            EveryThreadOverlapsAnother(static_cast<int>(a["threads"]))};
  };
  return lab;
}

}  // namespace streamlab
