// Misconception detectors: waits that captured nothing, data races (two streams, one
// buffer, a writer, no happens-before; in a recording, one address or a copy's bytes), "async" copies from pageable memory, and legacy
// default stream work that serialised blocking streams.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "engine/analysis/analyzer_context.h"
#include "engine/analysis/library_writes.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// The first GPU work submitted to `stream` after op `after`, or -1.
int NextWorkOn(const std::vector<std::vector<int>>& work_on_stream, int stream, int after) {
  const std::vector<int>& ops = work_on_stream[stream];
  auto it = std::upper_bound(ops.begin(), ops.end(), after);
  return it == ops.end() ? -1 : *it;
}

// Does any GPU work lie behind `op` (op itself, or through its ordering edges)? A record or
// wait whose predecessors are only other empty waits captured nothing. Memoised per op
// (0 = not yet known, 1 = yes, 2 = no, 3 = being visited), so every op is looked at once.
bool CapturesWork(const AnalysisContext& ctx, int op, std::vector<char>& memo) {
  if (op < 0) return false;
  if (IsGpuWork(ctx.op(op))) return true;
  if (memo[op]) return memo[op] == 1;
  memo[op] = 3;
  bool any = false;
  for (const DepEdge& e : ctx.hb.deps().into[op])
    if ((any = CapturesWork(ctx, e.from, memo))) break;
  memo[op] = any ? 1 : 2;
  return any;
}

void WaitsThatCapturedNothing(const AnalysisContext& ctx, std::vector<Finding>& out) {
  const StreamDependencies& deps = ctx.hb.deps();
  std::vector<std::vector<int>> work_on_stream(ctx.s.streams.size());
  for (size_t i = 0; i < ctx.s.ops.size(); ++i)
    if (IsGpuWork(ctx.op(static_cast<int>(i)))) work_on_stream[ctx.op(static_cast<int>(i)).stream].push_back(static_cast<int>(i));
  std::vector<char> memo(ctx.s.ops.size(), 0);
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    Finding f;
    f.kind = FindingKind::kWaitCapturedNothing;
    f.severity = Severity::kWarning;
    f.op = static_cast<int>(i);
    if (op.kind == OpKind::kWaitEvent) {
      int record = deps.last_record_before[i];
      // Captured nothing: never recorded, or recorded where no work lay behind it.
      if (record >= 0 && CapturesWork(ctx, record, memo)) continue;
      // No record in the trace, and the trace says why it cannot know (a capture range that
      // began after the record): nothing to judge.
      if (record < 0 && !ctx.t.ops[i].inferred.empty()) continue;
      // A record whose stream's earlier work lies outside the recording: the same.
      if (record >= 0 && !ctx.t.ops[record].inferred.empty() && ctx.t.backend == "record") continue;
      f.marker = record;
      int producer_stream = record >= 0 ? ctx.op(record).stream : -1;
      f.other = producer_stream >= 0 ? NextWorkOn(work_on_stream, producer_stream, record) : -1;
      // A Kineto record whose stream could not be told sits on a stream with no work: the
      // wait held nothing back, but whether that is a mistake the trace cannot say.
      if (ctx.t.backend == "kineto" && record >= 0 && f.other < 0) f.severity = Severity::kNote;
    } else if (op.kind == OpKind::kWaitStream) {
      if (CapturesWork(ctx, deps.last_on_stream_before[i], memo)) continue;
      f.other = NextWorkOn(work_on_stream, op.other_stream, static_cast<int>(i));
    } else {
      continue;
    }
    out.push_back(f);
  }
}

// One op's use of some memory. `known`: whether it reads or writes is known (a lab's kernels
// name what they read and write; a recorded kernel's argument does not say).
struct Access {
  int op;
  bool write;
  bool known = true;
};

// How far past the nearest conflict the walk looks for a known write (see below).
constexpr int kKnownWriteReach = 256;

// The racing pairs among one memory's accesses (positions in `acc`, which is in op order).
// For each access, walk back along every other stream's earlier accesses to the nearest one
// it may conflict with and is not ordered after: that pair is the race. Earlier accesses on
// that stream are the same race again (a loop that overwrites a buffer every step would
// otherwise report steps^2 pairs), and once one is ordered before it, stream order orders
// all earlier ones too. One exception: when neither of the nearest pair is known to write (two
// kernels handed one address: a note), a known write a little further back on that stream (a
// copy or memset into it), still unordered, is a certain conflict the note would hide, so
// that pair is kept too.
std::vector<std::pair<size_t, size_t>> UnorderedConflicts(const AnalysisContext& ctx, const std::vector<Access>& acc) {
  std::map<int, std::vector<size_t>> on_stream;  // stream -> positions in acc
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t y = 0; y < acc.size(); ++y) {
    const Access& c = acc[y];
    int stream = ctx.op(c.op).stream;
    for (const auto& [other, positions] : on_stream) {
      if (other == stream) continue;
      bool found = false;  // the nearest conflict, neither side known to write
      int reach = kKnownWriteReach;
      for (size_t k = positions.size(); k-- > 0;) {
        const Access& a = acc[positions[k]];
        if (a.op == c.op) continue;
        if (ctx.hb.Ordered(a.op, c.op)) break;
        if (found) {
          if (!a.write) {
            if (--reach == 0) break;
            continue;
          }
          pairs.emplace_back(positions[k], y);
          break;
        }
        if (a.write || c.write || !a.known || !c.known) {
          pairs.emplace_back(positions[k], y);
          if (a.write || c.write) break;
          found = true;
        }
      }
    }
    on_stream[stream].push_back(y);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

Finding RaceBetween(const AnalysisContext& ctx, FindingKind kind, int a, int b) {
  Finding f;
  f.kind = kind;
  f.severity = Severity::kWarning;
  f.op = std::min(a, b);
  f.other = std::max(a, b);
  f.fraction = OverlapFraction(ctx.rec(f.op), ctx.rec(f.other));
  return f;
}

void DataRaces(const AnalysisContext& ctx, std::vector<Finding>& out) {
  // A recording pools memory by kind (it does not know which bytes a kernel touched): its
  // races are found by address (AddressRaces).
  if (ctx.s.recorded) return;
  std::vector<std::vector<Access>> by_buffer(ctx.s.buffers.size());
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (!IsGpuWork(op)) continue;
    // By memory, not by name: a buffer that reuses another's memory races with its users.
    for (int b : BuffersRead(op)) by_buffer[StorageOf(ctx.s, b)].push_back({static_cast<int>(i), false});
    for (int b : BuffersWritten(op)) by_buffer[StorageOf(ctx.s, b)].push_back({static_cast<int>(i), true});
  }
  for (size_t b = 0; b < by_buffer.size(); ++b) {
    for (const auto& [x, y] : UnorderedConflicts(ctx, by_buffer[b])) {
      Finding f = RaceBetween(ctx, FindingKind::kDataRace, by_buffer[b][x].op, by_buffer[b][y].op);
      f.marker = static_cast<int>(b);  // the memory (a buffer that owns its storage)
      out.push_back(f);
    }
  }
}

// A recorded copy's or memset's bytes: [at, end) of one end.
struct Extent {
  uint64_t at, end;
  int op;
  bool write;
};

// How op `i` used address `x` (its strongest use), or nothing if it was not handed x.
// `writes`: KnownKernelWrites(op).
std::optional<Access> UseOf(const Op& op, int i, uint64_t x, const std::vector<bool>& writes) {
  std::optional<Access> use;
  for (size_t k = 0; k < op.addresses.size(); ++k) {
    const AddressPassed& a = op.addresses[k];
    if (a.at != x) continue;
    if (!use) use = Access{i, false, true};
    bool written = a.use == AddressUse::kWrite || writes[k];
    use->write = use->write || written;
    use->known = use->known && (a.use != AddressUse::kArgument || written);
  }
  return use;
}

// A copy or memset knows how many bytes it touched, so another op handed an address inside
// them (a view into the copied tensor, a later piece of its block) touches the same memory
// however its address differs. Per copy, one race per other stream (the earliest), and per
// other op one per copy's stream, as UnorderedConflicts keeps repeated steps to one pair.
void RacesInsideCopies(const AnalysisContext& ctx, std::set<std::pair<int, int>>& reported, std::vector<Finding>& out) {
  std::vector<std::vector<Extent>> extents(ProcessCount(ctx.s));
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    bool copies = op.kind == OpKind::kMemcpy || op.kind == OpKind::kMemset || op.kind == OpKind::kPeerCopy;
    if (!copies || op.bytes == 0) continue;
    for (const AddressPassed& a : op.addresses)
      if (a.at && a.at + op.bytes > a.at)
        extents[ProcessOfThread(ctx.s, op.thread)].push_back({a.at, a.at + op.bytes, static_cast<int>(i), a.use == AddressUse::kWrite});
  }
  std::vector<std::vector<uint64_t>> reach(extents.size());  // the furthest end among extents[0..k]
  for (size_t p = 0; p < extents.size(); ++p) {
    std::sort(extents[p].begin(), extents[p].end(), [](const Extent& a, const Extent& b) { return a.at < b.at; });
    for (const Extent& e : extents[p]) reach[p].push_back(std::max(reach[p].empty() ? 0 : reach[p].back(), e.end));
  }
  std::set<std::pair<int, int>> copy_stream_done, op_stream_done;  // (copy, other stream), (op, copy's stream)
  for (size_t j = 0; j < ctx.s.ops.size(); ++j) {
    const Op& op = ctx.op(static_cast<int>(j));
    if (!IsGpuWork(op) || op.addresses.empty()) continue;
    size_t p = static_cast<size_t>(ProcessOfThread(ctx.s, op.thread));
    std::vector<bool> writes;  // read when a copy's bytes are met
    for (const AddressPassed& a : op.addresses) {
      const std::vector<Extent>& list = extents[p];
      size_t k = std::upper_bound(list.begin(), list.end(), a.at, [](uint64_t x, const Extent& e) { return x < e.at; }) -
                 list.begin();
      for (; k-- > 0 && reach[p][k] > a.at;) {
        const Extent& e = list[k];
        if (e.at == a.at || a.at >= e.end || e.op == static_cast<int>(j)) continue;  // same address: AddressRaces
        const Op& copy = ctx.op(e.op);
        if (copy.stream == op.stream || copy_stream_done.count({e.op, op.stream}) || op_stream_done.count({static_cast<int>(j), copy.stream}))
          continue;
        if (writes.empty()) writes = KnownKernelWrites(op);
        Access mine = *UseOf(op, static_cast<int>(j), a.at, writes);
        if (!e.write && !mine.write && mine.known) continue;  // both only read
        int first = std::min(e.op, static_cast<int>(j)), second = std::max(e.op, static_cast<int>(j));
        if (ctx.hb.Ordered(first, second) || !reported.insert({first, second}).second) continue;
        copy_stream_done.insert({e.op, op.stream});
        op_stream_done.insert({static_cast<int>(j), copy.stream});
        Finding f = RaceBetween(ctx, FindingKind::kAddressRace, first, second);
        f.address = a.at;
        if (!e.write && !mine.write) f.severity = Severity::kNote;
        out.push_back(f);
      }
    }
  }
}

// A recorded program: ops on different streams handed the same address (a kernel's argument,
// a copy's end, a memset's destination), not both known to only read it, with nothing
// ordering them. Inferred: an argument does not say how the kernel uses the address, and two
// different addresses may still overlap (findings_text says so).
void AddressRaces(const AnalysisContext& ctx, std::vector<Finding>& out) {
  if (!ctx.s.recorded) return;
  // Per process: the same number in two processes' address spaces is two pieces of memory
  // (a torchrun job's ranks often allocate at equal addresses).
  std::vector<std::unordered_map<uint64_t, std::vector<Access>>> by_address(ProcessCount(ctx.s));
  std::vector<std::pair<int, uint64_t>> order;  // in order of first use, so findings come out stably
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (!IsGpuWork(op)) continue;
    int process = ProcessOfThread(ctx.s, op.thread);
    std::vector<bool> writes = KnownKernelWrites(op);
    for (const AddressPassed& a : op.addresses) {
      if (a.at == 0) continue;  // a null pointer is no memory
      std::vector<Access>& list = by_address[process][a.at];
      // One op handed an address twice (as a copy's both ends) counts once, as its strongest use.
      if (!list.empty() && list.back().op == static_cast<int>(i)) continue;
      if (list.empty()) order.emplace_back(process, a.at);
      list.push_back(*UseOf(op, static_cast<int>(i), a.at, writes));
    }
  }
  std::set<std::pair<int, int>> reported;
  for (const auto& [process, address] : order) {
    const std::vector<Access>& acc = by_address[process][address];
    for (const auto& [x, y] : UnorderedConflicts(ctx, acc)) {
      Finding f = RaceBetween(ctx, FindingKind::kAddressRace, acc[x].op, acc[y].op);
      f.address = address;
      // Two kernels' arguments may both only be read (two streams reading one weight): a
      // note; a copy or memset known to write there makes it a warning.
      if (!acc[x].write && !acc[y].write) f.severity = Severity::kNote;
      reported.insert({f.op, f.other});
      out.push_back(f);
    }
  }
  RacesInsideCopies(ctx, reported, out);
}

// The next call the copy's thread made waits for the GPU (a Kineto trace whose sync names no
// stream keeps it as a plain API call of that name).
bool SyncedRightAfter(const AnalysisContext& ctx, int copy) {
  int thread = ctx.op(copy).thread;
  for (int j = copy + 1; j < static_cast<int>(ctx.s.ops.size()) && j < copy + 64; ++j) {
    const Op& next = ctx.op(j);
    if (next.thread != thread || next.graph >= 0) continue;
    if (next.kind == OpKind::kApiCall)
      return next.name.rfind("cudaStreamSynchronize", 0) == 0 || next.name.rfind("cudaDeviceSynchronize", 0) == 0 ||
             next.name.rfind("cudaEventSynchronize", 0) == 0;
    return next.kind == OpKind::kSyncStream || next.kind == OpKind::kSyncDevice || next.kind == OpKind::kSyncEvent;
  }
  return false;
}

void PageableAsyncCopies(const AnalysisContext& ctx, std::vector<Finding>& out) {
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (op.kind != OpKind::kMemcpy || !op.async) continue;
    if (ctx.s.buffers[op.src].kind != MemoryKind::kPageableHost &&
        ctx.s.buffers[op.dst].kind != MemoryKind::kPageableHost)
      continue;
    // A recorded program that waits for the copy right after it (PyTorch's .cuda() without
    // non_blocking: cudaMemcpyAsync, then a stream sync) asked for a synchronous copy: not the
    // "async" misconception. A graph's replayed copy node held no host call of its own.
    if (ctx.s.recorded && (SyncedRightAfter(ctx, static_cast<int>(i)) || HostCallTime(ctx.rec(static_cast<int>(i))) == 0))
      continue;
    Finding f;
    f.kind = FindingKind::kPageableAsyncCopy;
    f.severity = Severity::kWarning;
    f.op = static_cast<int>(i);
    f.amount = HostCallTime(ctx.rec(static_cast<int>(i)));
    out.push_back(f);
  }
}

void LegacyNextToBlocking(const AnalysisContext& ctx, std::vector<Finding>& out) {
  const StreamDependencies& deps = ctx.hb.deps();
  // Who waited behind each op through a legacy barrier (edges point backwards in op order).
  std::vector<std::vector<int>> barrier_out(ctx.s.ops.size());
  for (size_t later = 0; later < ctx.s.ops.size(); ++later)
    for (const DepEdge& e : deps.into[later])
      if (e.kind == EdgeKind::kLegacyBarrier) barrier_out[e.from].push_back(static_cast<int>(later));
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (!IsGpuWork(op) || ctx.s.streams[op.stream].kind != StreamKind::kLegacyDefault) continue;
    Finding f;
    f.kind = FindingKind::kLegacyNextToBlocking;
    f.severity = Severity::kWarning;
    f.op = static_cast<int>(i);
    for (const DepEdge& e : deps.into[i])
      if (e.kind == EdgeKind::kLegacyBarrier) f.because.push_back(e.from);
    f.also = barrier_out[i];
    if (!f.because.empty() || !f.also.empty()) out.push_back(f);
  }
}

// A checked buffer whose contents differ from program order: the race's visible damage.
// The finding points at the last op (in program order) that wrote the buffer's memory.
void WrongResults(const AnalysisContext& ctx, std::vector<Finding>& out) {
  for (size_t c = 0; c < ctx.t.checks.size(); ++c) {
    if (ctx.t.checks[c].ok) continue;
    int buffer = -1;
    for (size_t b = 0; b < ctx.s.buffers.size(); ++b)
      if (ctx.s.buffers[b].name == ctx.t.checks[c].buffer) buffer = static_cast<int>(b);
    if (buffer < 0) continue;
    Finding f;
    f.kind = FindingKind::kWrongResult;
    f.severity = Severity::kWarning;
    f.marker = static_cast<int>(c);  // the check
    for (size_t i = 0; i < ctx.s.ops.size(); ++i)
      for (int w : BuffersWritten(ctx.op(static_cast<int>(i))))
        if (StorageOf(ctx.s, w) == buffer) f.op = static_cast<int>(i);
    if (f.op >= 0) out.push_back(f);
  }
}

}  // namespace

void DetectMisconceptions(const AnalysisContext& ctx, std::vector<Finding>& out) {
  WaitsThatCapturedNothing(ctx, out);
  DataRaces(ctx, out);
  AddressRaces(ctx, out);
  PageableAsyncCopies(ctx, out);
  LegacyNextToBlocking(ctx, out);
  WrongResults(ctx, out);
}

}  // namespace streamlab
