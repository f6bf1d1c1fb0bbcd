// Builds the analysis context: the happens-before graph, the hardware queue of each stream,
// and the per-run indexes the passes look things up in.
#include "engine/analysis/analyzer_context.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "engine/trace/trace_query.h"

namespace streamlab {

bool IsCopy(const Op& op) { return op.kind == OpKind::kMemcpy || op.kind == OpKind::kPeerCopy; }

TimeNs ExplainSlack(const Trace& t) {
  // Launch latency (host call to first block) was up to ~10 us on an H200, and event
  // edges add a few us: below this a delay is not worth a cause.
  return Us(20) + t.clock_error;
}

AnalysisContext::AnalysisContext(const Trace& trace)
    : t(trace), s(trace.scenario), hb(trace.scenario), slack(ExplainSlack(trace)),
      queue_of_stream(trace.scenario.streams.size(), 0) {
  std::vector<int> per_device(s.device_count, 0);
  for (size_t i = 0; i < s.streams.size(); ++i)
    queue_of_stream[i] = per_device[s.streams[i].device]++ % s.settings.max_connections;

  const size_t n = s.ops.size();
  lazy_first.assign(n, 0);
  lazy_first_before.assign(n, -1);
  blocking_before.assign(n, -1);
  spans.resize(s.device_count);
  const bool lazy = s.settings.lazy_loading && !s.settings.warmup;
  std::set<std::tuple<int, int, int>> loaded;  // device, kernel kind, function slot
  std::vector<int> last_load(s.device_count, -1);
  // Per host thread: a call that blocked one thread did not hold another's submissions.
  std::map<int, int> last_blocking;
  for (size_t i = 0; i < n; ++i) {
    int x = static_cast<int>(i);
    const Op& o = s.ops[i];
    auto last = last_blocking.emplace(o.thread, -1).first;
    // A node replayed from a recorded CUDA graph carries its launch call's times: it is not a
    // host call of its own, and what held the host before it is what held it before the launch
    // (the launch is what submitted it, not a call that delayed it).
    bool replayed = t.ops[i].graph_replay && o.graph >= 0 && o.graph < x;
    blocking_before[i] = replayed ? blocking_before[o.graph] : last->second;
    if (o.kind != OpKind::kHostWork && HostCallTime(t.ops[i]) > slack) last->second = x;  // 0 for a replayed node
    if (!IsGpuWork(o)) continue;
    int device = device_of(x);
    lazy_first_before[i] = last_load[device];
    // A recording says which launches loaded a module (CUPTI's module-load callback inside
    // the call); a lab run is decided from its kernels' first launches.
    bool loads = s.recorded ? t.ops[i].loaded_module
                            : lazy && o.kind == OpKind::kKernel &&
                                  loaded.insert({device, static_cast<int>(o.kernel.kind), o.kernel.function_slot}).second;
    if (loads) {
      module_loads = true;
      lazy_first[i] = 1;
      last_load[device] = x;
    }
    if (t.ops[i].gpu) spans[device].by_start.push_back(x);
  }
  for (SpanIndex& index : spans) {
    std::stable_sort(index.by_start.begin(), index.by_start.end(),
                     [&](int a, int b) { return t.ops[a].start < t.ops[b].start; });
    TimeNs running = 0;
    for (size_t i = 0; i < index.by_start.size(); ++i) {
      running = i == 0 ? t.ops[index.by_start[i]].end : std::max(running, t.ops[index.by_start[i]].end);
      index.max_end.push_back(running);
    }
  }
}

}  // namespace streamlab
