// Chrome trace event format: "X" complete events, "M" metadata, "s"/"f" flow events.
#include "engine/trace/chrome_trace.h"

#include "engine/scenario/dependencies.h"

namespace streamlab {
namespace {

// Chrome traces count in microseconds.
double Micro(TimeNs t) { return static_cast<double>(t) / 1000.0; }

int PidOfDevice(int device) { return device + 1; }

}  // namespace

Json ChromeTraceJson(const Trace& t) {
  const Scenario& s = t.scenario;
  std::vector<Lane> lanes = LanesOf(s);
  TimeNs origin = TraceBegin(t);
  Json events = Json::array();

  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"args", {{"name", "host"}}}});
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", 0},
                    {"args", {{"name", "host thread"}}}});
  for (int d = 0; d < s.device_count; ++d)
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", PidOfDevice(d)},
                      {"args", {{"name", "GPU " + std::to_string(d) + " (" + t.device_name + ")"}}}});
  for (size_t i = 0; i < lanes.size(); ++i) {
    if (lanes[i].kind == LaneKind::kHost) {
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", lanes[i].thread},
                        {"args", {{"name", lanes[i].name}}}});
      continue;
    }
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", PidOfDevice(lanes[i].device)},
                      {"tid", static_cast<int>(i)},
                      {"args", {{"name", lanes[i].name + " [" + lanes[i].flags + "]"}}}});
  }

  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpRecord& r = t.ops[i];
    const Op& op = s.ops[i];
    std::string name = DisplayName(s, static_cast<int>(i));
    Json args{{"op", static_cast<int>(i)}, {"kind", ToString(op.kind)}};
    if (!r.note.empty()) args["note"] = r.note;
    if (op.graph < 0)  // graph nodes make no host call of their own
      events.push_back({{"ph", "X"}, {"name", name}, {"cat", "host"}, {"pid", 0}, {"tid", HostLaneOf(op)},
                        {"ts", Micro(r.submit - origin)}, {"dur", Micro(r.ret - r.submit)},
                        {"args", args}});
    if (!r.gpu) continue;
    int lane = GpuLaneOf(lanes, op);
    int pid = PidOfDevice(lanes[lane].device);
    if (r.start > r.ready)
      events.push_back({{"ph", "X"}, {"name", "queued: " + name}, {"cat", "queued"}, {"pid", pid},
                        {"tid", lane}, {"ts", Micro(r.ready - origin)},
                        {"dur", Micro(r.start - r.ready)}, {"args", args}});
    // Zero-length markers get a sliver of width so viewers can show and bind flows to them.
    double dur = std::max(Micro(r.end - r.start), 0.01);
    events.push_back({{"ph", "X"}, {"name", name}, {"cat", ToString(op.kind)}, {"pid", pid},
                      {"tid", lane}, {"ts", Micro(r.start - origin)}, {"dur", dur},
                      {"args", args}});
  }

  // Flow arrows: record -> wait_event, and (other stream's last op) -> wait_stream.
  StreamDependencies deps = ComputeDependencies(s);
  int flow_id = 1;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    for (const DepEdge& e : deps.into[i]) {
      if (e.kind != EdgeKind::kEvent && e.kind != EdgeKind::kWaitStream) continue;
      const OpRecord& from = t.ops[e.from];
      const OpRecord& to = t.ops[e.to];
      if (!from.gpu || !to.gpu) continue;
      int from_lane = GpuLaneOf(lanes, s.ops[e.from]);
      int to_lane = GpuLaneOf(lanes, s.ops[e.to]);
      events.push_back({{"ph", "s"}, {"id", flow_id}, {"name", ToString(e.kind)}, {"cat", "dependency"},
                        {"pid", PidOfDevice(lanes[from_lane].device)}, {"tid", from_lane},
                        {"ts", Micro(from.start - origin)}});
      events.push_back({{"ph", "f"}, {"bp", "e"}, {"id", flow_id}, {"name", ToString(e.kind)},
                        {"cat", "dependency"}, {"pid", PidOfDevice(lanes[to_lane].device)},
                        {"tid", to_lane}, {"ts", Micro(to.start - origin)}});
      ++flow_id;
    }
  }
  return Json{{"traceEvents", events},
              {"displayTimeUnit", "ns"},
              {"otherData",
               {{"backend", t.backend}, {"device", t.device_name}, {"lab", t.lab},
                {"variant", t.variant}, {"clock_error_ns", t.clock_error}}}};
}

}  // namespace streamlab
