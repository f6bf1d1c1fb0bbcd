// Findings grouped by pattern, so a run of 100 000 ops reads as a few lines: one group per
// kind of finding and cause (a start delay's cause, a host block's call kind), with its
// members largest first, and a header sentence when a group is too long to list whole.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"

namespace streamlab {

struct FindingGroup {
  FindingKind kind = FindingKind::kStartDelay;
  Severity severity = Severity::kInfo;
  std::string pattern;       // e.g. "start_delay/event_wait", "host_block/sync_device"
  std::vector<int> members;  // indices into Analysis::findings, largest amount first
  // Sum of the members' amounts; for start delays and host blocks, the time in which at
  // least one member waited (their waits overlap, so a sum would overstate it).
  TimeNs total = 0;
  // The site most of its members were made at (program_sites.h), and how many were.
  ProgramSite site;
  int at_site = 0;
};

// Groups in order of their first finding. Prompt starts (launch latency only) are left out
// unless `with_prompt`.
std::vector<FindingGroup> GroupFindings(const Trace& trace, const Analysis& analysis, bool with_prompt);

// A group of more than this many findings is shown as a header and its largest members.
constexpr size_t kGroupShown = 3;

// "12 ops started late because of an event wait, 3.40 ms in all; the three longest:".
std::string RenderGroupHeader(const FindingTexts& texts, const FindingGroup& group);
// "All 21 were made in step (train.py), inside aten::item.", when one place made at least
// half of the group's members; "" otherwise.
std::string RenderGroupSite(const FindingTexts& texts, const FindingGroup& group);
// "... and 9 more like these."
std::string RenderGroupMore(const FindingTexts& texts, const FindingGroup& group);

}  // namespace streamlab
