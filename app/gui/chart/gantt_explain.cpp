// The chart's explanations: a line from every event record to the wait it released, and for
// each delayed op whose start is in view, its cause written in the gap before it and an arrow
// from the op that released it.
#include <string>
#include <vector>

#include "app/gui/chart/gantt_frame.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/findings_text.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

int LaneOf(const GanttFrame& fr, int op) {
  const Op& o = fr.s.ops[static_cast<size_t>(op)];
  return o.stream >= 0 && fr.t.ops[static_cast<size_t>(op)].gpu ? fr.index.stream_lane[static_cast<size_t>(o.stream)] : HostLaneOf(o);
}

// Every event record (or wait_stream source) to the wait it released: a thin line from the
// record's marker down to the wait's marker, whether or not the wait held anything. More than
// one a 6 px in view would only grey the chart over: then none until the view is zoomed in.
void DrawRecordToWaitLines(GanttFrame& fr) {
  const Trace& t = fr.t;
  std::vector<std::pair<ImVec2, ImVec2>> lines;
  for (const auto& [from, to] : fr.index.record_to_wait) {
    if (!t.ops[from].gpu || !t.ops[to].gpu || t.ops[to].end > fr.cutoff) continue;
    int lane_from = LaneOf(fr, from), lane_to = LaneOf(fr, to);
    if (!fr.g.Shown(lane_from) || !fr.g.Shown(lane_to)) continue;
    ImVec2 a(fr.g.X(t.ops[from].end), fr.g.LaneY(lane_from) + 6);
    ImVec2 b(fr.g.X(t.ops[to].end), fr.g.LaneY(lane_to) + fr.g.lane_h - 6);
    if (std::max(a.x, b.x) < fr.g.ChartX0() || std::min(a.x, b.x) > fr.br.x) continue;
    lines.push_back({a, b});
    if (static_cast<float>(lines.size()) * 6.0f > fr.g.ChartW()) return;
  }
  for (const auto& [a, b] : lines) {
    fr.dl->AddLine(a, b, kMarker, 1.0f);
    fr.dl->AddCircleFilled(b, 2.5f, kMarker);
  }
}

// One delayed op: the gap before it labelled with its cause, and an arrow from the op that
// released it (its end) to its start.
void DrawDelay(GanttFrame& fr, const Finding& f) {
  const Trace& t = fr.t;
  const Geometry& g = fr.g;
  const OpRecord& r = t.ops[f.op];
  if (r.start > fr.cutoff) return;
  int lane = LaneOf(fr, f.op);
  if (!fr.g.Shown(lane)) return;
  float y = g.LaneY(lane) + g.lane_h * 0.5f;
  float gx0 = g.X(fr.index.gap_from[f.op]), gx1 = g.X(r.start - QueuedTime(t, r));
  std::string label = fr.in.texts->Get(std::string("cause.") + ToString(f.cause));
  ImVec2 ts = ImGui::CalcTextSize(label.c_str());
  if (gx1 - gx0 > ts.x + 8 && f.cause != Cause::kStreamOrder) {
    fr.dl->AddLine(ImVec2(gx0, y), ImVec2(gx1, y), fr.pal.dim_text, 1.0f);
    fr.dl->AddText(ImVec2((gx0 + gx1 - ts.x) * 0.5f, y - ts.y - 1), kArrow, label.c_str());
  }
  if (!fr.view.show_arrows || f.because.empty()) return;
  int from = f.because.front();
  if (from < 0 || !t.ops[from].gpu || LaneOf(fr, from) == lane || !fr.g.Shown(LaneOf(fr, from))) return;
  ImVec2 a(g.X(t.ops[from].end), g.LaneY(LaneOf(fr, from)) + g.lane_h * 0.5f);
  ImVec2 b(g.X(r.start), y);
  fr.dl->AddBezierCubic(a, ImVec2(a.x + 30, a.y), ImVec2(b.x - 30, b.y), b, kArrow, 1.5f);
  float dir = b.y > a.y ? 1.0f : -1.0f;
  fr.dl->AddTriangleFilled(b, ImVec2(b.x - 7, b.y - 4 * dir), ImVec2(b.x - 7, b.y + 4 * dir), kArrow);
}

}  // namespace

void DrawExplanations(GanttFrame& fr) {
  if (fr.view.show_arrows) DrawRecordToWaitLines(fr);
  // Only the delays whose op starts in view: a frame's cost must not grow with the trace.
  // More than a few hundred labels and arrows at once cannot be read: then none are drawn
  // until the view is zoomed in (the findings panel still lists them).
  constexpr size_t kMaxDelaysDrawn = 400;
  const std::vector<TimeNs>& starts = fr.index.delay_starts;
  auto first = static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), fr.g.begin) - starts.begin());
  auto end = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), fr.g.end) - starts.begin());
  if (end - first > kMaxDelaysDrawn) end = first;
  for (size_t d = first; d < end; ++d) DrawDelay(fr, fr.in.analysis->findings[fr.index.delays[d]]);
}

}  // namespace streamlab
