// CudaRun: executes a Scenario with the real CUDA calls and measures it.
// [SECTION] one pass: calibration samples, the ops (cuda_run_ops.cu), read-back
// [SECTION] clocks: events -> %globaltimer (bounded by each kernel's in-kernel times),
//           %globaltimer -> host (ping-pong), all onto the host's steady clock
// Setup of streams, events and buffers is in cuda_run_setup.cu.
#include "kernels/cuda_run.h"

#include <algorithm>
#include <limits>

#include "engine/trace/graph_markers.h"
#include "engine/trace/trace.h"
#include "engine/util/format.h"
#include "kernels/buffer_readback.h"
#include "kernels/clock_calibration.h"
#include "kernels/cuda_run_state.h"
#include "kernels/watchdog.h"

namespace streamlab {
namespace {

constexpr int64_t kCalibrationSpinNs = 20000;

int64_t ElapsedNs(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  SL_CUDA(cudaEventElapsedTime(&ms, from, to));
  return static_cast<int64_t>(static_cast<double>(ms) * 1e6);
}

// Bounds on the offset x in globaltimer = event_time + x, from spans measured both ways:
// the ready event fires before the first block starts, the done event after the last ends.
struct OffsetBounds {
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  void AddReady(int64_t ready_e, int64_t start_g) { hi = std::min(hi, start_g - ready_e); }
  void AddDone(int64_t done_e, int64_t end_g) { lo = std::max(lo, end_g - done_e); }
  int64_t Mid() const { return lo / 2 + hi / 2; }
  // Half the feasible window; if the bounds cross (event resolution), their disagreement.
  int64_t Error() const { return (hi >= lo ? hi - lo : lo - hi) / 2 + 500; }
};

bool ReadBlocks(const OpProbe& probe, std::vector<BlockTiming>* out) {
  out->resize(probe.blocks);
  SL_CUDA(cudaMemcpy(out->data(), probe.timing.get(), probe.blocks * sizeof(BlockTiming),
                     cudaMemcpyDeviceToHost));
  return std::all_of(out->begin(), out->end(),
                     [](const BlockTiming& b) { return b.start != 0 && b.end >= b.start; });
}

}  // namespace

CudaRun::CudaRun(const Scenario& scenario, TimeNs timeout)
    : state_(std::make_unique<State>(scenario, timeout)) {
  (void)cudaGetLastError();  // start clean of any earlier run's non-sticky error
  state_->Setup();
}

CudaRun::~CudaRun() {
  if (state_) state_->ReleaseOpAllocations();
}

Trace CudaRun::Pass() {
  State& st = *state_;
  const Scenario& s = st.s;
  size_t n = s.ops.size();
  st.EnsureBuffers();
  std::vector<OpProbe> probes;
  probes.reserve(n);
  for (const Op& op : s.ops) probes.push_back(st.MakeProbe(op));

  // Per device: a reference event, then a short instrumented spin between two events, so
  // even a run without kernels can align event time with %globaltimer.
  // Several samples, because each bounds the offset only to within its own event slack
  // (a few us); the tightest bounds over all samples are kept.
  constexpr int kCalibrationSamples = 8;
  struct DeviceRef {
    OwnedEvent ref;
    std::vector<OwnedEvent> before, after;
    DeviceMemory timing;  // kCalibrationSamples block records
  };
  std::vector<DeviceRef> refs(s.device_count);
  st.ClearCancel();
  for (int d = 0; d < s.device_count; ++d) {
    st.UseDevice(d);
    DeviceRef& r = refs[d];
    r.ref = MakeTimingEvent();
    void* p = nullptr;
    SL_CUDA(cudaMalloc(&p, kCalibrationSamples * sizeof(BlockTiming)));
    r.timing = DeviceMemory(p);
    SL_CUDA(cudaMemset(p, 0, kCalibrationSamples * sizeof(BlockTiming)));
    cudaStream_t cs = st.calibration_streams[d].get();
    SL_CUDA(cudaEventRecord(r.ref.get(), cs));
    for (int k = 0; k < kCalibrationSamples; ++k) {
      r.before.push_back(MakeTimingEvent());
      r.after.push_back(MakeTimingEvent());
      KernelArgs a;
      a.work = kCalibrationSpinNs;
      a.timing = static_cast<BlockTiming*>(p) + k;
      SL_CUDA(cudaEventRecord(r.before.back().get(), cs));
      SL_CUDA(LaunchLabKernel(a, 1, 32, cs));
      SL_CUDA(cudaEventRecord(r.after.back().get(), cs));
    }
    SL_CUDA(cudaStreamSynchronize(cs));
  }
  st.UseDevice(0);

  Trace trace;
  trace.ops.resize(n);
  st.host_device = 0;
  // A hung collective polls no cancel flag: aborting its communicators ends its kernels.
  Watchdog watchdog(std::chrono::nanoseconds(st.timeout), st.cancel, kCancelInts, [&st] {
    if (st.nccl) st.nccl->Abort();
  });
  st.CaptureGraphs(probes);
  int64_t origin = HostNow();
  st.IssueAll(probes, trace, origin);
  for (int d = 0; d < s.device_count; ++d) {
    st.UseDevice(d);
    SL_CUDA(cudaDeviceSynchronize());
  }
  if (watchdog.Stop())
    throw RunError("watchdog: the run took longer than " + FormatDuration(st.timeout) +
                   " and was cancelled (raise --timeout for longer runs)");
  trace.checks = ReadBackChecks(s, st.StoragePointers());
  st.ReleaseOpAllocations();

  // [SECTION] clocks -----------------------------------------------------------------------
  std::vector<OffsetBounds> bounds(s.device_count);
  std::vector<std::vector<BlockTiming>> blocks(n);
  std::vector<bool> instrumented(n, false);
  std::vector<int64_t> ready_e(n, 0), done_e(n, 0);
  for (int d = 0; d < s.device_count; ++d) {
    std::vector<BlockTiming> calib;
    OpProbe tmp;
    tmp.timing = std::move(refs[d].timing);
    tmp.blocks = kCalibrationSamples;
    st.UseDevice(d);
    if (ReadBlocks(tmp, &calib)) {
      for (int k = 0; k < kCalibrationSamples; ++k) {
        bounds[d].AddReady(ElapsedNs(refs[d].ref.get(), refs[d].before[k].get()), static_cast<int64_t>(calib[k].start));
        bounds[d].AddDone(ElapsedNs(refs[d].ref.get(), refs[d].after[k].get()), static_cast<int64_t>(calib[k].end));
      }
    }
    refs[d].timing = std::move(tmp.timing);
  }
  for (size_t i = 0; i < n; ++i) {
    const OpProbe& p = probes[i];
    if (!p.ready) {
      if (p.blocks) {
        st.UseDevice(p.device);
        instrumented[i] = ReadBlocks(p, &blocks[i]);  // a graph node: blocks only
      }
      continue;
    }
    st.UseDevice(p.device);
    ready_e[i] = ElapsedNs(refs[p.device].ref.get(), p.ready.get());
    done_e[i] = p.done ? ElapsedNs(refs[p.device].ref.get(), p.done.get()) : ready_e[i];
    if (p.blocks && ReadBlocks(p, &blocks[i])) {
      instrumented[i] = true;
      uint64_t first = UINT64_MAX, last = 0;
      for (const BlockTiming& b : blocks[i]) {
        first = std::min(first, b.start);
        last = std::max(last, b.end);
      }
      bounds[p.device].AddReady(ready_e[i], static_cast<int64_t>(first));
      if (p.done) bounds[p.device].AddDone(done_e[i], static_cast<int64_t>(last));
    }
  }
  // %globaltimer -> host clock, per device; then event time -> globaltimer -> trace time.
  std::vector<ClockOffset> host_offsets;
  TimeNs worst_error = 0;
  for (int d = 0; d < s.device_count; ++d) {
    host_offsets.push_back(CalibrateGlobalTimer(d, HostNow));
    worst_error = std::max(worst_error, bounds[d].Error() + host_offsets[d].error);
    trace.notes.push_back(Note("clock_alignment", {{"gpu", std::to_string(d)},
                                                   {"events", std::to_string(bounds[d].Error())},
                                                   {"host", std::to_string(host_offsets[d].error)}}));
  }
  st.current_device = -1;
  st.UseDevice(0);
  auto from_global = [&](int d, int64_t g) { return g - host_offsets[d].offset - origin; };
  auto from_event = [&](int d, int64_t e) { return from_global(d, e + bounds[d].Mid()); };

  for (size_t i = 0; i < n; ++i) {
    const OpProbe& p = probes[i];
    if (!p.ready && !instrumented[i]) continue;
    OpRecord& rec = trace.ops[i];
    rec.gpu = true;
    if (p.ready) {
      rec.ready = from_event(p.device, ready_e[i]);
      rec.start = rec.ready;
      rec.end = std::max(rec.ready, from_event(p.device, done_e[i]));
    } else {
      rec.ready = rec.start = std::numeric_limits<TimeNs>::max();
    }
    const OpKind kind = s.ops[i].kind;
    if (kind == OpKind::kRecord || kind == OpKind::kWaitEvent || kind == OpKind::kWaitStream)
      rec.start = rec.end;  // a marker: "ready" = stream reached it, end = it was satisfied
    if (instrumented[i]) {
      TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
      for (size_t b = 0; b < blocks[i].size(); ++b) {
        const BlockTiming& bt = blocks[i][b];
        BlockRecord br{static_cast<int>(b), static_cast<int>(bt.sm),
                       from_global(p.device, static_cast<int64_t>(bt.start)),
                       from_global(p.device, static_cast<int64_t>(bt.end))};
        first = std::min(first, br.start);
        last = std::max(last, br.end);
        rec.blocks.push_back(br);
      }
      rec.start = first;
      rec.end = last;
      rec.ready = std::min(rec.ready, rec.start);
    }
  }
  if (st.nccl)
    trace.notes.push_back(Note("nccl", {{"version", st.nccl->Version()},
                                        {"nvls", std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "unset"}}));
  trace.clock_error = worst_error;
  trace.scenario = s;
  FillGraphMarkerTimes(trace);
  return trace;
}

}  // namespace streamlab
