// Gantt chart drawing: the frame's layout (rows, time <-> x, axis ticks), lane labels, idle
// bands and range rows, then each stage in its own file - the lanes' spans and SM rows
// (gantt_spans.cpp), the explanations (gantt_explain.cpp) and the interaction
// (gantt_interaction.cpp).
#include "app/gui/chart/gantt_view.h"

#include "app/gui/chart/gantt_frame.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "app/gui/chart/gallop.h"
#include "app/gui/chart/gantt_ranges.h"
#include "app/gui/chart/gantt_tooltip.h"
#include "app/gui/ui_text.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// A tick step of 1, 2 or 5 x 10^k ns giving at least `spacing` px between ticks.
TimeNs TickStep(TimeNs span, float width, float spacing) {
  double target = static_cast<double>(span) * spacing / width;
  double decade = 1;
  while (decade * 10 <= target) decade *= 10;
  // The smallest of 1, 2, 5 (x 10^k) that is no closer than the target.
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (decade * m >= target) return std::max<TimeNs>(1, static_cast<TimeNs>(decade * m));
  return std::max<TimeNs>(1, static_cast<TimeNs>(decade * 10));
}

// A tick's label, counted from the axis origin, as precise as the ticks' spacing needs.
std::string Rel(TimeNs t, TimeNs origin, TimeNs step) { return FormatTick(t - origin, step); }


}  // namespace


ImU32 OpColor(const Scenario& s, int index) {
  const Op& op = s.ops[index];
  switch (op.kind) {
    case OpKind::kKernel: return kKernelColor;
    case OpKind::kMemset: return kMemsetColor;
    case OpKind::kPeerCopy: return kPeerCopyColor;
    case OpKind::kCollective: return kCollectiveColor;
    case OpKind::kMemcpy: {
      bool src_host = s.buffers[op.src].kind != MemoryKind::kDevice;
      bool dst_host = s.buffers[op.dst].kind != MemoryKind::kDevice;
      if (src_host && !dst_host) return kH2DColor;
      if (!src_host && dst_host) return kD2HColor;
      return kD2DColor;
    }
    default: return kMarker;
  }
}

// Lane flags ("blocking, prio -5", "thread 2") in the UI's language, word by word.
std::string TranslateFlags(const UiText& ui, const std::string& flags) {
  std::string out;
  size_t at = 0;
  while (at <= flags.size()) {
    size_t comma = flags.find(", ", at);
    std::string part = flags.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t space = part.rfind(' ');
    bool numbered = space != std::string::npos && (std::isdigit(static_cast<unsigned char>(part[space + 1])) || part[space + 1] == '-');
    std::string word = numbered ? part.substr(0, space) : part;
    std::string key = "flag." + word;
    std::string shown = ui(key) == key ? word : ui(key);
    out += (out.empty() ? "" : ", ") + shown + (numbered ? part.substr(space) : "");
    if (comma == std::string::npos) break;
    at = comma + 2;
  }
  return out;
}

std::pair<TimeNs, TimeNs> GanttExtent(const Trace& trace) { return {TraceBegin(trace), TraceEnd(trace)}; }


namespace {

// Each device's idle intervals (no kernel running) as a band behind its stream lanes, tinted
// by cause; returns the gap under the mouse, if any. Gaps under a pixel wide are skipped.
const IdleGap* DrawIdleBands(ImDrawList* dl, const Geometry& g, const Figures& fig, const std::vector<Lane>& lanes,
                             TimeNs cutoff, bool hovered) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const IdleGap* under = nullptr;
  for (const IdleGap& gap : fig.idle_gaps) {
    if (gap.to < g.begin || gap.from > g.end || gap.from > cutoff) continue;
    float x0 = g.X(gap.from), x1 = g.X(std::min(gap.to, cutoff));
    if (x1 - x0 < 1.0f) continue;
    // Behind each run of the device's stream lanes shown (a rank's streams are its own group's).
    for (size_t i = 0; i < lanes.size(); ++i) {
      auto is_device = [&](size_t l) { return lanes[l].kind == LaneKind::kStream && lanes[l].device == gap.device && g.Shown(static_cast<int>(l)); };
      if (!is_device(i)) continue;
      size_t last = i;
      while (last + 1 < lanes.size() && is_device(last + 1) && g.LaneY(static_cast<int>(last + 1)) <= g.LaneY(static_cast<int>(last)) + g.lane_h + 0.5f) ++last;
      ImVec2 a(x0, g.LaneY(static_cast<int>(i))), b(x1, g.LaneY(static_cast<int>(last)) + g.lane_h);
      dl->AddRectFilled(a, b, kIdleColor[static_cast<int>(gap.cause)]);
      if (hovered && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) under = &gap;
      i = last;
    }
  }
  return under;
}

}  // namespace

namespace {

// Fit requests: the whole trace, or the ops a finding names.
void ApplyFitRequests(GanttViewState& view, const Trace& t, TimeNs trace_begin, TimeNs trace_end) {
  if (view.fit_requested || view.end <= view.begin) {
    TimeNs pad = (trace_end - trace_begin) / 40;
    view.begin = trace_begin - pad;
    view.end = trace_end + pad;
    view.fit_requested = false;
  }
  if (view.zoom_to.empty()) return;
  TimeNs a = trace_end, b = trace_begin;
  for (int op : view.zoom_to) {
    const OpRecord& r = t.ops[op];
    a = std::min({a, r.submit, r.gpu ? r.ready : r.submit});
    b = std::max({b, r.ret, r.gpu ? r.end : r.ret});
  }
  TimeNs pad = std::max<TimeNs>((b - a) / 8, Us(5));
  view.begin = a - pad;
  view.end = b + pad;
  view.zoom_to.clear();
}

// The axis's ticks: a step of ~6 characters of label, whatever the font size (presentation
// mode scales it), counted from the trace's start or the origin a comparison aligns on.
struct AxisTicks {
  TimeNs step = 1, first = 0, origin = 0;
};

AxisTicks DrawAxisGrid(GanttFrame& fr) {
  const Geometry& g = fr.g;
  AxisTicks ticks;
  float label_w = std::max(70.0f, ImGui::CalcTextSize("000.0 us  ").x);
  ticks.step = TickStep(g.end - g.begin, g.ChartW(), label_w);
  ticks.origin = fr.view.axis_origin >= 0 ? fr.view.axis_origin : fr.index.begin;
  // Zoomed in far from the origin, a label needs more digits ("6.3995 s"): space them for it.
  float long_w = ImGui::CalcTextSize((Rel(g.end, ticks.origin, ticks.step) + "  ").c_str()).x;
  if (long_w > label_w) ticks.step = TickStep(g.end - g.begin, g.ChartW(), long_w);
  ticks.first = ticks.origin + ((g.begin - ticks.origin) / ticks.step) * ticks.step;
  for (TimeNs tick = ticks.first; tick <= g.end; tick += ticks.step) {
    float x = g.X(tick);
    fr.dl->AddLine(ImVec2(x, g.origin.y + g.axis_h - 6), ImVec2(x, fr.br.y), fr.pal.grid);
  }
  return ticks;
}

// The axis labels last, on a band pinned to the top of what is visible, so they stay in view
// when many lanes scroll. A label that would not fit whole between the chart's edges is left out.
void DrawAxisLabels(GanttFrame& fr, const AxisTicks& ticks, float visible_top) {
  const Geometry& g = fr.g;
  float axis_y = std::max(g.origin.y, visible_top);
  fr.dl->AddRectFilled(ImVec2(g.ChartX0(), axis_y), ImVec2(fr.br.x, axis_y + g.axis_h - 2), fr.pal.background);
  for (TimeNs tick = ticks.first; tick <= g.end; tick += ticks.step) {
    std::string label = Rel(tick, ticks.origin, ticks.step);
    float x = g.X(tick) + 3;
    if (x < g.ChartX0() || x + ImGui::CalcTextSize(label.c_str()).x > fr.br.x - 2) continue;
    AddLabel(fr, ImGui::GetFontSize(), ImVec2(x, axis_y + 3), fr.pal.dim_text, label, "axis");
  }
}

// Pending scroll: unfold the group (and quiet threads) of the op's lane, so the layout shows it.
int UnfoldForScroll(GanttViewState& view, const GanttIndex& x, const Trace& t) {
  int op = view.scroll_to_op;
  if (op < 0 || static_cast<size_t>(op) >= t.ops.size()) return -1;
  const Op& o = t.scenario.ops[static_cast<size_t>(op)];
  int lane = t.ops[static_cast<size_t>(op)].gpu && o.stream >= 0 ? x.stream_lane[static_cast<size_t>(o.stream)] : HostLaneOf(o);
  auto group = static_cast<size_t>(x.lane_group[static_cast<size_t>(lane)]);
  if (group < view.folds.size()) {
    view.folds[group].collapsed = false;
    const std::vector<int>& quiet = x.groups[group].quiet;
    if (std::find(quiet.begin(), quiet.end(), lane) != quiet.end()) view.folds[group].show_quiet = true;
  }
  return lane;
}

// The host's ranges (NVTX, PyTorch ops, Python frames) in rows under each host lane.
void DrawAllRangeRows(GanttFrame& fr) {
  for (size_t lane = 0; lane < fr.lanes.size(); ++lane) {
    if (!fr.g.Shown(static_cast<int>(lane)) || RangeBlockHeight(fr.index, fr.view, lane, fr.g.range_h) <= 0) continue;
    RangeRowsView rv;
    rv.chart_x0 = fr.g.ChartX0();
    rv.chart_w = fr.g.ChartW();
    rv.begin = fr.g.begin;
    rv.end = fr.g.end;
    rv.top = fr.g.LaneY(static_cast<int>(lane)) + fr.g.lane_h;
    rv.row_h = fr.g.range_h;
    rv.cutoff = fr.cutoff;
    rv.font_size = ImGui::GetFontSize() * 0.75f;
    rv.mouse = ImGui::GetIO().MousePos;
    rv.hovered = fr.hovered;
    if (const HostRange* r = DrawRangeRows(fr.dl, fr.index.range_rows[lane], rv)) fr.range_under = r;
    if (fr.hovered && rv.mouse.y >= rv.top && rv.mouse.y < rv.top + RangeBlockHeight(fr.index, fr.view, lane, fr.g.range_h))
      fr.range_lane = static_cast<int>(lane);
  }
}

// What was drawn where, for tests and the screenshots' layout files: only what can be seen
// (spans scrolled out of view are not on screen to check), and every row.
void FillLayout(const GanttFrame& fr, ImVec2 visible_min, ImVec2 visible_max, ChartLayout& layout) {
  layout = ChartLayout{};
  float left = std::max(visible_min.x, fr.g.ChartX0());
  for (const SpanRect& r : fr.drawn) {
    float cx = (r.x0 + r.x1) * 0.5f;
    if (r.y0 >= visible_min.y && r.y1 <= visible_max.y && cx >= left && cx <= visible_max.x) layout.spans.push_back(r);
  }
  for (const ChartRow& row : fr.g.rows) {
    const char* kind = row.kind == ChartRow::kLane ? "lane" : row.kind == ChartRow::kGroupHeader ? "header" : "quiet";
    bool stream = row.kind == ChartRow::kLane && fr.lanes[static_cast<size_t>(row.lane)].kind == LaneKind::kStream;
    layout.rows.push_back({kind, row.lane, row.group, stream, row.y0, row.kind == ChartRow::kLane ? row.y0 + fr.g.lane_h : row.y1});
  }
  for (const TextRect& t : fr.texts)
    if (t.y1 > visible_min.y && t.y0 < visible_max.y) layout.texts.push_back(t);
  layout.x0 = visible_min.x;
  layout.y0 = visible_min.y;
  layout.x1 = visible_max.x;
  layout.y1 = visible_max.y;
  layout.label_x1 = fr.g.ChartX0();
  layout.chart_x0 = fr.g.ChartX0();
  layout.chart_w = fr.g.ChartW();
  layout.range_h = fr.g.range_h;
  layout.begin = fr.g.begin;
  layout.end = fr.g.end;
}

}  // namespace

int DrawGantt(const GanttInputs& in, GanttViewState& view, ImVec2 size, ChartLayout* layout) {
  const Trace& t = *in.trace;
  GanttIndex& index = view.index;
  GanttIndexOf(view, t);
  IndexDelays(index, t, *in.analysis);
  ApplyFitRequests(view, t, index.begin, index.end);
  // Replay: only what had happened by the cursor is drawn, clipped at it.
  const TimeNs cutoff = view.replay_until >= 0 ? view.replay_until : std::numeric_limits<TimeNs>::max();
  if (view.folds.size() != index.groups.size()) view.folds.assign(index.groups.size(), GroupFold{});
  int scroll_lane = UnfoldForScroll(view, index, t);
  view.scroll_to_op = -1;
  IndexHighlight(view, t);
  GanttFrame fr(in, view, cutoff, ExplainSlack(t), LayOut(in, view, index, size));
  // In the chart's own scrolled region: the lane just under the pinned axis.
  if (scroll_lane >= 0 && fr.g.Shown(scroll_lane)) ImGui::SetScrollY(std::max(0.0f, fr.g.LaneY(scroll_lane) - fr.g.origin.y - fr.g.axis_h - 8));

  ImGui::InvisibleButton("gantt", size, ImGuiButtonFlags_MouseButtonLeft);
  fr.hovered = in.interactive && ImGui::IsItemHovered();
  fr.dl = ImGui::GetWindowDrawList();
  fr.br = ImVec2(fr.g.origin.x + size.x, fr.g.origin.y + size.y);
  fr.dl->AddRectFilled(fr.g.origin, fr.br, fr.pal.background);
  // Everything, labels too, stays inside the chart's region (and its scrolled view).
  fr.dl->PushClipRect(fr.g.origin, fr.br, true);
  const ImVec2 visible_min = fr.dl->GetClipRectMin(), visible_max = fr.dl->GetClipRectMax();
  fr.visible_top = visible_min.y;
  fr.visible_bottom = visible_max.y;
  DrawRowLabels(fr);
  fr.dl->PushClipRect(ImVec2(fr.g.ChartX0(), fr.g.origin.y), fr.br, true);
  AxisTicks ticks = DrawAxisGrid(fr);
  if (view.show_idle) fr.idle_under = DrawIdleBands(fr.dl, fr.g, in.analysis->figures, fr.lanes, cutoff, fr.hovered);
  DrawAllRangeRows(fr);
  for (size_t lane = 0; lane < fr.lanes.size(); ++lane) {
    // Lanes folded away or scrolled out of view are laid out but not drawn.
    if (!fr.g.Shown(static_cast<int>(lane))) continue;
    float y = fr.g.LaneY(static_cast<int>(lane));
    if (y + fr.g.lane_h < visible_min.y || y > visible_max.y) continue;
    DrawLaneSpans(fr, lane);
  }
  DrawSyncLines(fr);
  DrawExplanations(fr);
  DrawSmRows(fr);
  bool row_clicked = HandleRowClick(fr);
  int clicked = HandleInteraction(fr);
  if (row_clicked) clicked = -1;
  DrawAxisLabels(fr, ticks, visible_min.y);
  DrawStepMarks(fr, std::max(fr.g.origin.y, visible_min.y));
  fr.dl->PopClipRect();
  fr.dl->PopClipRect();
  if (layout) FillLayout(fr, visible_min, visible_max, *layout);
  return clicked;
}

}  // namespace streamlab
