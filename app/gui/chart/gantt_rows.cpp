// The chart's rows (gantt_frame.h's Geometry): the lanes grouped by process - a recording of a
// torchrun job draws each rank as a group under a header that folds it and says the rank's step
// and bound - each group's quiet host threads folded behind one thin row, placed from the top;
// then each row's label, shortened to what its group's header does not already say.
#include <algorithm>
#include <cctype>
#include <string>

#include "app/gui/chart/gantt_frame.h"
#include "app/gui/ui_text.h"

namespace streamlab {

float RangeRowHeight(float scale) {
  return std::max(12.0f * scale, ImGui::GetFontSize() * 0.75f + 2.0f);
}

float RangeBlockHeight(const GanttIndex& x, const GanttViewState& view, size_t lane, float row_h) {
  if (!view.show_ranges || lane >= x.range_rows.size() || x.range_rows[lane].rows.empty())
    return 0.0f;
  return static_cast<float>(x.range_rows[lane].rows.size()) * row_h + 3.0f;
}

std::string Ellipsize(const std::string& text, float width, float font_size) {
  ImFont* font = ImGui::GetFont();
  auto w = [&](const std::string& s) {
    return font->CalcTextSizeA(font_size, 1e9f, 0, s.c_str()).x;
  };
  if (w(text) <= width) return text;
  const std::string dots = "\xE2\x80\xA6";
  std::string cut = text;
  while (!cut.empty() && w(cut + dots) > width) {
    cut.pop_back();
    while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80)
      cut.pop_back();  // a whole UTF-8 character
    if (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0x80)) cut.pop_back();
  }
  return cut + dots;
}

namespace {

float HeaderHeight() { return ImGui::GetFontSize() + 8.0f; }
float QuietHeight() { return ImGui::GetFontSize() * 0.75f + 6.0f; }

void FitFolds(GanttViewState& view, const GanttIndex& x) {
  if (view.folds.size() != x.groups.size()) view.folds.assign(x.groups.size(), GroupFold{});
}

// Places the rows from `top`, lanes `g.lane_h` tall; returns the bottom. A group's header only
// where the trace has several processes; its host lanes, the row of its quiet ones (and those
// when shown), then its streams.
float PlaceRows(Geometry& g, const GanttIndex& x, const GanttViewState& view, float top) {
  g.rows.clear();
  g.lane_top.assign(x.lanes.size(), -1.0f);
  float y = top;
  auto place_lane = [&](int lane, int group) {
    g.lane_top[static_cast<size_t>(lane)] = y;
    float h = g.lane_h + RangeBlockHeight(x, view, static_cast<size_t>(lane), g.range_h);
    g.rows.push_back({ChartRow::kLane, lane, group, y, y + h});
    y += h;
  };
  for (size_t gi = 0; gi < x.groups.size(); ++gi) {
    const LaneGroup& grp = x.groups[gi];
    const GroupFold& fold = view.folds[gi];
    int group = static_cast<int>(gi);
    if (x.groups.size() > 1) {
      g.rows.push_back({ChartRow::kGroupHeader, -1, group, y, y + HeaderHeight()});
      y += HeaderHeight();
      if (fold.collapsed) continue;
    }
    size_t hosts = 0;
    while (hosts < grp.lanes.size() &&
           x.lanes[static_cast<size_t>(grp.lanes[hosts])].kind == LaneKind::kHost)
      ++hosts;
    for (size_t i = 0; i < hosts; ++i) place_lane(grp.lanes[i], group);
    if (!grp.quiet.empty()) {
      g.rows.push_back({ChartRow::kQuiet, -1, group, y, y + QuietHeight()});
      y += QuietHeight();
      if (fold.show_quiet)
        for (int lane : grp.quiet) place_lane(lane, group);
    }
    for (size_t i = hosts; i < grp.lanes.size(); ++i) place_lane(grp.lanes[i], group);
  }
  return y;
}

float StepBand(const GanttViewState& view) {
  return view.step_marks.empty() ? 0.0f : ImGui::GetFontSize() * 0.75f + 4.0f;
}

}  // namespace

// Rows grow to use the height they are given (a few lanes read better tall), within limits.
Geometry LayOut(const GanttInputs& in, GanttViewState& view, const GanttIndex& index, ImVec2 size) {
  FitFolds(view, index);
  Geometry g;
  g.origin = ImGui::GetCursorScreenPos();
  g.size = size;
  g.label_w = 170.0f * in.scale;
  g.step_band = StepBand(view);
  g.axis_h = 24.0f * in.scale + g.step_band;
  g.range_h = RangeRowHeight(in.scale);
  g.sm_h = 3.0f * in.scale;
  g.lane_h = 0;
  const float top = g.origin.y + g.axis_h;
  float fixed = PlaceRows(g, index, view, top) - top;  // headers, folded rows, range rows
  auto lanes = static_cast<float>(std::count_if(
      g.rows.begin(), g.rows.end(), [](const ChartRow& r) { return r.kind == ChartRow::kLane; }));
  float rows = std::max(1.0f, lanes + (view.show_sms ? 6.0f : 0.0f));
  g.lane_h = std::clamp((size.y - g.axis_h - 8 - fixed) / rows, 26.0f * in.scale, 46.0f * in.scale);
  g.lanes_top = top;
  g.lanes_bottom = PlaceRows(g, index, view, top);
  g.begin = view.begin;
  g.end = view.end;
  return g;
}

float GanttContentHeight(const Trace& t, GanttViewState& view, float scale) {
  const GanttIndex& x = GanttIndexOf(view, t);
  FitFolds(view, x);
  Geometry g{};
  g.range_h = RangeRowHeight(scale);
  g.lane_h = 26.0f * scale;
  float lanes = PlaceRows(g, x, view, 0);
  float sm_rows = view.show_sms ? static_cast<float>(std::max(t.sm_count, 132)) * 3.0f * scale +
                                      24 + 6 * 26.0f * scale
                                : 0.0f;
  return 24.0f * scale + StepBand(view) + lanes + sm_rows + 8;
}

std::string LaneLabel(const GanttFrame& fr, size_t lane_index) {
  const Lane& lane = fr.lanes[lane_index];
  const UiText& ui = *fr.in.ui;
  if (lane.kind == LaneKind::kHost) {
    // A rank's threads counted from its own first one (rank 1's "host 5" is its thread 0).
    int first = lane.thread;
    while (first > 0 && (fr.s.processes.empty() ||
                         ProcessOfThread(fr.s, first - 1) == ProcessOfThread(fr.s, lane.thread)))
      --first;
    int n = lane.thread - first;
    return std::string(ui("host")) + (n == 0 ? "" : " " + std::to_string(n));
  }
  std::string name = lane.name;
  const LaneGroup& group = fr.index.groups[static_cast<size_t>(fr.index.lane_group[lane_index])];
  if (group.process >= 0) {
    // "rank 0: stream 14" under rank 0's header: "stream 14"; " (GPU 0)" when the header says it.
    size_t colon = name.find(": ");
    if (colon != std::string::npos && group.title.compare(0, colon, name, 0, colon) == 0)
      name = name.substr(colon + 2);
    size_t paren = name.rfind(" (GPU ");
    if (paren != std::string::npos && group.devices <= 1) name = name.substr(0, paren);
  }
  if (name == "legacy default")
    name = ui("lane.legacy_default");
  else if (name == "per-thread default")
    name = ui("lane.per_thread_default");
  else if (name.rfind("stream ", 0) == 0 && std::isdigit(static_cast<unsigned char>(name[7])))
    name = ui.Fill("lane.stream", {{"n", name.substr(7)}});
  bool device_said = group.process >= 0 ? group.devices <= 1 : fr.s.device_count <= 1;
  if (!device_said) name = ui.Fill("device", {{"n", std::to_string(lane.device)}}) + " " + name;
  return name;
}

namespace {

// A group's header: a band across the chart, a triangle (folded or not), the process and its
// one-line summary.
void DrawGroupHeader(GanttFrame& fr, const ChartRow& row) {
  const Geometry& g = fr.g;
  const LaneGroup& group = fr.index.groups[static_cast<size_t>(row.group)];
  bool collapsed = fr.view.folds[static_cast<size_t>(row.group)].collapsed;
  fr.dl->AddRectFilled(ImVec2(g.origin.x, row.y0 + 1), ImVec2(fr.br.x, row.y1 - 1),
                       IM_COL32(44, 52, 70, 255));
  float s = ImGui::GetFontSize() * 0.35f, cx = g.origin.x + 6 + s, cy = (row.y0 + row.y1) * 0.5f;
  if (collapsed)
    fr.dl->AddTriangleFilled(ImVec2(cx - s * 0.6f, cy - s), ImVec2(cx - s * 0.6f, cy + s),
                             ImVec2(cx + s, cy), fr.pal.text);
  else
    fr.dl->AddTriangleFilled(ImVec2(cx - s, cy - s * 0.6f), ImVec2(cx + s, cy - s * 0.6f),
                             ImVec2(cx, cy + s), fr.pal.text);
  std::string text = group.title;
  if (group.devices == 1) {
    for (int lane : group.lanes)
      if (fr.lanes[static_cast<size_t>(lane)].kind == LaneKind::kStream) {
        text += " \xC2\xB7 " +
                fr.in.ui->Fill("device",
                               {{"n", std::to_string(fr.lanes[static_cast<size_t>(lane)].device)}});
        break;
      }
  }
  const std::vector<std::string>& notes = fr.view.group_notes;
  if (group.process >= 0 && static_cast<size_t>(group.process) < notes.size() &&
      !notes[static_cast<size_t>(group.process)].empty())
    text += "  \xE2\x80\x94  " + notes[static_cast<size_t>(group.process)];
  float x = cx + s + 8;
  text = Ellipsize(text, fr.br.x - x - 6, ImGui::GetFontSize());
  AddLabel(fr, ImGui::GetFontSize(), ImVec2(x, row.y0 + 4), fr.pal.text, text, "header");
}

// A lane's row: a stripe on every other one, its name and flags, and under a host lane with
// ranges shown, what its range rows hold.
void DrawLaneRow(GanttFrame& fr, const ChartRow& row, bool stripe) {
  const Geometry& g = fr.g;
  const UiText& ui = *fr.in.ui;
  auto lane = static_cast<size_t>(row.lane);
  if (stripe)
    fr.dl->AddRectFilled(ImVec2(g.origin.x, row.y0), ImVec2(fr.br.x, row.y1), fr.pal.stripe);
  float small = ImGui::GetFontSize() * 0.75f;
  float room = g.label_w - 10;
  std::string label = LaneLabel(fr, lane);
  AddLabel(fr, ImGui::GetFontSize(), ImVec2(g.origin.x + 6, row.y0 + 2), fr.pal.text,
           Ellipsize(label, room, ImGui::GetFontSize()), "lane");
  std::string flags = TranslateFlags(ui, fr.lanes[lane].flags);
  if (fr.index.groups.size() > 1 && fr.lanes[lane].kind == LaneKind::kHost)
    flags.clear();  // the header names the process
  if (flags == label) flags.clear();
  // Under the name where the row is tall enough, else after it on its line, where there is room.
  float name_w = ImGui::CalcTextSize(Ellipsize(label, room, ImGui::GetFontSize()).c_str()).x;
  if (flags.empty()) {
  } else if (g.lane_h >= ImGui::GetFontSize() + small + 4) {
    AddLabel(fr, small, ImVec2(g.origin.x + 6, row.y0 + g.lane_h - small - 2), fr.pal.dim_text,
             Ellipsize(flags, room, small), "flags");
  } else if (room - name_w - 8 > ImGui::GetFontSize() * 2) {
    float y = row.y0 + 2 + ImGui::GetFontSize() - small - 1;  // on the name's baseline
    AddLabel(fr, small, ImVec2(g.origin.x + 12 + name_w, y), fr.pal.dim_text,
             Ellipsize(flags, room - name_w - 8, small), "flags");
  }
  if (RangeBlockHeight(fr.index, fr.view, lane, g.range_h) <= 0) return;
  const RangeRows& rr = fr.index.range_rows[lane];
  std::string what = rr.deeper ? ui.Fill("ranges.deeper", {{"n", std::to_string(rr.deeper)}})
                               : std::string(ui("ranges"));
  // Below the flags line, which reaches past the lane's row when rows are short.
  float label_y = row.y0 + g.lane_h;
  fr.dl->AddText(ImGui::GetFont(), small, ImVec2(g.origin.x + 6, label_y), fr.pal.dim_text,
                 what.c_str());
}

// The row a group's quiet threads are folded behind: how many, and how few calls they made.
void DrawQuietRow(GanttFrame& fr, const ChartRow& row) {
  const LaneGroup& group = fr.index.groups[static_cast<size_t>(row.group)];
  bool shown = fr.view.folds[static_cast<size_t>(row.group)].show_quiet;
  std::string text = fr.in.ui->Fill(
      shown ? "lanes.quiet_shown" : "lanes.quiet",
      {{"n", std::to_string(group.quiet.size())}, {"calls", std::to_string(group.quiet_calls)}});
  float small = ImGui::GetFontSize() * 0.75f;
  AddLabel(fr, small, ImVec2(fr.g.origin.x + 6, row.y0 + 3), fr.pal.dim_text,
           Ellipsize(text, fr.g.label_w - 10, small), "quiet");
  fr.dl->AddLine(ImVec2(fr.g.ChartX0(), row.y1 - 1), ImVec2(fr.br.x, row.y1 - 1), fr.pal.grid);
}

}  // namespace

void DrawRowLabels(GanttFrame& fr) {
  if (fr.view.show_sms) {
    fr.sm_count = fr.t.sm_count;
    for (const OpRecord& r : fr.t.ops)
      for (const BlockRecord& b : r.blocks) fr.sm_count = std::max(fr.sm_count, b.sm + 1);
  }
  int shown_lanes = 0;
  for (const ChartRow& row : fr.g.rows) {
    bool visible = row.y1 >= fr.visible_top && row.y0 <= fr.visible_bottom;
    if (row.kind == ChartRow::kGroupHeader) {
      shown_lanes = 0;
      if (visible) DrawGroupHeader(fr, row);
    } else if (row.kind == ChartRow::kQuiet) {
      if (visible) DrawQuietRow(fr, row);
    } else {
      if (visible) DrawLaneRow(fr, row, shown_lanes % 2 == 1);
      ++shown_lanes;
    }
  }
  fr.sm_top = fr.g.lanes_bottom + 4;
  if (fr.sm_count > 0)
    fr.dl->AddText(
        ImVec2(fr.g.origin.x + 6, fr.sm_top), fr.pal.dim_text,
        (std::string((*fr.in.ui)("sm")) + " 0.." + std::to_string(fr.sm_count - 1)).c_str());
}

// A click (not a drag) on a group's header folds or unfolds it; on a quiet row, shows or hides
// those threads. True when it took the click.
bool HandleRowClick(GanttFrame& fr) {
  const ImGuiIO& io = ImGui::GetIO();
  if (!fr.hovered || !ImGui::IsMouseReleased(ImGuiMouseButton_Left) ||
      io.MouseDragMaxDistanceSqr[0] >= 4.0f)
    return false;
  const ChartRow* row = fr.g.RowAt(io.MousePos.y);
  if (!row || row->kind == ChartRow::kLane) return false;
  GroupFold& fold = fr.view.folds[static_cast<size_t>(row->group)];
  if (row->kind == ChartRow::kGroupHeader)
    fold.collapsed = !fold.collapsed;
  else
    fold.show_quiet = !fold.show_quiet;
  return true;
}

}  // namespace streamlab
