// The chart's tooltips (gantt_tooltip.h), built as lines first so the text can be checked
// (a headless screenshot with --hover prints it). Where the host was is looked up in the
// trace's range index (built once per trace with the chart's index) for the one moment hovered;
// where no range says it, where the host came back to CUDA, in the thread's calls.
#include "app/gui/chart/gantt_tooltip.h"

#include "app/gui/chart/gantt_frame.h"
#include "app/gui/ui_text.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/program_sites.h"
#include "engine/trace/trace_query.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

constexpr const char* kSeparator = "---";

const Finding* DelayFinding(const Analysis& a, int op) {
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kStartDelay && f.op == op) return &f;
  return nullptr;
}

// "Where the host was: in step (train.py), by way of __next__ (...)". Where the trace's ranges
// say nothing of that moment and `own_work` (the host was outside CUDA): where it came back to
// CUDA, if the trace has the Python stack of the call that ended that stretch; else nothing.
void HostPlaceLines(const GanttInputs& in, const GanttIndex& index, int thread, TimeNs at, std::vector<std::string>& out,
                    bool own_work = false) {
  if (!index.ranges || thread < 0) return;
  ProgramSite site = SiteOf(*index.ranges, thread, at);
  if (site.empty()) {
    if (!own_work || !index.calls) return;
    Resumption back = ResumedAt(*in.trace, *index.calls, *index.ranges, thread, at);
    if (back.site.empty()) return;
    out.push_back(kSeparator);
    out.push_back(in.ui->Fill("host_came_back", {{"place", in.texts->RenderPlace(back.site)},
                                                 {"time", FormatDuration(back.to - back.from)}}));
    return;
  }
  out.push_back(kSeparator);
  out.push_back(std::string((*in.ui)("host_was")) + ": " + in.texts->RenderPlace(site));
}

void SpanLines(const GanttInputs& in, const GanttIndex& index, const SpanRect& span, std::vector<std::string>& out) {
  const Trace& t = *in.trace;
  const Scenario& s = t.scenario;
  const UiText& ui = *in.ui;
  const OpRecord& r = t.ops[span.op];
  // To the microsecond: "6.40 s" would say nothing of a call 6.4 s into a run.
  auto rel = [&](TimeNs x) { return FormatTick(x - index.begin, 1000); };
  auto pair = [&](const char* key, const std::string& value) { return std::string(ui(key)) + " " + value; };
  out.push_back(DisplayName(s, span.op) + "  (" + ToString(s.ops[span.op].kind) + ")");
  out.push_back(pair("submitted", rel(r.submit)) + "  " + pair("returned", rel(r.ret)));
  if (r.gpu && index.lanes[span.lane].kind == LaneKind::kStream) {
    out.push_back(pair("ready", rel(r.ready)) + "  " + pair("start", rel(r.start)) + "  " + pair("end", rel(r.end)));
    out.push_back(pair("duration", FormatDuration(r.end - r.start)));
    if (TimeNs q = QueuedTime(t, r)) out.push_back(pair("queued", FormatDuration(q)));
    if (const Finding* f = DelayFinding(*in.analysis, span.op)) {
      out.push_back(kSeparator);
      out.push_back(in.texts->Render(t, *f));
    }
    return;
  }
  out.push_back(pair("blocked", FormatDuration(HostCallTime(r))));
  for (const Finding& f : in.analysis->findings)
    if (f.kind == FindingKind::kHostBlock && f.op == span.op) {
      out.push_back(kSeparator);
      out.push_back(in.texts->Render(t, f));
    }
  // The call's own site: where in the program it was made.
  HostPlaceLines(in, index, s.ops[span.op].thread, r.submit, out);
}

// What a density bar holds, by class of call or op, with each class's time; its busy share; and
// that zooming in shows them one by one.
void MergedLines(const GanttInputs& in, const GanttIndex& index, const MergedRun& run, std::vector<std::string>& out) {
  const Trace& t = *in.trace;
  const UiText& ui = *in.ui;
  auto lane = static_cast<size_t>(run.lane);
  bool host = index.lanes[lane].kind == LaneKind::kHost;
  enum Class { kSyncs, kLaunches, kCopies, kAllocs, kOther, kKernels, kMemsets, kCollectives, kMarkers, kClasses };
  static const char* const kKeys[kClasses] = {"bar.syncs", "bar.launches", "bar.copies", "bar.allocs", "bar.other",
                                              "bar.kernels", "bar.memsets", "bar.collectives", "bar.markers"};
  size_t count[kClasses] = {};
  TimeNs time[kClasses] = {};
  for (size_t i = run.first; i < run.end; ++i) {
    auto op = static_cast<size_t>(index.lane_ops[lane][i]);
    const OpRecord& r = t.ops[op];
    Class c = kOther;
    switch (t.scenario.ops[op].kind) {
      case OpKind::kSyncDevice: case OpKind::kSyncStream: case OpKind::kSyncEvent: c = kSyncs; break;
      case OpKind::kKernel: case OpKind::kGraphLaunch: c = host ? kLaunches : kKernels; break;
      case OpKind::kMemcpy: case OpKind::kPeerCopy: c = kCopies; break;
      case OpKind::kMemset: c = host ? kLaunches : kMemsets; break;
      case OpKind::kCollective: c = host ? kLaunches : kCollectives; break;
      case OpKind::kMalloc: case OpKind::kFree: case OpKind::kMallocHost: c = kAllocs; break;
      case OpKind::kRecord: case OpKind::kWaitEvent: case OpKind::kWaitStream: c = host ? kLaunches : kMarkers; break;
      default: break;
    }
    ++count[c];
    time[c] += host ? r.ret - r.submit : r.end - r.start;
  }
  std::string list;
  for (int c = 0; c < kClasses; ++c)
    if (count[c] > 0)
      list += (list.empty() ? "" : ", ") + ui.Fill(kKeys[c], {{"n", std::to_string(count[c])}, {"time", FormatDuration(time[c])}});
  TimeNs from = index.lane_starts[lane][run.first], to = index.lane_ends[lane][run.end - 1];
  TimeNs busy = index.lane_busy[lane][run.end] - index.lane_busy[lane][run.first];
  out.push_back(ui.Fill(host ? "tip.bar.calls" : "tip.bar.ops", {{"n", std::to_string(run.end - run.first)}, {"list", list}}));
  out.push_back(ui.Fill("tip.bar.busy", {{"busy", FormatDuration(busy)}, {"span", FormatDuration(to - from)},
                                          {"share", FormatPercent(to > from ? static_cast<double>(busy) / static_cast<double>(to - from) : 1.0)}}));
  out.push_back(kSeparator);
  out.push_back(ui("tip.bar.zoom"));
}

std::vector<std::string> TooltipLines(const GanttInputs& in, const GanttIndex& index, const GanttHover& hover) {
  std::vector<std::string> out;
  const Scenario& s = in.trace->scenario;
  if (hover.span) {
    SpanLines(in, index, *hover.span, out);
  } else if (hover.merged) {
    MergedLines(in, index, *hover.merged, out);
  } else if (hover.idle) {
    const IdleGap& g = *hover.idle;
    out.push_back(in.texts->Fill(std::string("idle.part.") + ToString(g.cause),
                                 {{"share", FormatDuration(g.to - g.from)},
                                  {"each", FormatDuration(in.analysis->figures.launch_interval)}}));
    if (g.call >= 0) out.push_back(DisplayName(s, g.call));
    // While the GPU waited for the host: where the thread that submitted next was then.
    if (g.next >= 0 && (g.cause == IdleCause::kHostWork || g.cause == IdleCause::kLaunchBound))
      HostPlaceLines(in, index, s.ops[g.next].thread, hover.at, out, g.cause == IdleCause::kHostWork);
  } else if (hover.range) {
    // A range: its name and times, then the ranges around it, outermost first.
    const HostRange& r = *hover.range;
    const UiText& ui = *in.ui;
    out.push_back(r.name);
    out.push_back(std::string(ui("start")) + " " + FormatTick(r.begin - index.begin, 1000) + "  " + ui("end") + " " +
                  FormatTick(r.end - index.begin, 1000) + "  " + ui("duration") + " " + FormatDuration(r.end - r.begin));
    if (index.ranges) {
      std::vector<const HostRange*> around;  // innermost first
      for (const HostRange* e : index.ranges->Enclosing(r.thread, r.begin))
        if (e != &r && e->begin <= r.begin && e->end >= r.end) around.push_back(e);
      constexpr size_t kShown = 6;
      std::string chain = around.size() > kShown ? "... > " : "";
      for (size_t i = std::min(around.size(), kShown); i-- > 0;) chain += around[i]->name + (i ? " > " : "");
      if (!around.empty()) out.push_back(std::string(ui("inside")) + ": " + chain);
    }
  } else if (hover.host_thread >= 0) {
    // An empty stretch of a host lane says something only where the trace has ranges, or the
    // stack of the call that ended it.
    HostPlaceLines(in, index, hover.host_thread, hover.at, out, true);
    if (!out.empty()) out.erase(out.begin());  // no separator before the only line
  }
  return out;
}

}  // namespace

std::string DrawGanttTooltip(const GanttInputs& in, const GanttIndex& index, const GanttHover& hover) {
  std::vector<std::string> lines = TooltipLines(in, index, hover);
  if (lines.empty()) return "";
  std::string text;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
  for (const std::string& line : lines) {
    if (line == kSeparator) {
      ImGui::Separator();
    } else {
      ImGui::TextUnformatted(line.c_str());
      text += (text.empty() ? "" : "\n") + line;
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
  return text;
}

}  // namespace streamlab
