// Text Gantt rendering. Letters mark GPU work ('.' = queued, ready but not started),
// '#' = host blocked in a call, '=' = host computing, '|' = a short API call.
#include "engine/trace/text_gantt.h"

#include <algorithm>
#include <sstream>

#include "engine/util/format.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

constexpr size_t kLabelWidth = 18;

char SymbolFor(int n) {
  static const char kSymbols[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return kSymbols[n % (sizeof(kSymbols) - 1)];
}

std::string Fit(const std::string& text, size_t width) {
  if (text.size() <= width) return text + std::string(width - text.size(), ' ');
  return text.substr(0, width - 1) + "~";
}

std::string FitLine(const std::string& text, int width) {
  std::string fitted = Fit(text, static_cast<size_t>(std::max(width, 2)));
  while (!fitted.empty() && fitted.back() == ' ') fitted.pop_back();
  return fitted;
}

}  // namespace

std::string RenderTextGantt(const Trace& t, int width) {
  const Scenario& s = t.scenario;
  std::vector<Lane> lanes = LanesOf(s);
  int bar = std::max(20, width - static_cast<int>(kLabelWidth) - 2);
  TimeNs begin = TraceBegin(t), end = TraceEnd(t);
  TimeNs span = std::max<TimeNs>(1, end - begin);
  auto col = [&](TimeNs time) {  // in double: a recording's times can be near 2^63 ns apart
    double at = static_cast<double>(time - begin) / static_cast<double>(span) * bar;
    return std::clamp(static_cast<int>(std::clamp(at, 0.0, static_cast<double>(bar - 1))), 0, bar - 1);
  };
  std::vector<std::string> rows(lanes.size(), std::string(bar, ' '));
  std::ostringstream legend;
  int symbols = 0;

  for (size_t i = 0; i < t.ops.size(); ++i) {
    const OpRecord& r = t.ops[i];
    const Op& op = s.ops[i];
    // Host lane.
    TimeNs host_time = r.ret - r.submit;
    bool blocking = host_time > span / bar;
    char host_mark = op.kind == OpKind::kHostWork ? '=' : (blocking ? '#' : '|');
    std::string& host_row = rows[HostLaneOf(op)];
    for (int c = col(r.submit); c <= col(r.ret) && op.graph < 0; ++c)
      if (host_row[c] == ' ' || host_mark != '|') host_row[c] = host_mark;
    if (!r.gpu) {
      if (blocking && op.kind != OpKind::kHostWork)
        legend << "  #  host blocked " << FormatDuration(host_time) << " in "
               << DisplayName(s, static_cast<int>(i)) << "\n";
      continue;
    }
    std::string& row = rows[GpuLaneOf(lanes, op)];
    if (r.end == r.start) {  // record / wait marker
      char& cell = row[col(r.start)];
      if (cell == ' ') cell = ':';
      continue;
    }
    char sym = SymbolFor(symbols++);
    TimeNs queued = QueuedTime(t, r);
    for (int c = col(r.start - queued); c < col(r.start); ++c)
      if (row[c] == ' ') row[c] = '.';
    for (int c = col(r.start); c <= col(r.end - 1); ++c) row[c] = sym;
    legend << "  " << sym << "  " << Fit(DisplayName(s, static_cast<int>(i)), 16) << " "
           << Fit(s.streams[op.stream].name, 10) << " " << FormatDuration(r.start - begin) << " -> "
           << FormatDuration(r.end - begin);
    if (queued) legend << "  (queued " << FormatDuration(queued) << ")";
    // (A collective's last part holds ncclGroupEnd, which launches every rank: the '#' on
    // the host row shows it; the line would not fit 80 columns with both.)
    if (blocking && !(queued && op.kind == OpKind::kCollective)) legend << "  host blocked " << FormatDuration(host_time);
    legend << "\n";
  }

  std::ostringstream out;
  std::string title = t.lab.empty() ? s.name : t.lab;
  if (!t.variant.empty()) title += " [" + t.variant + "]";
  title += "  total " + FormatDuration(span);
  out << FitLine(title, width) << "\n";
  std::string source = t.backend + ": " + t.device_name;
  if (t.clock_error > 0) source += ", clock error +/-" + FormatDuration(t.clock_error);
  out << FitLine(source, width) << "\n";
  // Time axis: four ticks.
  std::string axis(bar, ' ');
  std::string ticks(bar, '-');
  for (int k = 0; k < 4; ++k) {
    int c = k * bar / 4;
    ticks[c] = '+';
    // In double: spans near the top of TimeNs (malformed inputs) would overflow span * k.
    std::string label = FormatDuration(static_cast<TimeNs>(static_cast<double>(span) * k / 4));
    for (size_t j = 0; j < label.size() && c + j < axis.size(); ++j) axis[c + j] = label[j];
  }
  out << std::string(kLabelWidth, ' ') << " " << axis << "\n";
  out << std::string(kLabelWidth, ' ') << " " << ticks << "\n";
  for (size_t i = 0; i < lanes.size(); ++i) {
    std::string label = lanes[i].name;
    if (lanes[i].kind == LaneKind::kStream && s.device_count > 1)
      label = "g" + std::to_string(lanes[i].device) + ":" + label;
    out << Fit(label, kLabelWidth) << "|" << rows[i] << "|\n";
  }
  out << "legend: A..Z = GPU op (below), . = queued (ready, not started), : = record/wait,\n"
         "        # = host blocked, = = host work, | = API call\n";
  out << legend.str();
  return out.str();
}

}  // namespace streamlab
