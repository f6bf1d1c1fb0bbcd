// Finding a program's steps (program_steps.h). Without ranges: the GPU ops in submission
// order become symbols (kind and name); the step's length is the smallest period P with which
// the second half of that sequence repeats (op i is op i+P for at least 80 % of it), tried
// from the spacings of rare symbols; a symbol that comes once per period marks where each step
// begins (the one that follows the longest host gap: the loop's top, where the host waited or
// loaded data); and an occurrence counts as a step only where what follows it holds most of a
// steady step's ops (model set-up before the loop may launch the same kernel once).
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
    std::string key = std::to_string(static_cast<int>(op.kind)) + ":" + op.name +
                      (op.kind == OpKind::kKernel ? "" : ":" + std::to_string(op.bytes));
    auto [it, fresh] = id.emplace(key, static_cast<int>(id.size()));
    w.symbols.push_back(it->second);
  }
  w.distinct = static_cast<int>(id.size());
  return w;
}

// The share of the sequence's second half that repeats with period p.
double Periodicity(const std::vector<int>& seq, size_t p) {
  size_t from = seq.size() / 2;
  if (p == 0 || from + p >= seq.size()) return 0;
  size_t same = 0, n = seq.size() - p - from;
  for (size_t i = from; i + p < seq.size(); ++i) same += seq[i] == seq[i + p];
  return static_cast<double>(same) / static_cast<double>(n);
}

// The periods with which the second half repeats (op i is op i+P for at least 80 % of it),
// smallest first, tried from the spacings of the rarest symbols that come at least three times.
std::vector<size_t> CandidatePeriods(const WorkSequence& w) {
  std::vector<std::vector<size_t>> at(w.distinct);
  for (size_t i = 0; i < w.symbols.size(); ++i) at[w.symbols[i]].push_back(i);
  std::vector<int> rare;
  for (int sym = 0; sym < w.distinct; ++sym)
    if (at[sym].size() >= 3) rare.push_back(sym);
  std::sort(rare.begin(), rare.end(), [&](int a, int b) { return at[a].size() < at[b].size(); });
  if (rare.size() > 12) rare.resize(12);
  std::vector<size_t> tried;
  for (int sym : rare) {
    const std::vector<size_t>& p = at[sym];
    for (size_t k = 1; k <= 8 && k < p.size(); ++k) {
      std::map<size_t, int> spacing;
      for (size_t j = p.size() / 2; j + k < p.size(); ++j) ++spacing[p[j + k] - p[j]];
      if (spacing.empty()) continue;
      tried.push_back(std::max_element(spacing.begin(), spacing.end(), [](const auto& a, const auto& b) {
                        return a.second < b.second;
                      })->first);
    }
  }
  std::sort(tried.begin(), tried.end());
  tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
  std::erase_if(tried, [&](size_t p) { return p * 3 > w.symbols.size() || Periodicity(w.symbols, p) < 0.8; });
  return tried;
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

std::vector<ProgramStep> StepsFromRepeats(const Trace& t, const WorkSequence& w, size_t period) {
  const size_t n = w.symbols.size();
  // The steady step's ops: the last full period.
  std::map<int, int> steady;
  size_t tail = n - period;
  while (tail > n / 2 && w.symbols[tail] != w.symbols[tail - period]) --tail;
  for (size_t i = tail - period; i < tail; ++i) ++steady[w.symbols[i]];
  // Symbols that come once per period in the second half, by the median host gap before them.
  std::map<int, std::vector<size_t>> at;
  for (size_t i = n / 2; i < n; ++i) at[w.symbols[i]].push_back(i);
  // (A step begins with GPU work where some once-a-step work can begin it; a loop whose work is
  // one kernel over and over begins its steps at its sync.)
  int anchor = -1;
  TimeNs widest = -1;
  bool anchor_is_sync = true;
  for (const auto& [sym, list] : at) {
    if (steady[sym] != 1 || list.size() < 2) continue;
    bool sync = IsLoopSync(t.scenario.ops[w.ops[list.front()]]);
    if (sync && !anchor_is_sync) continue;
    std::vector<TimeNs> gaps;
    for (size_t i : list)
      if (i > 0) gaps.push_back(t.ops[w.ops[i]].submit - t.ops[w.ops[i - 1]].submit);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    TimeNs gap = gaps[gaps.size() / 2];
    if ((anchor_is_sync && !sync) || gap > widest) widest = gap, anchor = sym, anchor_is_sync = sync;
  }
  if (anchor < 0) return {};
  std::vector<size_t> starts;
  for (size_t i = 0; i < n; ++i)
    if (w.symbols[i] == anchor) starts.push_back(i);
  std::vector<ProgramStep> steps;
  std::vector<std::pair<size_t, size_t>> spans;  // each step's stretch of the sequence
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t to = k + 1 < starts.size() ? starts[k + 1] : std::min(n, starts[k] + period);
    // Set-up before the loop (or teardown after it) that launched the anchor's kernel once.
    if (Containment(w.symbols, starts[k], to, steady) < 0.8 || to - starts[k] > period * 3) continue;
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
  // (With fewer than four steps there is no steady half to tell warm-up from.)
  int warm = 0;
  while (split.steps.size() >= 4 && warm < static_cast<int>(split.steps.size()) / 2 &&
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
    // The smallest period whose repeats make a loop of steps: a period one kernel long repeats
    // 98 % of 64 launches of one kernel on 32 streams and a sync, but those repeats run side by
    // side; the 65 ops a round takes run one round after another.
    size_t period = 0;
    for (size_t p : w.symbols.size() >= 6 ? CandidatePeriods(w) : std::vector<size_t>{}) {
      split.steps = StepsFromRepeats(trace, w, p);
      if (split.steps.size() >= 3) {
        period = p;
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
