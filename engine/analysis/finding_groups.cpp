// Grouping findings by pattern and the group's header sentences.
#include "engine/analysis/finding_groups.h"

#include <algorithm>
#include <limits>
#include <map>

#include "engine/util/format.h"

namespace streamlab {

namespace {

// The time in which at least one member was waiting (or blocked). Ops queued behind each
// other wait at once: summed, 6 689 waits on a 1.2 s trace came to 831 s.
TimeNs WallTime(const Trace& t, const Analysis& a, const FindingGroup& g) {
  std::vector<std::pair<TimeNs, TimeNs>> spans;
  for (int m : g.members) {
    const Finding& f = a.findings[m];
    if (f.op < 0 || f.op >= static_cast<int>(t.ops.size())) continue;
    // A start delay's wait ends when the op starts; a host-late one's, when the blocking call
    // returned; a host block's, when its own call returned.
    TimeNs end = t.ops[f.op].start;
    if (f.kind == FindingKind::kHostBlock) end = t.ops[f.op].ret;
    if (f.cause == Cause::kHostLate && !f.because.empty()) end = t.ops[f.because.front()].ret;
    spans.push_back({end - f.amount, end});
  }
  std::sort(spans.begin(), spans.end());
  TimeNs total = 0, reached = std::numeric_limits<TimeNs>::min();
  for (const auto& [from, to] : spans) {
    TimeNs begin = std::max(from, reached);
    if (to > begin) total += to - begin;
    reached = std::max(reached, to);
  }
  return total;
}

bool SameSite(const ProgramSite& a, const ProgramSite& b) {
  // A recording's Python stack gives the call's line: two lines are two sites.
  bool same_line = a.exact_line == b.exact_line && (!a.exact_line || a.line == b.line);
  return same_line && a.file == b.file && a.function == b.function && a.caller_file == b.caller_file &&
         a.caller_function == b.caller_function && a.via_file == b.via_file && a.via_function == b.via_function &&
         a.inner_file == b.inner_file && a.inner_function == b.inner_function && a.caller_via_file == b.caller_via_file &&
         a.caller_via_function == b.caller_via_function && a.ranges == b.ranges;
}

// The site shared by the most members (a few distinct sites are usual: one loop's lines).
void CommonSite(const Analysis& a, FindingGroup& g) {
  std::vector<std::pair<const ProgramSite*, int>> counts;
  for (int m : g.members) {
    const ProgramSite& site = a.findings[m].site;
    if (site.empty()) continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return SameSite(*c.first, site); });
    if (it != counts.end()) ++it->second;
    else if (counts.size() < 64) counts.push_back({&site, 1});
  }
  auto best = std::max_element(counts.begin(), counts.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  if (best == counts.end()) return;
  g.site = *best->first;
  g.at_site = best->second;
}

}  // namespace

std::vector<FindingGroup> GroupFindings(const Trace& t, const Analysis& a, bool with_prompt) {
  std::vector<FindingGroup> groups;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < a.findings.size(); ++i) {
    const Finding& f = a.findings[i];
    if (!with_prompt && f.kind == FindingKind::kStartDelay && f.cause == Cause::kPrompt) continue;
    std::string pattern = ToString(f.kind);
    if (f.kind == FindingKind::kStartDelay) pattern += std::string("/") + ToString(f.cause);
    if (f.kind == FindingKind::kHostBlock) pattern += std::string("/") + ToString(t.scenario.ops[f.op].kind);
    if (f.kind == FindingKind::kGpuIdle) pattern += std::string("/") + ToString(f.idle);
    if (WaitsRecordIsUnknown(t, f)) pattern += "/record_unknown";
    // Severity is part of the pattern: a warning is never folded under an info header.
    pattern += std::string("/") + ToString(f.severity);
    auto [it, fresh] = index.emplace(pattern, groups.size());
    if (fresh) {
      FindingGroup g;
      g.kind = f.kind;
      g.severity = f.severity;
      g.pattern = pattern;
      groups.push_back(g);
    }
    FindingGroup& g = groups[it->second];
    g.members.push_back(static_cast<int>(i));
    g.total += f.amount;
  }
  for (FindingGroup& g : groups) {
    if (g.kind == FindingKind::kStartDelay || g.kind == FindingKind::kHostBlock) g.total = WallTime(t, a, g);
    CommonSite(a, g);
  }
  // Largest first; a group short enough to list whole keeps the analyzer's order (op order).
  for (FindingGroup& g : groups)
    if (g.members.size() > kGroupShown)
      std::stable_sort(g.members.begin(), g.members.end(),
                       [&](int x, int y) { return a.findings[x].amount > a.findings[y].amount; });
  return groups;
}

std::string RenderGroupHeader(const FindingTexts& texts, const FindingGroup& g) {
  std::string key = std::string("group.") + ToString(g.kind);
  // The pattern's middle part: the start delay's cause, or the host call's kind.
  size_t slash = g.pattern.find('/');
  std::string middle = g.pattern.substr(slash + 1, g.pattern.find('/', slash + 1) - slash - 1);
  std::string cause = g.kind == FindingKind::kStartDelay ? texts.Get("cause." + middle) : "";
  // "started late because of unknown" reads badly: the unexplained group has its own sentence.
  if (g.kind == FindingKind::kStartDelay && middle == ToString(Cause::kUnexplained)) key = "group.start_delay_unexplained";
  if (g.kind == FindingKind::kWaitCapturedNothing && middle == "record_unknown") key = "group.wait_record_unknown";
  return texts.Fill(key, {{"n", std::to_string(g.members.size())},
                          {"total", FormatDuration(g.total)},
                          {"cause", cause},
                          {"call", g.kind == FindingKind::kHostBlock ? middle : ""},
                          {"shown", std::to_string(kGroupShown)}});
}

std::string RenderGroupSite(const FindingTexts& texts, const FindingGroup& g) {
  if (g.at_site <= 0 || static_cast<size_t>(g.at_site) * 2 < g.members.size()) return "";
  bool all = static_cast<size_t>(g.at_site) == g.members.size();
  return texts.Fill(all ? "group.site_all" : "group.site_most", {{"n", std::to_string(g.at_site)},
                                                                  {"of", std::to_string(g.members.size())},
                                                                  {"site", texts.RenderSite(g.site, true)}});
}

std::string RenderGroupMore(const FindingTexts& texts, const FindingGroup& g) {
  return texts.Fill("group.more", {{"n", std::to_string(g.members.size() - std::min(g.members.size(), kGroupShown))}});
}

}  // namespace streamlab
