// Synthetic bench trace: back-to-back 10 us kernels, 2 us apart, on 32 streams; the host's
// ranges as many as the spans, two deep (a "step" around each 32 launches, one range per launch).
#include "app/gui/chart/bench_trace.h"

#include "engine/trace/backend.h"

namespace streamlab {

Trace MakeBenchTrace(long spans) {
  Trace t;
  t.backend = BackendName(Backend::kSim);
  t.device_name = "bench";
  Scenario& s = t.scenario;
  s.name = "bench-" + std::to_string(spans);
  constexpr int kStreams = 32;
  for (int i = 0; i < kStreams; ++i) s.streams.push_back({"s" + std::to_string(i), 0, StreamKind::kCreated, false, 0});
  s.ops.reserve(spans);
  t.ops.reserve(spans);
  for (long i = 0; i < spans; ++i) {
    Op op;
    op.kind = OpKind::kKernel;
    op.name = "k" + std::to_string(i);
    op.stream = static_cast<int>(i % kStreams);
    s.ops.push_back(std::move(op));
    OpRecord r;
    r.op = static_cast<int>(i);
    TimeNs slot = (i / kStreams) * Us(12) + (i % kStreams) * 300;
    r.submit = slot;
    r.ret = slot + 200;
    r.gpu = true;
    r.ready = r.start = slot + 1000;
    r.end = r.start + Us(10);
    t.ops.push_back(std::move(r));
    if (i % kStreams == 0) t.ranges.push_back({0, "step", slot, slot + Us(11)});
    else t.ranges.push_back({0, "launch", slot - 50, slot + 250});
  }
  return t;
}

}  // namespace streamlab
