// Misconception detectors: waits that captured nothing, data races (two streams, one
// buffer, a writer, no happens-before), "async" copies from pageable memory, and legacy
// default stream work that serialised blocking streams.
#include <algorithm>

#include "engine/analysis/analyzer_context.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {

// The first GPU work submitted to `stream` after op `after`, or -1.
int NextWorkOn(const AnalysisContext& ctx, int stream, int after) {
  for (size_t i = after + 1; i < ctx.s.ops.size(); ++i)
    if (ctx.op(static_cast<int>(i)).stream == stream && IsGpuWork(ctx.op(static_cast<int>(i))))
      return static_cast<int>(i);
  return -1;
}

// Does anything GPU work lie behind `op` (op itself, or through its ordering edges)? A
// record or wait whose predecessors are only other empty waits captured nothing.
bool CapturesWork(const AnalysisContext& ctx, int op, std::vector<char>& seen) {
  if (op < 0) return false;
  if (IsGpuWork(ctx.op(op))) return true;
  if (seen[op]) return false;
  seen[op] = 1;
  for (const DepEdge& e : ctx.hb.deps().into[op])
    if (CapturesWork(ctx, e.from, seen)) return true;
  return false;
}

void WaitsThatCapturedNothing(const AnalysisContext& ctx, std::vector<Finding>& out) {
  const StreamDependencies& deps = ctx.hb.deps();
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    Finding f;
    f.kind = FindingKind::kWaitCapturedNothing;
    f.severity = Severity::kWarning;
    f.op = static_cast<int>(i);
    std::vector<char> seen(ctx.s.ops.size(), 0);
    if (op.kind == OpKind::kWaitEvent) {
      int record = deps.last_record_before[i];
      // Captured nothing: never recorded, or recorded where no work lay behind it.
      if (record >= 0 && CapturesWork(ctx, record, seen)) continue;
      f.marker = record;
      int producer_stream = record >= 0 ? ctx.op(record).stream : -1;
      f.other = producer_stream >= 0 ? NextWorkOn(ctx, producer_stream, record) : -1;
      // A Kineto record whose stream could not be told sits on a stream with no work: the
      // wait held nothing back, but whether that is a mistake the trace cannot say.
      if (ctx.t.backend == "kineto" && record >= 0 && f.other < 0) f.severity = Severity::kNote;
    } else if (op.kind == OpKind::kWaitStream) {
      if (CapturesWork(ctx, deps.last_on_stream_before[i], seen)) continue;
      f.other = NextWorkOn(ctx, op.other_stream, static_cast<int>(i));
    } else {
      continue;
    }
    out.push_back(f);
  }
}

void DataRaces(const AnalysisContext& ctx, std::vector<Finding>& out) {
  struct Access {
    int op;
    bool write;
  };
  std::vector<std::vector<Access>> by_buffer(ctx.s.buffers.size());
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (!IsGpuWork(op)) continue;
    // By memory, not by name: a buffer that reuses another's memory races with its users.
    for (int b : BuffersRead(op)) by_buffer[StorageOf(ctx.s, b)].push_back({static_cast<int>(i), false});
    for (int b : BuffersWritten(op)) by_buffer[StorageOf(ctx.s, b)].push_back({static_cast<int>(i), true});
  }
  for (size_t b = 0; b < by_buffer.size(); ++b) {
    const std::vector<Access>& acc = by_buffer[b];
    for (size_t x = 0; x < acc.size(); ++x) {
      for (size_t y = x + 1; y < acc.size(); ++y) {
        const Access& a = acc[x];
        const Access& c = acc[y];
        if (a.op == c.op || (!a.write && !c.write)) continue;
        if (ctx.op(a.op).stream == ctx.op(c.op).stream) continue;
        int first = std::min(a.op, c.op), second = std::max(a.op, c.op);
        if (ctx.hb.Ordered(first, second)) continue;
        Finding f;
        f.kind = FindingKind::kDataRace;
        f.severity = Severity::kWarning;
        f.op = first;
        f.other = second;
        f.marker = static_cast<int>(b);  // the memory (a buffer that owns its storage)
        f.fraction = OverlapFraction(ctx.rec(first), ctx.rec(second));
        out.push_back(f);
      }
    }
  }
}

void PageableAsyncCopies(const AnalysisContext& ctx, std::vector<Finding>& out) {
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (op.kind != OpKind::kMemcpy || !op.async) continue;
    if (ctx.s.buffers[op.src].kind != MemoryKind::kPageableHost &&
        ctx.s.buffers[op.dst].kind != MemoryKind::kPageableHost)
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
  for (size_t i = 0; i < ctx.s.ops.size(); ++i) {
    const Op& op = ctx.op(static_cast<int>(i));
    if (!IsGpuWork(op) || ctx.s.streams[op.stream].kind != StreamKind::kLegacyDefault) continue;
    Finding f;
    f.kind = FindingKind::kLegacyNextToBlocking;
    f.severity = Severity::kWarning;
    f.op = static_cast<int>(i);
    for (const DepEdge& e : deps.into[i])
      if (e.kind == EdgeKind::kLegacyBarrier) f.because.push_back(e.from);
    for (size_t later = i + 1; later < ctx.s.ops.size(); ++later)
      for (const DepEdge& e : deps.into[later])
        if (e.kind == EdgeKind::kLegacyBarrier && e.from == static_cast<int>(i))
          f.also.push_back(static_cast<int>(later));
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
  PageableAsyncCopies(ctx, out);
  LegacyNextToBlocking(ctx, out);
  WrongResults(ctx, out);
}

}  // namespace streamlab
