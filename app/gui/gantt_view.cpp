// Gantt chart drawing and interaction.
// [SECTION] geometry: rows, time <-> x, axis ticks
// [SECTION] lanes: host calls (blocked time shaded), GPU spans (queued part hatched),
//           markers, level of detail ("N ops" blocks under ~3 px)
// [SECTION] explanations: record -> wait arrows, arrows from the op that released each
//           delayed op, cause labels in gaps
// [SECTION] SM rows: which SM ran which block
// [SECTION] interaction: zoom, pan, fit, measure, hover tooltip, click
#include "app/gui/gantt_view.h"

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

// The chart's neutral colours; presentation mode uses the high-contrast set (projectors
// wash out dark greys).
struct Palette {
  ImU32 background, stripe, grid, text, dim_text;
};
constexpr Palette kNormalPalette{IM_COL32(24, 26, 30, 255), IM_COL32(32, 35, 40, 255), IM_COL32(70, 74, 82, 255),
                                 IM_COL32(225, 228, 232, 255), IM_COL32(150, 155, 165, 255)};
constexpr Palette kHighContrastPalette{IM_COL32(0, 0, 0, 255), IM_COL32(22, 22, 22, 255), IM_COL32(120, 120, 120, 255),
                                       IM_COL32(255, 255, 255, 255), IM_COL32(225, 225, 225, 255)};
constexpr ImU32 kHostCall = IM_COL32(120, 125, 135, 255);
constexpr ImU32 kHostBlocked = IM_COL32(200, 70, 70, 150);
constexpr ImU32 kMerged = IM_COL32(130, 130, 130, 255);
constexpr ImU32 kMarker = IM_COL32(235, 235, 235, 255);
constexpr ImU32 kHighlight = IM_COL32(255, 215, 0, 255);
constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 255);
constexpr ImU32 kArrow = IM_COL32(255, 200, 60, 230);
constexpr ImU32 kMeasure = IM_COL32(90, 160, 255, 60);

// [SECTION] geometry ------------------------------------------------------------------------

struct Geometry {
  ImVec2 origin;
  ImVec2 size;
  float label_w, axis_h, lane_h, sm_h;
  float range_h;            // one row of the host's ranges
  std::vector<float> tops;  // each lane's top, then the bottom of the last (lanes + 1)
  TimeNs begin, end;
  float ChartX0() const { return origin.x + label_w; }
  float ChartW() const { return std::max(1.0f, size.x - label_w); }
  float X(TimeNs t) const {
    return ChartX0() + static_cast<float>(static_cast<double>(t - begin) * ChartW() / static_cast<double>(end - begin));
  }
  TimeNs T(float x) const {
    return begin + static_cast<TimeNs>(static_cast<double>(x - ChartX0()) * static_cast<double>(end - begin) / ChartW());
  }
  // A lane's top; a host lane with ranges shown has their rows below its own row.
  float LaneY(int lane) const { return tops[static_cast<size_t>(lane)]; }
  // The lane whose own row (not its range rows) is at `y`, or -1.
  int LaneAt(float y) const {
    auto above = std::upper_bound(tops.begin(), tops.end(), y);
    if (above == tops.begin() || above == tops.end()) return -1;
    int lane = static_cast<int>(above - tops.begin()) - 1;
    return y < tops[static_cast<size_t>(lane)] + lane_h ? lane : -1;
  }
};

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

int DrawGantt(const GanttInputs& in, GanttViewState& view, ImVec2 size, std::vector<SpanRect>* layout) {
  const Trace& t = *in.trace;
  const Scenario& s = t.scenario;
  const Palette& pal = in.high_contrast ? kHighContrastPalette : kNormalPalette;
  // Replay: only what had happened by the cursor is drawn, clipped at it.
  const TimeNs cutoff = view.replay_until >= 0 ? view.replay_until : std::numeric_limits<TimeNs>::max();
  const Analysis& analysis = *in.analysis;
  const UiText& ui = *in.ui;
  GanttIndex& index = view.index;
  GanttIndexOf(view, t);
  IndexDelays(index, t, *in.analysis);
  const std::vector<Lane>& lanes = index.lanes;
  TimeNs trace_begin = index.begin, trace_end = index.end;

  // Fit requests (whole trace, or the ops a finding names).
  if (view.fit_requested || view.end <= view.begin) {
    TimeNs pad = (trace_end - trace_begin) / 40;
    view.begin = trace_begin - pad;
    view.end = trace_end + pad;
    view.fit_requested = false;
  }
  if (!view.zoom_to.empty()) {
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

  Geometry g;
  g.origin = ImGui::GetCursorScreenPos();
  g.size = size;
  g.label_w = 170.0f * in.scale;
  g.axis_h = 24.0f * in.scale;
  // Rows grow to use the height they are given (a few lanes read better tall), within limits.
  float rows = static_cast<float>(lanes.size()) + (view.show_sms ? 6.0f : 0.0f);
  g.range_h = RangeRowHeight(in.scale);
  float range_rows = 0;
  for (size_t l = 0; l < lanes.size(); ++l) range_rows += RangeBlockHeight(index, view, l, g.range_h);
  g.lane_h = std::clamp((size.y - g.axis_h - 8 - range_rows) / rows, 26.0f * in.scale, 46.0f * in.scale);
  g.sm_h = 3.0f * in.scale;
  g.tops.push_back(g.origin.y + g.axis_h);
  for (size_t l = 0; l < lanes.size(); ++l) g.tops.push_back(g.tops.back() + g.lane_h + RangeBlockHeight(index, view, l, g.range_h));
  g.begin = view.begin;
  g.end = view.end;

  ImGui::InvisibleButton("gantt", size, ImGuiButtonFlags_MouseButtonLeft);
  bool hovered = in.interactive && ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 br(g.origin.x + size.x, g.origin.y + size.y);
  dl->AddRectFilled(g.origin, br, pal.background);

  // Everything, labels too, stays inside the chart's region (and its scrolled view).
  dl->PushClipRect(g.origin, br, true);
  const ImVec2 visible_min = dl->GetClipRectMin(), visible_max = dl->GetClipRectMax();
  // Lane rows (and the SM block rows below them).
  int sm_count = 0;
  if (view.show_sms) {
    sm_count = t.sm_count;
    for (const OpRecord& r : t.ops)
      for (const BlockRecord& b : r.blocks) sm_count = std::max(sm_count, b.sm + 1);
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    float y = g.LaneY(static_cast<int>(i));
    if (i % 2) dl->AddRectFilled(ImVec2(g.origin.x, y), ImVec2(br.x, g.LaneY(static_cast<int>(i) + 1)), pal.stripe);
    std::string label = lanes[i].name;
    if (lanes[i].kind == LaneKind::kHost)
      label = std::string(ui("host")) + (lanes[i].thread == 0 ? "" : " " + std::to_string(lanes[i].thread));
    if (lanes[i].kind == LaneKind::kStream && s.device_count > 1)
      label = ui.Fill("device", {{"n", std::to_string(lanes[i].device)}}) + " " + label;
    dl->AddText(ImVec2(g.origin.x + 6, y + 2), pal.text, label.c_str());
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize() * 0.75f, ImVec2(g.origin.x + 6, y + g.lane_h * 0.55f), pal.dim_text,
                TranslateFlags(ui, lanes[i].flags).c_str());
    if (RangeBlockHeight(index, view, i, g.range_h) > 0) {
      const RangeRows& rr = index.range_rows[i];
      std::string what = rr.deeper ? ui.Fill("ranges.deeper", {{"n", std::to_string(rr.deeper)}}) : std::string(ui("ranges"));
      // Below the flags line, which reaches past the lane's row when rows are short.
      float label_y = std::max(y + g.lane_h, y + g.lane_h * 0.55f + ImGui::GetFontSize() * 0.75f + 1);
      dl->AddText(ImGui::GetFont(), ImGui::GetFontSize() * 0.75f, ImVec2(g.origin.x + 6, label_y), pal.dim_text, what.c_str());
    }
  }
  float sm_top = g.LaneY(static_cast<int>(lanes.size())) + 4;
  if (sm_count > 0)
    dl->AddText(ImVec2(g.origin.x + 6, sm_top), pal.dim_text, (std::string(ui("sm")) + " 0.." + std::to_string(sm_count - 1)).c_str());

  dl->PushClipRect(ImVec2(g.ChartX0(), g.origin.y), br, true);
  // Axis.
  // ~6 characters of label per tick, whatever the font size (presentation mode scales it).
  float label_w = std::max(70.0f, ImGui::CalcTextSize("000.0 us  ").x);
  TimeNs step = TickStep(g.end - g.begin, g.ChartW(), label_w);
  // Ticks count from the trace's start, or from the origin a comparison aligns the charts on.
  const TimeNs axis_origin = view.axis_origin >= 0 ? view.axis_origin : trace_begin;
  // Zoomed in far from the origin, a label needs more digits ("6.3995 s"): space them for it.
  float long_w = ImGui::CalcTextSize((Rel(g.end, axis_origin, step) + "  ").c_str()).x;
  if (long_w > label_w) step = TickStep(g.end - g.begin, g.ChartW(), long_w);
  TimeNs first_tick = axis_origin + ((g.begin - axis_origin) / step) * step;
  for (TimeNs tick = first_tick; tick <= g.end; tick += step) {
    float x = g.X(tick);
    dl->AddLine(ImVec2(x, g.origin.y + g.axis_h - 6), ImVec2(x, br.y), pal.grid);
  }

  std::vector<SpanRect> drawn;
  const TimeNs slack = ExplainSlack(t);
  const IdleGap* idle_under = view.show_idle ? DrawIdleBands(dl, g, analysis.figures, lanes, cutoff, hovered) : nullptr;

  // [SECTION] lanes ------------------------------------------------------------------------
  const HostRange* range_under = nullptr;
  int range_lane = -1;  // the host lane whose range rows the mouse is over
  for (size_t lane = 0; lane < lanes.size(); ++lane) {
    if (RangeBlockHeight(index, view, lane, g.range_h) <= 0) continue;
    RangeRowsView rv;
    rv.chart_x0 = g.ChartX0();
    rv.chart_w = g.ChartW();
    rv.begin = g.begin;
    rv.end = g.end;
    rv.top = g.LaneY(static_cast<int>(lane)) + g.lane_h;
    rv.row_h = g.range_h;
    rv.cutoff = cutoff;
    rv.font_size = ImGui::GetFontSize() * 0.75f;
    rv.mouse = ImGui::GetIO().MousePos;
    rv.hovered = hovered;
    if (const HostRange* r = DrawRangeRows(dl, index.range_rows[lane], rv)) range_under = r;
    if (hovered && rv.mouse.y >= rv.top && rv.mouse.y < g.LaneY(static_cast<int>(lane) + 1)) range_lane = static_cast<int>(lane);
  }
  for (size_t lane = 0; lane < lanes.size(); ++lane) {
    float y0 = g.LaneY(static_cast<int>(lane)) + 4, y1 = g.LaneY(static_cast<int>(lane)) + g.lane_h - 4;
    const std::vector<int>& ops = index.lane_ops[lane];
    const std::vector<TimeNs>& starts = index.lane_starts[lane];
    const std::vector<TimeNs>& ends = index.lane_ends[lane];
    // First op still visible; ends are ascending because spans on a lane do not overlap.
    size_t i = std::lower_bound(ends.begin(), ends.end(), g.begin) - ends.begin();
    while (i < ops.size() && starts[i] <= g.end && starts[i] <= cutoff) {
      int op = ops[i];
      const OpRecord& r = t.ops[op];
      const Op& o = s.ops[op];
      float x0 = g.X(starts[i]), x1 = g.X(std::min(ends[i], cutoff));
      bool host_lane = lanes[lane].kind == LaneKind::kHost;
      if (!host_lane && !IsGpuWork(o)) {  // record / wait: a triangle
        float x = g.X(r.end);
        if (r.end > cutoff) {
          ++i;
          continue;
        }
        if (o.kind == OpKind::kRecord)
          dl->AddTriangleFilled(ImVec2(x - 4, y0 - 3), ImVec2(x + 4, y0 - 3), ImVec2(x, y0 + 4), kMarker);
        else
          dl->AddTriangleFilled(ImVec2(x - 4, y1 + 3), ImVec2(x + 4, y1 + 3), ImVec2(x, y1 - 4), kMarker);
        ++i;
        continue;
      }
      if (x1 - x0 < 3.0f) {
        // Level of detail: everything that starts within the next 3 px becomes one "N ops"
        // block. Only the last op of such a run can be wide (the others end before it).
        size_t j = GallopLowerBound(starts, i, g.T(x0 + 3.0f));
        if (j > i + 1 && g.X(ends[j - 1]) - g.X(starts[j - 1]) >= 3.0f) --j;
        j = std::max(j, i + 1);
        float mx1 = std::max(g.X(ends[j - 1]), x0 + 1.0f);
        size_t count = j - i;
        ImU32 col = count == 1 ? (host_lane ? kHostCall : OpColor(s, op)) : kMerged;
        dl->AddRectFilled(ImVec2(x0, y0), ImVec2(mx1, y1), col);
        if (count > 1) {
          std::string label = ui.Fill("merged", {{"n", std::to_string(count)}});
          if (mx1 - x0 > ImGui::CalcTextSize(label.c_str()).x + 4)
            dl->AddText(ImVec2(x0 + 2, y0 + 1), IM_COL32(20, 20, 20, 255), label.c_str());
        }
        i = j;
        continue;
      }
      ++i;
      if (host_lane) {  // host: a call that blocked the host is shaded, with its name
        bool blocked = HostCallTime(r) > slack && o.kind != OpKind::kHostWork;
        ImU32 col = blocked ? kHostBlocked : (o.kind == OpKind::kHostWork ? IM_COL32(110, 110, 160, 200) : kHostCall);
        dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), col);
        if (blocked && x1 - x0 > 40) {
          std::string name = DisplayName(s, op);
          if (x1 - x0 > ImGui::CalcTextSize(name.c_str()).x + 6)
            dl->AddText(ImVec2(std::max(x0, g.ChartX0()) + 3, y0 + 1), pal.text, name.c_str());
        }
        drawn.push_back({op, 0, x0, y0, x1, y1, col});
        continue;
      }
      TimeNs queued = QueuedTime(t, r);
      if (queued > 0) {  // ready but not started: outlined, hatched
        float qx0 = g.X(r.start - queued);
        dl->AddRect(ImVec2(qx0, y0 + 3), ImVec2(x0, y1 - 3), OpColor(s, op), 0, 0, 1.0f);
        for (float hx = std::max(qx0, g.ChartX0()); hx < x0; hx += 6)
          dl->AddLine(ImVec2(hx, y1 - 3), ImVec2(std::min(hx + 4, x0), y0 + 3), OpColor(s, op));
      }
      ImU32 col = OpColor(s, op);
      dl->AddRectFilled(ImVec2(x0, y0), ImVec2(x1, y1), col, 2.0f);
      if (view.highlight.count(op)) dl->AddRect(ImVec2(x0 - 1, y0 - 1), ImVec2(x1 + 1, y1 + 1), kHighlight, 2.0f, 0, 3.0f);
      if (view.selected_op == op) dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), kSelected, 2.0f, 0, 2.0f);
      if (x1 - x0 > 30) {
        std::string name = DisplayName(s, op);
        if (x1 - x0 > ImGui::CalcTextSize(name.c_str()).x + 6)
          dl->AddText(ImVec2(std::max(x0, g.ChartX0()) + 3, y0 + 2), IM_COL32(255, 255, 255, 255), name.c_str());
      }
      drawn.push_back({op, static_cast<int>(lane), x0, y0, x1, y1, col});
    }
  }

  // Host syncs: a line where the host got control back.
  for (int i : index.syncs) {
    if (t.ops[i].ret > cutoff) continue;
    float x = g.X(t.ops[i].ret);
    dl->AddLine(ImVec2(x, g.LaneY(0)), ImVec2(x, g.LaneY(static_cast<int>(lanes.size()))), IM_COL32(200, 70, 70, 160), 1.5f);
  }

  if (view.replay_until >= 0) {  // the replay cursor
    float x = g.X(view.replay_until);
    dl->AddLine(ImVec2(x, g.origin.y), ImVec2(x, br.y), kHighlight, 2.0f);
  }

  // [SECTION] explanations -----------------------------------------------------------------
  auto lane_of = [&](int op) {
    return s.ops[op].stream >= 0 && t.ops[op].gpu ? GpuLaneOf(lanes, s.ops[op]) : HostLaneOf(s.ops[op]);
  };
  // Every event record (or wait_stream source) to the wait it released: a thin line from the
  // record's marker down to the wait's marker, whether or not the wait held anything.
  if (view.show_arrows) {
    for (const auto& [from, to] : index.record_to_wait) {
      if (!t.ops[from].gpu || !t.ops[to].gpu || t.ops[to].end > cutoff) continue;
      ImVec2 a(g.X(t.ops[from].end), g.LaneY(lane_of(from)) + 6);
      ImVec2 b(g.X(t.ops[to].end), g.LaneY(lane_of(to)) + g.lane_h - 6);
      if (std::max(a.x, b.x) < g.ChartX0() || std::min(a.x, b.x) > br.x) continue;
      dl->AddLine(a, b, kMarker, 1.0f);
      dl->AddCircleFilled(b, 2.5f, kMarker);
    }
  }
  // Only the delays whose op starts in view: a frame's cost must not grow with the trace.
  // More than a few hundred labels and arrows at once cannot be read: then none are drawn
  // until the view is zoomed in (the findings panel still lists them).
  constexpr size_t kMaxDelaysDrawn = 400;
  size_t first_delay = static_cast<size_t>(
      std::lower_bound(index.delay_starts.begin(), index.delay_starts.end(), g.begin) - index.delay_starts.begin());
  size_t end_delay = static_cast<size_t>(
      std::upper_bound(index.delay_starts.begin(), index.delay_starts.end(), g.end) - index.delay_starts.begin());
  if (end_delay - first_delay > kMaxDelaysDrawn) end_delay = first_delay;
  for (size_t d = first_delay; d < end_delay; ++d) {
    const Finding& f = analysis.findings[index.delays[d]];
    const OpRecord& r = t.ops[f.op];
    if (r.start > cutoff) continue;
    int lane = lane_of(f.op);
    float y = g.LaneY(lane) + g.lane_h * 0.5f;
    // The gap before the op, labelled with its cause.
    float gx0 = g.X(index.gap_from[f.op]), gx1 = g.X(r.start - QueuedTime(t, r));
    std::string label = in.texts->Get(std::string("cause.") + ToString(f.cause));
    ImVec2 ts = ImGui::CalcTextSize(label.c_str());
    if (gx1 - gx0 > ts.x + 8 && f.cause != Cause::kStreamOrder) {
      dl->AddLine(ImVec2(gx0, y), ImVec2(gx1, y), pal.dim_text, 1.0f);
      dl->AddText(ImVec2((gx0 + gx1 - ts.x) * 0.5f, y - ts.y - 1), kArrow, label.c_str());
    }
    // An arrow from the op that released it (end) to its start.
    if (!view.show_arrows || f.because.empty()) continue;
    int from = f.because.front();
    if (from < 0 || !t.ops[from].gpu || lane_of(from) == lane) continue;
    ImVec2 a(g.X(t.ops[from].end), g.LaneY(lane_of(from)) + g.lane_h * 0.5f);
    ImVec2 b(g.X(r.start), y);
    dl->AddBezierCubic(a, ImVec2(a.x + 30, a.y), ImVec2(b.x - 30, b.y), b, kArrow, 1.5f);
    float dir = b.y > a.y ? 1.0f : -1.0f;
    dl->AddTriangleFilled(b, ImVec2(b.x - 7, b.y - 4 * dir), ImVec2(b.x - 7, b.y + 4 * dir), kArrow);
  }

  // [SECTION] SM rows ----------------------------------------------------------------------
  if (sm_count > 0) {
    float top = sm_top + ImGui::GetFontSize() + 2;
    // One hue per kernel here, so it shows which kernel held which SM.
    static const ImU32 kKernelHues[] = {IM_COL32(70, 130, 200, 255), IM_COL32(230, 145, 50, 255),
                                        IM_COL32(90, 185, 100, 255), IM_COL32(200, 90, 160, 255),
                                        IM_COL32(60, 190, 190, 255), IM_COL32(210, 200, 70, 255)};
    int kernel_index = 0;
    for (size_t i = 0; i < t.ops.size(); ++i) {
      if (t.ops[i].blocks.empty()) continue;
      ImU32 col = kKernelHues[kernel_index++ % 6];
      for (const BlockRecord& blk : t.ops[i].blocks) {
        if (blk.start > cutoff) continue;
        float x0 = g.X(blk.start), x1 = std::max(g.X(std::min(blk.end, cutoff)), x0 + 1);
        if (x1 < g.ChartX0() || x0 > br.x) continue;
        float y = top + static_cast<float>(blk.sm) * g.sm_h;
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + g.sm_h - 1), view.highlight.count(static_cast<int>(i)) ? kHighlight : col);
      }
    }
  }

  // [SECTION] interaction ------------------------------------------------------------------
  ImGuiIO& io = ImGui::GetIO();
  int clicked = -1;
  if (hovered) {
    float mx = io.MousePos.x;
    if (io.MouseWheel != 0 && mx >= g.ChartX0()) {
      TimeNs at = g.T(mx);
      double factor = std::pow(1.25, -io.MouseWheel);
      view.begin = at - static_cast<TimeNs>(static_cast<double>(at - view.begin) * factor);
      view.end = at + static_cast<TimeNs>(static_cast<double>(view.end - at) * factor);
      if (view.end - view.begin < 100) view.end = view.begin + 100;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) view.fit_requested = true;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
    if (io.KeyShift) {
      if (!view.measuring) {
        view.measuring = true;
        view.measure_from = g.T(io.MouseClickedPos[0].x);
      }
      view.measure_to = g.T(io.MousePos.x);
    } else {
      TimeNs shift = static_cast<TimeNs>(static_cast<double>(io.MouseDelta.x) * static_cast<double>(g.end - g.begin) / g.ChartW());
      view.begin -= shift;
      view.end -= shift;
    }
  }
  if (ImGui::IsItemDeactivated()) {
    // A click (not a drag) clears the measured range; a finished shift-drag keeps it shown.
    if (io.MouseDragMaxDistanceSqr[0] < 4.0f) view.measure_to = view.measure_from;
    view.measuring = false;
  }
  if (view.measuring || view.measure_to != view.measure_from) {
    float x0 = g.X(std::min(view.measure_from, view.measure_to)), x1 = g.X(std::max(view.measure_from, view.measure_to));
    if (x1 - x0 > 1) {
      dl->AddRectFilled(ImVec2(x0, g.origin.y), ImVec2(x1, br.y), kMeasure);
      std::string label = std::string(ui("measure")) + ": " + FormatDuration(std::abs(view.measure_to - view.measure_from));
      dl->AddText(ImVec2(x0 + 4, br.y - ImGui::GetFontSize() - 4), pal.text, label.c_str());
    }
  }
  const SpanRect* under = nullptr;
  if (hovered)
    for (const SpanRect& r : drawn)
      if (io.MousePos.x >= r.x0 - 1 && io.MousePos.x <= r.x1 + 1 && io.MousePos.y >= r.y0 && io.MousePos.y <= r.y1) under = &r;
  if (under && ImGui::IsItemClicked(ImGuiMouseButton_Left)) clicked = under->op;
  view.tooltip.clear();
  if (hovered) {
    GanttHover hover;
    hover.span = under;
    hover.idle = under ? nullptr : idle_under;
    hover.at = g.T(io.MousePos.x);
    hover.range = under ? nullptr : range_under;
    // Over a host lane's own row or its range rows (where no range is, or one too small to
    // name): where the host was then.
    int lane = range_lane >= 0 ? range_lane : g.LaneAt(io.MousePos.y);
    if (lane >= 0 && lanes[lane].kind == LaneKind::kHost && io.MousePos.x >= g.ChartX0()) hover.host_thread = lanes[lane].thread;
    view.tooltip = DrawGanttTooltip(in, index, hover);
  }
  // The axis labels last, on a band pinned to the top of what is visible, so they stay in
  // view when many lanes scroll.
  float axis_y = std::max(g.origin.y, visible_min.y);
  dl->AddRectFilled(ImVec2(g.ChartX0(), axis_y), ImVec2(br.x, axis_y + g.axis_h - 6), pal.background);
  for (TimeNs tick = first_tick; tick <= g.end; tick += step)
    dl->AddText(ImVec2(g.X(tick) + 3, axis_y + 3), pal.dim_text, Rel(tick, axis_origin, step).c_str());
  dl->PopClipRect();
  dl->PopClipRect();
  if (layout) {
    // Only what can be seen: spans scrolled out of view are not on screen to check.
    layout->clear();
    float left = std::max(visible_min.x, g.ChartX0());
    for (const SpanRect& r : drawn) {
      float cx = (r.x0 + r.x1) * 0.5f;
      if (r.y0 >= visible_min.y && r.y1 <= visible_max.y && cx >= left && cx <= visible_max.x) layout->push_back(r);
    }
  }
  return clicked;
}

}  // namespace streamlab
