// The Gantt chart: one row per lane (host thread, then each stream, grouped by GPU, and
// optionally one thin row per SM), drawn with ImDrawList from an immutable Trace and its
// Analysis. The view state is a small struct (visible window, selection); wheel zooms
// around the cursor, drag pans, double-click fits, shift-drag measures.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "app/gui/chart/gantt_ranges.h"
#include "engine/analysis/analyzer.h"
#include "engine/analysis/resumed_places.h"
#include "engine/trace/trace.h"

namespace streamlab {

class FindingTexts;
class RangeIndex;
class UiText;

// A process's lanes (a rank of a torchrun job; the whole trace when it has one process): its host
// threads, those with few calls apart (folded behind one thin row), then its GPU streams.
struct LaneGroup {
  int process = -1;        // the scenario's process; -1 when the trace has one
  std::string title;       // "rank 0 (pid 2099)" ("" for one process: no header row)
  std::vector<int> lanes;  // shown: busy host lanes, then streams by device
  std::vector<int> quiet;  // host lanes with few calls
  size_t quiet_calls = 0;
  int devices = 0;         // GPUs its streams are on
};

// Per-trace indexes the chart needs every frame, built once: each lane's ops in time
// order with their start and end times (spans on a lane never overlap: host calls are
// sequential and a stream is FIFO), and for each op the end of the work before it.
struct GanttIndex {
  const Trace* trace = nullptr;
  size_t ops = 0;
  std::vector<Lane> lanes;
  std::vector<std::vector<int>> lane_ops;
  std::vector<std::vector<TimeNs>> lane_starts, lane_ends;
  std::vector<TimeNs> gap_from;  // per op: previous work's end on its lane (or its submit)
  std::vector<int> syncs;        // host sync calls by return time (drawn as lines where the host resumed)
  std::vector<std::pair<int, int>> record_to_wait;  // event / wait_stream edges: (from, to)
  TimeNs begin = 0, end = 1;     // the trace's extent
  // Of the analysis drawn with it: the start delays worth a label (not prompt starts), by
  // start time, so a frame looks only at those in view.
  const Analysis* analysis = nullptr;
  size_t findings = 0;
  std::vector<int> delays;
  std::vector<TimeNs> delay_starts;
  // The trace's ranges (Python frames, ops, NVTX), for where the host was under the mouse.
  std::shared_ptr<const RangeIndex> ranges;
  // Each host thread's calls, for where the host came back to CUDA when no range says where it was.
  std::shared_ptr<const ThreadCalls> calls;
  std::vector<RangeRows> range_rows;  // per lane: its ranges in rows by nesting (host lanes)
  std::vector<int> stream_lane;       // per stream: its lane
  std::vector<LaneGroup> groups;      // lanes by process, in drawing order
  std::vector<int> lane_group;        // per lane: its group
  // Per lane: the running sum of its spans' durations (a density bar's busy time in O(1)) and,
  // for host lanes, of calls that held the host (a bar holding syncs is drawn as one).
  std::vector<std::vector<TimeNs>> lane_busy;
  std::vector<std::vector<uint32_t>> lane_blocked;
  std::vector<bool> kinds_present;    // per OpKind: the trace has one (the legend lists those)
  bool copies_by_direction[3] = {};   // H2D, D2H, D2D present
};

// A group's folds in the view: the group folded to its header, its quiet threads shown.
struct GroupFold {
  bool collapsed = false;
  bool show_quiet = false;
};

struct GanttViewState {
  TimeNs begin = 0;
  TimeNs end = 1;
  int selected_op = -1;
  std::set<int> highlight;  // ops a finding points at
  bool show_sms = false;
  bool show_arrows = true;
  bool show_idle = true;  // shade the intervals a GPU ran no kernel, by cause
  bool show_ranges = true;  // the host's ranges in rows under each host lane
  bool measuring = false;
  std::string tooltip;  // the text of the tooltip drawn this frame ("" for none)
  TimeNs measure_from = 0;
  TimeNs measure_to = 0;
  // Pending: fit the view to the whole trace, or to these ops, on the next frame.
  bool fit_requested = true;
  std::vector<int> zoom_to;
  // Replay: draw only what happened up to this trace time (-1: everything).
  TimeNs replay_until = -1;
  // The axis counts from here (-1: the trace's start): a comparison's charts count from their first step.
  TimeNs axis_origin = -1;
  // A program's steps (engine/analysis/program_steps.h): each one's start, marked on the axis;
  // `first_steady` is the first steady one (those before it are warm-up).
  std::vector<TimeNs> step_marks;
  size_t first_steady = 0;
  // Per group of lanes (GanttIndex::groups): folded or not, and its one-line summary (a rank's
  // step and bound), set by the app from the verdict.
  std::vector<GroupFold> folds;
  std::vector<std::string> group_notes;
  // Pending: scroll the chart so this op's lane is in view (its group unfolded), next frame.
  int scroll_to_op = -1;
  // `highlight` by lane: each lane's positions (in its time-ordered list) of highlighted spans,
  // so a density bar can say it holds one; rebuilt when the highlight changes.
  std::vector<std::vector<size_t>> highlight_at;
  size_t highlight_key = 0;
  GanttIndex index;
};

// What was drawn where (for tests and screenshots' layout files).
struct SpanRect {
  int op = -1;
  int lane = 0;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  ImU32 color = 0;
};

// A text the chart drew (a lane's label, a group's header, an axis or step label), and a row:
// what a layout test reads to check that nothing is cut or drawn over another.
struct TextRect {
  std::string kind, text;
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
struct RowRect {
  std::string kind;  // "lane", "header", "quiet"
  int lane = -1, group = -1;
  bool stream = false;
  float y0 = 0, y1 = 0;
};
struct ChartLayout {
  std::vector<SpanRect> spans;  // only those on screen
  std::vector<RowRect> rows;    // every row laid out, on screen or scrolled away
  std::vector<TextRect> texts;  // those on screen
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // the chart's part on screen
  float label_x1 = 0;                    // the lane labels' column ends here
  float chart_x0 = 0, chart_w = 1, range_h = 0;  // time <-> x: begin at chart_x0, end chart_w further
  TimeNs begin = 0, end = 0;
};

struct GanttInputs {
  const Trace* trace = nullptr;
  const Analysis* analysis = nullptr;
  const FindingTexts* texts = nullptr;
  const UiText* ui = nullptr;
  float scale = 1.0f;  // font / row scale (presentation mode)
  bool interactive = true;  // false for headless screenshots: no hover, no tooltips
  bool high_contrast = false;  // presentation mode
};

// Draws the chart into a region of `size` at the cursor. Returns the op clicked this
// frame (or -1). Fills `layout` when it is not null.
int DrawGantt(const GanttInputs& in, GanttViewState& view, ImVec2 size, ChartLayout* layout);

// The legend: a swatch and a word for each colour the chart can draw for this trace (the kinds of
// span it holds, host calls that held the host, GPU idle by cause, steps, density bars), wrapped
// to the width at the cursor (gantt_legend.cpp).
void DrawGanttLegend(const GanttInputs& in, GanttViewState& view);

// The chart's per-trace index, built on first use and kept in the view state (a frame
// then costs about the number of pixels, not the number of spans).
const GanttIndex& GanttIndexOf(GanttViewState& view, const Trace& trace);
// The view's highlighted ops by lane (GanttViewState::highlight_at), rebuilt when they change.
void IndexHighlight(GanttViewState& view, const Trace& trace);
// The index's start delays worth a label, of `analysis` (rebuilt when the analysis changes).
void IndexDelays(GanttIndex& index, const Trace& trace, const Analysis& analysis);

// The height the chart needs to show every lane at its smallest row height.
float GanttContentHeight(const Trace& trace, GanttViewState& view, float scale);

// The time span the chart shows for a trace (host calls and GPU work), for a shared axis;
// the second form reads it from the view's index.
std::pair<TimeNs, TimeNs> GanttExtent(const Trace& trace);
std::pair<TimeNs, TimeNs> GanttExtent(GanttViewState& view, const Trace& trace);

// The colour the chart gives an op (by kind; copies by direction).
ImU32 OpColor(const Scenario& scenario, int op);

}  // namespace streamlab
