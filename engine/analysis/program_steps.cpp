// Finding a program's steps (program_steps.h). Without ranges: the GPU ops in submission
// order become symbols (kind and name; a graph launch's replay is its own symbol); the loop is
// the last stretch of that sequence that repeats, period by period, with a period P (LoopOf),
// P tried from the spacings of the rarest and of the most regular symbols. Three quarters of a
// loop's ops repeat a period later, and a period whose multiple repeats clearly more exactly is
// a part of a step, not a step. A symbol that comes once per period (or, where none does, a
// symbol after the one before it) marks where each step begins (the one that follows the
// longest host gap: the loop's top, where the host waited or loaded data); an occurrence counts
// as a step only where what follows it holds most of a steady step's ops (model set-up before
// the loop may launch the same kernel once); and the steps, together, cover most of the time
// from the first to the last (a kernel repeated inside a step is not a loop of steps).
#include "engine/analysis/program_steps.h"
#include "engine/util/median.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace streamlab {
namespace {

bool IsStepWork(const Op& op) {
  return op.kind == OpKind::kKernel || op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset ||
         op.kind == OpKind::kPeerCopy || op.kind == OpKind::kCollective;
}

// A host call that waits for the GPU: a loop's sync is part of its repeating pattern, and where
// its GPU work alone repeats one kernel (64 launches of one spin kernel, then a sync, each round),
// the sync is what shows where a round ends.
bool IsLoopSync(const Op& op) {
  return op.kind == OpKind::kSyncDevice || op.kind == OpKind::kSyncStream || op.kind == OpKind::kSyncEvent;
}

struct WorkSequence {
  std::vector<int> ops;      // GPU ops (and the loop's syncs) in submission order
  std::vector<int> symbols;  // their symbols
  int distinct = 0;
};

WorkSequence SequenceOf(const Trace& t, int process) {
  const Scenario& s = t.scenario;
  WorkSequence w;
  std::vector<int> seen_graph;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (!(IsStepWork(op) && t.ops[i].gpu) && !(IsLoopSync(op) && op.graph < 0)) continue;
    if (process >= 0 && ProcessOfThread(s, op.thread) != process) continue;
    // A graph launch's replayed nodes come as one symbol: its first node.
    if (t.ops[i].graph_replay && op.graph >= 0) {
      if (std::find(seen_graph.begin(), seen_graph.end(), op.graph) != seen_graph.end()) continue;
      seen_graph.push_back(op.graph);
    }
    w.ops.push_back(static_cast<int>(i));
  }
  std::stable_sort(w.ops.begin(), w.ops.end(), [&](int a, int b) { return t.ops[a].submit < t.ops[b].submit; });
  std::unordered_map<std::string, int> id;
  for (int i : w.ops) {
    const Op& op = s.ops[i];
    // A copy is known by its size too: a batch's images and its labels are two symbols, so the
    // images' copy, once a step, can mark where a step begins.
    // A graph launch (its first node stands for it) is another host action than launching
    // that node's kernel eagerly: the eager first iteration before a capture is not a replay.
    std::string key = std::to_string(static_cast<int>(op.kind)) + ":" + op.name +
                      (op.kind == OpKind::kKernel ? "" : ":" + std::to_string(op.bytes)) +
                      (t.ops[i].graph_replay ? ":graph" : "");
    auto [it, fresh] = id.emplace(key, static_cast<int>(id.size()));
    w.symbols.push_back(it->second);
  }
  w.distinct = static_cast<int>(id.size());
  return w;
}

struct Candidate {
  size_t period = 0;
  size_t from = 0, to = 0;  // the loop's stretch of the sequence
  double exact = 0;         // the share of its ops that the op a period later repeats
  size_t length() const { return to - from; }
};

// The loop of period p: the last stretch of the sequence (three periods or more) that repeats
// with period p, period by period: op i is op i+p for at least half of each period's ops, one
// period in a row short of that allowed (a step that also logs its loss holds two ops more,
// which puts about a period's ops out of line once). Not the whole sequence's tail: set-up may
// hold more ops than the loop (a CG solver's 7 graph launches after building its matrix), a
// teardown follows it (a result's copy back, four device syncs), and a warm-up before a graph's
// capture may repeat with the same period in other kernels (an MLP's GEMM and GELU, eagerly).
Candidate LoopOf(const std::vector<int>& seq, size_t p) {
  const size_t n = seq.size();
  Candidate c{p, n, n};
  if (p == 0 || 2 * p > n) return c;
  auto good = [&](size_t from) {  // the period [from, from + p) repeats in the next
    size_t same = 0;
    for (size_t i = from; i < from + p; ++i) same += seq[i] == seq[i + p];
    return 2 * same >= p;
  };
  // Periods from the end back: the last run of good ones, broken by two bad in a row.
  size_t run_to = 0, run_from = 0, bad = 0;
  for (size_t end = n - p; end >= p; end -= p) {
    size_t from = end - p;
    if (good(from)) {
      if (run_to == 0) run_to = end + p;
      run_from = from, bad = 0;
    } else if (run_to != 0 && ++bad == 2) {
      if (run_to - run_from >= 3 * p) break;
      run_to = 0, bad = 0;  // too short to be the loop: a teardown's repeats; look further back
    }
  }
  // (Three periods or more, and six ops or more: three launches of one kernel in a row, one on
  // each of three streams, are a chain as often as a loop.)
  if (run_to == 0 || run_to - run_from < std::max<size_t>(3 * p, 6)) return c;
  c.from = run_from, c.to = run_to;
  size_t same = 0;
  for (size_t i = run_from; i + p < run_to; ++i) same += seq[i] == seq[i + p];
  c.exact = static_cast<double>(same) / static_cast<double>(run_to - run_from - p);
  // Most of a loop's ops repeat a period later: one period in four may be out of line (a step
  // that logs its loss every fourth step, or less often). A stretch whose periods each repeat
  // half their ops but no more (2 of every 4 ops, whichever way a period cuts them) is no loop.
  if (4 * same < 3 * (run_to - run_from - p)) return Candidate{p, n, n};
  return c;
}

// The commonest spacing of every k-th occurrence in the second half of a symbol's occurrences.
void SpacingsOf(const std::vector<size_t>& at, std::vector<size_t>* tried) {
  for (size_t k = 1; k <= 8 && k < at.size(); ++k) {
    std::map<size_t, int> spacing;
    for (size_t j = at.size() / 2; j + k < at.size(); ++j) ++spacing[at[j + k] - at[j]];
    if (spacing.empty()) continue;
    tried->push_back(std::max_element(spacing.begin(), spacing.end(), [](const auto& a, const auto& b) {
                       return a.second < b.second;
                     })->first);
  }
}

// The loops the sequence may end with (three periods or more), their periods tried from the
// spacings of two sets of symbols: the rarest that come at least three times in the sequence's
// second half (a once-a-step kernel), and those whose occurrences most often lie one spacing
// apart (a once-a-step kernel in a loop shorter than its set-up, whose rarest symbols are the
// set-up's weight copies).
std::vector<Candidate> CandidatePeriods(const WorkSequence& w) {
  const size_t n = w.symbols.size();
  std::vector<std::vector<size_t>> at(w.distinct);
  for (size_t i = 0; i < n; ++i) at[w.symbols[i]].push_back(i);
  std::vector<std::pair<long, int>> rare, regular;  // (occurrences late, symbol), (-score, symbol)
  for (int sym = 0; sym < w.distinct; ++sym) {
    if (at[sym].size() < 3) continue;
    long late = std::count_if(at[sym].begin(), at[sym].end(), [&](size_t i) { return 2 * i >= n; });
    if (late >= 3) rare.push_back({late, sym});
    std::map<size_t, int> spacing;
    for (size_t j = 0; j + 1 < at[sym].size(); ++j) ++spacing[at[sym][j + 1] - at[sym][j]];
    int score = 0;
    for (const auto& [d, count] : spacing) score = std::max(score, count);
    if (score >= 2) regular.push_back({-score, sym});
  }
  std::vector<size_t> tried;
  for (auto* list : {&rare, &regular}) {
    std::sort(list->begin(), list->end());
    for (size_t i = 0; i < list->size() && i < 12; ++i) SpacingsOf(at[(*list)[i].second], &tried);
  }
  std::sort(tried.begin(), tried.end());
  tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
  std::vector<Candidate> loops;
  for (size_t p : tried) {
    Candidate c = LoopOf(w.symbols, p);
    if (c.length() >= 3 * p) loops.push_back(c);
  }
  return loops;
}

// How much of one steady step's ops the stretch [from, to) of the sequence holds.
double Containment(const std::vector<int>& seq, size_t from, size_t to, const std::map<int, int>& steady) {
  std::map<int, int> here;
  for (size_t i = from; i < to && i < seq.size(); ++i) ++here[seq[i]];
  int total = 0, held = 0;
  for (const auto& [sym, n] : steady) {
    total += n;
    auto it = here.find(sym);
    held += std::min(n, it == here.end() ? 0 : it->second);
  }
  return total ? static_cast<double>(held) / total : 0;
}

// Each position's key: its symbol, or (`pairs`) its symbol after the one before it.
std::vector<int64_t> KeysOf(const WorkSequence& w, bool pairs) {
  std::vector<int64_t> keys(w.symbols.begin(), w.symbols.end());
  if (pairs)
    for (size_t i = 1; i < keys.size(); ++i) keys[i] = (w.symbols[i - 1] + 1) * int64_t{w.distinct} + w.symbols[i];
  return keys;
}

// The key that begins each step: one that comes once in the typical period ending at `tail` and
// in most periods of the loop, the one after the longest host gap (the loop's top, where the host
// waited or loaded data); GPU work before a sync (a loop of one kernel over and over begins its
// steps at its sync). -1: none.
int64_t AnchorOf(const Trace& t, const WorkSequence& w, const std::vector<int64_t>& keys, const Candidate& loop,
                 size_t tail) {
  const size_t period = loop.period;
  std::map<int64_t, int> steady;
  for (size_t i = tail - period; i < tail; ++i) ++steady[keys[i]];
  std::map<int64_t, std::vector<size_t>> at;
  for (size_t i = loop.from; i < loop.to; ++i) at[keys[i]].push_back(i);
  int64_t anchor = -1;
  TimeNs widest = -1;
  bool anchor_is_sync = true;
  for (const auto& [key, list] : at) {
    // (Once in most periods of the loop, not once in a step that also logs its loss; and not
    // more often than once a period: a kernel that the steady period holds once where a sync
    // cut it, but that comes twice in every other.)
    if (steady[key] != 1 || list.size() < 2 || 2 * list.size() * period < loop.length() ||
        4 * list.size() * period > 5 * loop.length())
      continue;
    bool sync = IsLoopSync(t.scenario.ops[w.ops[list.front()]]);
    if (sync && !anchor_is_sync) continue;
    std::vector<TimeNs> gaps;
    for (size_t i : list)
      if (i > 0) gaps.push_back(t.ops[w.ops[i]].submit - t.ops[w.ops[i - 1]].submit);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    TimeNs gap = gaps[gaps.size() / 2];
    if ((anchor_is_sync && !sync) || gap > widest) widest = gap, anchor = key, anchor_is_sync = sync;
  }
  return anchor;
}

std::vector<ProgramStep> StepsFromRepeats(const Trace& t, const WorkSequence& w, const Candidate& loop) {
  const size_t n = w.symbols.size(), period = loop.period;
  // The steady step's ops: one period from the middle of the loop, well inside it: its end may
  // hold a teardown that repeats too (a result's copy back, then four device syncs).
  std::map<int, int> steady;
  size_t tail = loop.from + (loop.length() / period / 2 + 1) * period;
  // (A typical period: one that the next repeats, 80 % of it; not the one a step that also logs
  // its loss, or a round's sync, puts out of line.)
  auto typical = [&](size_t end) {
    size_t same = 0;
    for (size_t i = end - period; i < end; ++i) same += w.symbols[i] == w.symbols[i + period];
    return same * 5 >= period * 4;
  };
  while (tail + period < loop.to && !typical(tail)) ++tail;
  for (size_t i = tail - period; i < tail; ++i) ++steady[w.symbols[i]];
  // Where each step begins: a symbol once a period; where none is (4 kernels on 4 streams, then
  // their 4 copies), a symbol after the one before it (the first kernel after a copy).
  int64_t anchor = AnchorOf(t, w, KeysOf(w, false), loop, tail);
  std::vector<int64_t> keys = KeysOf(w, anchor < 0);
  if (anchor < 0) anchor = AnchorOf(t, w, keys, loop, tail);
  if (anchor < 0) return {};
  std::vector<size_t> starts;
  for (size_t i = 0; i < n; ++i)
    if (keys[i] == anchor) starts.push_back(i);
  std::vector<ProgramStep> steps;
  std::vector<std::pair<size_t, size_t>> spans;  // each step's stretch of the sequence
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t to = k + 1 < starts.size() ? starts[k + 1] : std::min(n, starts[k] + period);
    // Set-up before the loop (or teardown after it) that launched the anchor's kernel once.
    // (The last: where steps begin inside an iteration (at its widest host gap), the last
    // iteration's tail is all that follows the last start.)
    double need = k + 1 == starts.size() ? 0.5 : 0.8;
    if (Containment(w.symbols, starts[k], to, steady) < need || to - starts[k] > period * 3) continue;
    ProgramStep step;
    step.first_op = w.ops[starts[k]];
    step.begin = t.ops[step.first_op].submit;
    for (size_t i = starts[k]; i < to; ++i) step.gpu_ops += IsStepWork(t.scenario.ops[w.ops[i]]);
    for (size_t i = starts[k]; i < to; ++i) step.end = std::max({step.end, t.ops[w.ops[i]].end, t.ops[w.ops[i]].ret});
    steps.push_back(step);
    spans.push_back({starts[k], to});
  }
  // A step lasts until the next one begins, where one follows the other.
  for (ProgramStep& s : steps) s.open_end = true;
  for (size_t k = 0; k + 1 < steps.size(); ++k) {
    if (spans[k].second != spans[k + 1].first) continue;
    steps[k].open_end = false;
    steps[k].end = steps[k + 1].begin;
  }
  // A loop's steps follow one another: together they cover most of the time from the first
  // one's begin to the last one's end. A kernel that repeats back to back in one part of a step
  // (112 launches of one optimizer kernel) and also comes scattered through the rest of it makes
  // short "steps" with most of the time between them.
  if (!steps.empty()) {
    TimeNs covered_by_steps = 0;
    for (const ProgramStep& s : steps) covered_by_steps += s.end - s.begin;
    if (2 * covered_by_steps < steps.back().end - steps.front().begin) return {};
  }
  // A program that only fans work out (32 streams given a kernel pair each, all running at once)
  // repeats without stepping: its repeats' GPU work runs side by side, and their spans, summed,
  // cover the time they run in many times over. A loop's steps run one after another on the GPU,
  // however far ahead the host queued them (a loop of graph replays); a pipelined loop's next
  // step may start beside the end of the last: at most twice over, and few neighbours at once.
  std::vector<std::pair<TimeNs, TimeNs>> gpu;  // each step's first start and last end
  TimeNs summed = 0;
  for (const auto& [from, to] : spans) {
    TimeNs first = INT64_MAX, last = 0;
    for (size_t i = from; i < to; ++i)
      if (t.ops[w.ops[i]].gpu) first = std::min(first, t.ops[w.ops[i]].start), last = std::max(last, t.ops[w.ops[i]].end);
    if (last > first) gpu.push_back({first, last}), summed += last - first;
  }
  size_t side_by_side = 0;  // neighbours (in submission order) that ran mostly at once
  for (size_t k = 0; k + 1 < gpu.size(); ++k) {
    TimeNs overlap = std::min(gpu[k].second, gpu[k + 1].second) - std::max(gpu[k].first, gpu[k + 1].first);
    TimeNs shorter = std::min(gpu[k].second - gpu[k].first, gpu[k + 1].second - gpu[k + 1].first);
    side_by_side += shorter > 0 && 2 * overlap > shorter;
  }
  if (gpu.size() > 1 && 4 * side_by_side > gpu.size() - 1) return {};
  std::sort(gpu.begin(), gpu.end());
  TimeNs covered = 0, open = 0, close = -1;
  for (const auto& [first, last] : gpu) {
    if (first > close) covered += std::max<TimeNs>(0, close - open), open = first, close = last;
    else close = std::max(close, last);
  }
  covered += std::max<TimeNs>(0, close - open);
  if (covered > 0 && summed > 2 * covered) return {};
  return steps;
}

// The program's own step ranges: ProfilerStep#N, or NVTX ranges named step, step N, ...
std::vector<ProgramStep> StepsFromRanges(const Trace& t, int process, std::string* name) {
  std::map<std::string, std::vector<const HostRange*>> by_name;
  for (const HostRange& r : t.ranges) {
    if (process >= 0 && ProcessOfThread(t.scenario, r.thread) != process) continue;
    std::string base = r.name.substr(0, r.name.find('#'));
    std::string lower = base;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (base == "ProfilerStep" || lower == "step" || lower.rfind("step ", 0) == 0 || lower == "train_step")
      by_name[base == "ProfilerStep" || lower == "step" || lower == "train_step" ? base : "step"].push_back(&r);
  }
  const std::vector<const HostRange*>* chosen = nullptr;
  for (const auto& [base, list] : by_name)
    if (list.size() >= 2 && (!chosen || list.size() > chosen->size())) chosen = &list, *name = base;
  std::vector<ProgramStep> steps;
  if (!chosen) return steps;
  for (const HostRange* r : *chosen) {
    ProgramStep step;
    step.begin = r->begin;
    step.end = r->end;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.ops[i].gpu && t.scenario.ops[i].thread == r->thread && t.ops[i].submit >= r->begin && t.ops[i].submit < r->end) {
        if (step.first_op < 0) step.first_op = static_cast<int>(i);
        ++step.gpu_ops;
      }
    steps.push_back(step);
  }
  std::sort(steps.begin(), steps.end(), [](const ProgramStep& a, const ProgramStep& b) { return a.begin < b.begin; });
  // A range far shorter than the others is not a step's work (torch.profiler's last
  // ProfilerStep opens as the loop ends).
  std::vector<TimeNs> lengths;
  for (const ProgramStep& s : steps) lengths.push_back(s.end - s.begin);
  std::nth_element(lengths.begin(), lengths.begin() + lengths.size() / 2, lengths.end());
  TimeNs typical = lengths[lengths.size() / 2];
  std::erase_if(steps, [&](const ProgramStep& s) { return (s.end - s.begin) * 4 < typical; });
  return steps;
}

// Leading steps much slower than the steady ones are warm-up (at most half the steps).
void SplitWarmup(StepSplit& split) {
  std::vector<TimeNs> later;
  for (size_t k = split.steps.size() / 2; k < split.steps.size(); ++k)
    if (!split.steps[k].open_end) later.push_back(split.steps[k].end - split.steps[k].begin);
  TimeNs typical = MedianTime(later);
  // (Of three steps, the first may be warm-up where a later one closed: a four-iteration loop
  // whose first step loads modules and the last is open.)
  int warm = 0;
  while (split.steps.size() >= 3 && !later.empty() && warm < static_cast<int>(split.steps.size()) / 2 &&
         split.steps[warm].end - split.steps[warm].begin > typical + typical / 4)
    ++warm;
  split.warmup = warm;
  std::vector<TimeNs> lengths;
  for (size_t k = warm; k < split.steps.size(); ++k) {
    split.steps[k].steady = true;
    if (!split.steps[k].open_end) lengths.push_back(split.steps[k].end - split.steps[k].begin);
  }
  split.steady = static_cast<int>(
      std::count_if(split.steps.begin(), split.steps.end(), [](const ProgramStep& s) { return s.steady; }));
  split.median = MedianTime(lengths);
  split.low = lengths.empty() ? 0 : *std::min_element(lengths.begin(), lengths.end());
  split.high = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
}

}  // namespace

StepSplit FindSteps(const Trace& trace, int process) {
  StepSplit split;
  split.run_begin = TraceBegin(trace);
  split.run_end = TraceEnd(trace);
  split.steps = StepsFromRanges(trace, process, &split.range_name);
  if (split.steps.size() >= 2) {
    split.source = StepSource::kRanges;
  } else {
    split.steps.clear();
    WorkSequence w = SequenceOf(trace, process);
    // The loop that covers most of the run, and of the periods that cover about as much (a
    // step's, twice a step's; not a layer's, whose repeats break at each step's end), the
    // smallest whose repeats make a loop of steps: a period one kernel long repeats 98 % of 64
    // launches of one kernel on 32 streams and a sync, but those repeats run side by side; the
    // 65 ops a round takes run one round after another.
    // Covering is counted in GPU ops, a graph replay's every node: the sequence holds a replay
    // as one op, and a loop of replays (a compiled model's, mode="reduce-overhead") would look
    // narrower than the eager warm-up before its capture.
    std::vector<Candidate> loops = w.symbols.size() >= 6 ? CandidatePeriods(w) : std::vector<Candidate>{};
    std::map<int, size_t> nodes_of;  // a graph launch -> its replayed ops
    for (size_t i = 0; i < trace.ops.size(); ++i)
      if (trace.ops[i].graph_replay && trace.scenario.ops[i].graph >= 0) ++nodes_of[trace.scenario.ops[i].graph];
    std::vector<size_t> ops_before(w.ops.size() + 1, 0);
    for (size_t i = 0; i < w.ops.size(); ++i) {
      const Op& op = trace.scenario.ops[w.ops[i]];
      bool replay = trace.ops[w.ops[i]].graph_replay && op.graph >= 0;
      ops_before[i + 1] = ops_before[i] + (replay ? nodes_of[op.graph] : 1);
    }
    auto covered = [&](const Candidate& c) { return ops_before[c.to] - ops_before[c.from]; };
    size_t widest = 0;
    for (const Candidate& c : loops) widest = std::max(widest, covered(c));
    std::erase_if(loops, [&](const Candidate& c) { return 2 * covered(c) < widest; });
    // A period whose multiple repeats clearly more exactly over about the same stretch is a part
    // of a step: 4 kernels on 4 streams and then their 4 copies repeat with period 2 at half of
    // their ops (and at each period's first op or second), with period 8 at all of them. (A step
    // that logs its loss every tenth step repeats less exactly at twice its period, not more.)
    std::vector<Candidate> parts;
    for (const Candidate& c : loops)
      for (const Candidate& d : loops)
        if (d.period > c.period && d.period % c.period == 0 && 10 * d.length() >= 9 * c.length() &&
            d.exact >= c.exact + 0.1) {
          parts.push_back(c);
          break;
        }
    std::erase_if(loops, [&](const Candidate& c) {
      return std::any_of(parts.begin(), parts.end(), [&](const Candidate& part) { return part.period == c.period; });
    });
    size_t period = 0;
    for (const Candidate& c : loops) {
      split.steps = StepsFromRepeats(trace, w, c);
      if (split.steps.size() >= 3) {
        period = c.period;
        break;
      }
    }
    if (period == 0) return StepSplit{StepSource::kNone, "", 0, {}, 0, 0, 0, 0, 0, split.run_begin, split.run_end};
    split.source = StepSource::kRepeating;
    split.period = static_cast<int>(period);
  }
  SplitWarmup(split);
  return split;
}

}  // namespace streamlab
