// Ordering the flagged races (order_races.h): an event per pair, recorded after the first op and
// waited for before the second.
#include "engine/whatif/order_races.h"

#include <map>
#include <set>

namespace streamlab {

std::vector<RacePair> FlaggedRaces(const Trace& t, const Analysis& analysis) {
  std::set<std::pair<int, int>> seen;
  std::vector<RacePair> out;
  for (const Finding& f : analysis.findings) {
    if (f.kind != FindingKind::kDataRace && f.kind != FindingKind::kAddressRace) continue;
    if (f.op < 0 || f.other < 0) continue;
    RacePair p{f.op, f.other};
    if (t.ops[p.second].submit < t.ops[p.first].submit) std::swap(p.first, p.second);
    if (seen.insert({p.first, p.second}).second) out.push_back(p);
  }
  return out;
}

void OrderRaces(const std::vector<RacePair>& pairs, Replay& r) {
  std::vector<Op>& old = r.scenario.ops;
  std::multimap<int, Op> after, before;  // replay index -> calls made right after / before it
  for (const RacePair& p : pairs) {
    int first = r.op_of[p.first], second = r.op_of[p.second];
    if (first < 0 || second < 0 || old[first].graph >= 0 || old[second].graph >= 0) continue;
    if (old[first].stream < 0 || old[second].stream < 0 || old[first].stream == old[second].stream) continue;
    int event = static_cast<int>(r.scenario.events.size());
    r.scenario.events.push_back({"race order (what-if) " + std::to_string(event), r.scenario.streams[old[first].stream].device});
    Op record;
    record.kind = OpKind::kRecord;
    record.name = "cudaEventRecord (what-if)";
    record.stream = old[first].stream;
    record.event = event;
    record.thread = old[first].thread;
    record.host_after = r.typical_call;
    after.emplace(first, std::move(record));
    Op wait;
    wait.kind = OpKind::kWaitEvent;
    wait.name = "cudaStreamWaitEvent (what-if)";
    wait.stream = old[second].stream;
    wait.event = event;
    wait.thread = old[second].thread;
    wait.host_after = r.typical_call;
    before.emplace(second, std::move(wait));
  }
  std::vector<Op> ops;
  ops.reserve(old.size() + after.size() + before.size());
  std::vector<int> moved(old.size(), -1);
  for (size_t i = 0; i < old.size(); ++i) {
    int at = static_cast<int>(i);
    for (auto [it, end] = before.equal_range(at); it != end; ++it) ops.push_back(std::move(it->second));
    moved[i] = static_cast<int>(ops.size());
    ops.push_back(std::move(old[i]));
    for (auto [it, end] = after.equal_range(at); it != end; ++it) ops.push_back(std::move(it->second));
  }
  RenumberOps(r, std::move(ops), moved, {});
}

}  // namespace streamlab
