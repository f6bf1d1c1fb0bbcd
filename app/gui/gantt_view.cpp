// Gantt chart drawing: the frame's layout (rows, time <-> x, axis ticks), lane labels, idle
// bands and range rows, then each stage in its own file - the lanes' spans and SM rows
// (gantt_spans.cpp), the explanations (gantt_explain.cpp) and the interaction
// (gantt_interaction.cpp).
#include "app/gui/gantt_view.h"

#include "app/gui/gantt_frame.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "app/gui/gallop.h"
#include "app/gui/gantt_ranges.h"
#include "app/gui/gantt_tooltip.h"
#include "app/gui/ui_text.h"
#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// The height of one row of ranges: room for their names at three quarters of the font.
float RangeRowHeight(float scale) { return std::max(12.0f * scale, ImGui::GetFontSize() * 0.75f + 2.0f); }

// The height of the rows of ranges under `lane` (0 when none are shown).
float RangeBlockHeight(const GanttIndex& x, const GanttViewState& view, size_t lane, float row_h) {
  if (!view.show_ranges || lane >= x.range_rows.size() || x.range_rows[lane].rows.empty()) return 0.0f;
  return static_cast<float>(x.range_rows[lane].rows.size()) * row_h + 3.0f;
}

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


float GanttContentHeight(const Trace& t, GanttViewState& view, float scale) {
  const GanttIndex& x = GanttIndexOf(view, t);
  float lanes = static_cast<float>(x.lanes.size()) + (view.show_sms ? 6.0f : 0.0f);
  float sm_rows = view.show_sms ? static_cast<float>(std::max(t.sm_count, 132)) * 3.0f * scale + 24 : 0.0f;
  float range_rows = 0;
  for (size_t l = 0; l < x.lanes.size(); ++l) range_rows += RangeBlockHeight(x, view, l, RangeRowHeight(scale));
  return 24.0f * scale + lanes * 26.0f * scale + range_rows + sm_rows + 8;
}

ImU32 OpColor(const Scenario& s, int index) {
  const Op& op = s.ops[index];
  switch (op.kind) {
    case OpKind::kKernel: return IM_COL32(70, 130, 200, 255);
    case OpKind::kMemset: return IM_COL32(155, 105, 210, 255);
    case OpKind::kPeerCopy: return IM_COL32(40, 180, 180, 255);
    case OpKind::kCollective: return IM_COL32(215, 80, 120, 255);
    case OpKind::kMemcpy: {
      bool src_host = s.buffers[op.src].kind != MemoryKind::kDevice;
      bool dst_host = s.buffers[op.dst].kind != MemoryKind::kDevice;
      if (src_host && !dst_host) return IM_COL32(70, 175, 95, 255);   // H2D
      if (!src_host && dst_host) return IM_COL32(230, 145, 50, 255);  // D2H
      return IM_COL32(200, 180, 60, 255);                             // D2D
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
  static const ImU32 kIdleColor[kIdleCauseCount] = {
      IM_COL32(230, 90, 90, 45),   IM_COL32(230, 150, 60, 45),  IM_COL32(200, 200, 90, 40),
      IM_COL32(120, 200, 120, 45), IM_COL32(90, 170, 230, 45),  IM_COL32(160, 120, 230, 45),
      IM_COL32(200, 120, 200, 45), IM_COL32(150, 150, 150, 30), IM_COL32(100, 100, 100, 25),
      IM_COL32(120, 120, 120, 40)};
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const IdleGap* under = nullptr;
  for (const IdleGap& gap : fig.idle_gaps) {
    if (gap.to < g.begin || gap.from > g.end || gap.from > cutoff) continue;
    float x0 = g.X(gap.from), x1 = g.X(std::min(gap.to, cutoff));
    if (x1 - x0 < 1.0f) continue;
    int first = -1, last = -1;
    for (size_t i = 0; i < lanes.size(); ++i)
      if (lanes[i].kind == LaneKind::kStream && lanes[i].device == gap.device) {
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
      }
    if (first < 0) continue;
    ImVec2 a(x0, g.LaneY(first)), b(x1, g.LaneY(last) + g.lane_h);
    dl->AddRectFilled(a, b, kIdleColor[static_cast<int>(gap.cause)]);
    if (hovered && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) under = &gap;
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

// Rows grow to use the height they are given (a few lanes read better tall), within limits.
Geometry LayOut(const GanttInputs& in, const GanttViewState& view, const GanttIndex& index, ImVec2 size) {
  Geometry g;
  g.origin = ImGui::GetCursorScreenPos();
  g.size = size;
  g.label_w = 170.0f * in.scale;
  g.axis_h = 24.0f * in.scale;
  float rows = static_cast<float>(index.lanes.size()) + (view.show_sms ? 6.0f : 0.0f);
  g.range_h = RangeRowHeight(in.scale);
  float range_rows = 0;
  for (size_t l = 0; l < index.lanes.size(); ++l) range_rows += RangeBlockHeight(index, view, l, g.range_h);
  g.lane_h = std::clamp((size.y - g.axis_h - 8 - range_rows) / rows, 26.0f * in.scale, 46.0f * in.scale);
  g.sm_h = 3.0f * in.scale;
  g.tops.push_back(g.origin.y + g.axis_h);
  for (size_t l = 0; l < index.lanes.size(); ++l)
    g.tops.push_back(g.tops.back() + g.lane_h + RangeBlockHeight(index, view, l, g.range_h));
  g.begin = view.begin;
  g.end = view.end;
  return g;
}

// Each lane's row: a stripe on every other one, its name and flags, and under a host lane with
// ranges shown, what its range rows hold; then the SM rows' label.
void DrawLaneLabels(GanttFrame& fr) {
  const Geometry& g = fr.g;
  const UiText& ui = *fr.in.ui;
  if (fr.view.show_sms) {
    fr.sm_count = fr.t.sm_count;
    for (const OpRecord& r : fr.t.ops)
      for (const BlockRecord& b : r.blocks) fr.sm_count = std::max(fr.sm_count, b.sm + 1);
  }
  for (size_t i = 0; i < fr.lanes.size(); ++i) {
    const Lane& lane = fr.lanes[i];
    float y = g.LaneY(static_cast<int>(i));
    if (i % 2) fr.dl->AddRectFilled(ImVec2(g.origin.x, y), ImVec2(fr.br.x, g.LaneY(static_cast<int>(i) + 1)), fr.pal.stripe);
    std::string label = lane.name;
    if (lane.kind == LaneKind::kHost) label = std::string(ui("host")) + (lane.thread == 0 ? "" : " " + std::to_string(lane.thread));
    if (lane.kind == LaneKind::kStream && fr.s.device_count > 1)
      label = ui.Fill("device", {{"n", std::to_string(lane.device)}}) + " " + label;
    fr.dl->AddText(ImVec2(g.origin.x + 6, y + 2), fr.pal.text, label.c_str());
    fr.dl->AddText(ImGui::GetFont(), ImGui::GetFontSize() * 0.75f, ImVec2(g.origin.x + 6, y + g.lane_h * 0.55f),
                   fr.pal.dim_text, TranslateFlags(ui, lane.flags).c_str());
    if (RangeBlockHeight(fr.index, fr.view, i, g.range_h) <= 0) continue;
    const RangeRows& rr = fr.index.range_rows[i];
    std::string what = rr.deeper ? ui.Fill("ranges.deeper", {{"n", std::to_string(rr.deeper)}}) : std::string(ui("ranges"));
    // Below the flags line, which reaches past the lane's row when rows are short.
    float label_y = std::max(y + g.lane_h, y + g.lane_h * 0.55f + ImGui::GetFontSize() * 0.75f + 1);
    fr.dl->AddText(ImGui::GetFont(), ImGui::GetFontSize() * 0.75f, ImVec2(g.origin.x + 6, label_y), fr.pal.dim_text, what.c_str());
  }
  fr.sm_top = g.LaneY(static_cast<int>(fr.lanes.size())) + 4;
  if (fr.sm_count > 0)
    fr.dl->AddText(ImVec2(g.origin.x + 6, fr.sm_top), fr.pal.dim_text,
                   (std::string(ui("sm")) + " 0.." + std::to_string(fr.sm_count - 1)).c_str());
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
// when many lanes scroll.
void DrawAxisLabels(GanttFrame& fr, const AxisTicks& ticks, float visible_top) {
  const Geometry& g = fr.g;
  float axis_y = std::max(g.origin.y, visible_top);
  fr.dl->AddRectFilled(ImVec2(g.ChartX0(), axis_y), ImVec2(fr.br.x, axis_y + g.axis_h - 6), fr.pal.background);
  for (TimeNs tick = ticks.first; tick <= g.end; tick += ticks.step)
    fr.dl->AddText(ImVec2(g.X(tick) + 3, axis_y + 3), fr.pal.dim_text, Rel(tick, ticks.origin, ticks.step).c_str());
}

// The host's ranges (NVTX, PyTorch ops, Python frames) in rows under each host lane.
void DrawAllRangeRows(GanttFrame& fr) {
  for (size_t lane = 0; lane < fr.lanes.size(); ++lane) {
    if (RangeBlockHeight(fr.index, fr.view, lane, fr.g.range_h) <= 0) continue;
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
    if (fr.hovered && rv.mouse.y >= rv.top && rv.mouse.y < fr.g.LaneY(static_cast<int>(lane) + 1))
      fr.range_lane = static_cast<int>(lane);
  }
}

}  // namespace

int DrawGantt(const GanttInputs& in, GanttViewState& view, ImVec2 size, std::vector<SpanRect>* layout) {
  const Trace& t = *in.trace;
  GanttIndex& index = view.index;
  GanttIndexOf(view, t);
  IndexDelays(index, t, *in.analysis);
  ApplyFitRequests(view, t, index.begin, index.end);
  // Replay: only what had happened by the cursor is drawn, clipped at it.
  const TimeNs cutoff = view.replay_until >= 0 ? view.replay_until : std::numeric_limits<TimeNs>::max();
  GanttFrame fr(in, view, cutoff, ExplainSlack(t), LayOut(in, view, index, size));

  ImGui::InvisibleButton("gantt", size, ImGuiButtonFlags_MouseButtonLeft);
  fr.hovered = in.interactive && ImGui::IsItemHovered();
  fr.dl = ImGui::GetWindowDrawList();
  fr.br = ImVec2(fr.g.origin.x + size.x, fr.g.origin.y + size.y);
  fr.dl->AddRectFilled(fr.g.origin, fr.br, fr.pal.background);
  // Everything, labels too, stays inside the chart's region (and its scrolled view).
  fr.dl->PushClipRect(fr.g.origin, fr.br, true);
  const ImVec2 visible_min = fr.dl->GetClipRectMin(), visible_max = fr.dl->GetClipRectMax();
  DrawLaneLabels(fr);
  fr.dl->PushClipRect(ImVec2(fr.g.ChartX0(), fr.g.origin.y), fr.br, true);
  AxisTicks ticks = DrawAxisGrid(fr);
  if (view.show_idle) fr.idle_under = DrawIdleBands(fr.dl, fr.g, in.analysis->figures, fr.lanes, cutoff, fr.hovered);
  DrawAllRangeRows(fr);
  for (size_t lane = 0; lane < fr.lanes.size(); ++lane) DrawLaneSpans(fr, lane);
  DrawSyncLines(fr);
  DrawExplanations(fr);
  DrawSmRows(fr);
  int clicked = HandleInteraction(fr);
  DrawAxisLabels(fr, ticks, visible_min.y);
  DrawStepMarks(fr, std::max(fr.g.origin.y, visible_min.y));
  fr.dl->PopClipRect();
  fr.dl->PopClipRect();
  if (layout) {
    // Only what can be seen: spans scrolled out of view are not on screen to check.
    layout->clear();
    float left = std::max(visible_min.x, fr.g.ChartX0());
    for (const SpanRect& r : fr.drawn) {
      float cx = (r.x0 + r.x1) * 0.5f;
      if (r.y0 >= visible_min.y && r.y1 <= visible_max.y && cx >= left && cx <= visible_max.x) layout->push_back(r);
    }
  }
  return clicked;
}

}  // namespace streamlab
