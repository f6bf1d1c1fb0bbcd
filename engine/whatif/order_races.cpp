// Ordering the flagged races (order_races.h): an event per pair, recorded after the first op and
// waited for before the second.
#include "engine/whatif/order_races.h"

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
  const std::vector<Op>& ops = r.scenario.ops;
  InsertedCalls before, after;
  for (const RacePair& p : pairs) {
    int first = r.op_of[p.first], second = r.op_of[p.second];
    if (first < 0 || second < 0 || ops[first].graph >= 0 || ops[second].graph >= 0) continue;
    if (ops[first].stream < 0 || ops[second].stream < 0 || ops[first].stream == ops[second].stream) continue;
    int event = AddedEvent(r, ops[first].stream, "race order (what-if)");
    after.emplace(first, AddedCall(OpKind::kRecord, "cudaEventRecord (what-if)", ops[first].stream, event, ops[first].thread,
                                   r.typical_call));
    before.emplace(second, AddedCall(OpKind::kWaitEvent, "cudaStreamWaitEvent (what-if)", ops[second].stream, event,
                                     ops[second].thread, r.typical_call));
  }
  InsertCalls(r, std::move(before), std::move(after));
}

}  // namespace streamlab
