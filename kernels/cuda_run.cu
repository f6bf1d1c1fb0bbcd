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
  st.EnsureBuffers();
  std::vector<OpProbe> probes;
  probes.reserve(s.ops.size());
  for (const Op& op : s.ops) probes.push_back(st.MakeProbe(op));
  st.ClearCancel();
  std::vector<CalibrationSamples> samples = st.RecordCalibrationSamples();

  Trace trace;
  trace.ops.resize(s.ops.size());
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

  PassReadings readings = st.ReadPass(probes, samples);
  trace.clock_error = st.PlaceOnHostClock(probes, readings, origin, trace);
  if (st.nccl)
    trace.notes.push_back(Note("nccl", {{"version", st.nccl->Version()},
                                        {"nvls", std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "unset"}}));
  trace.scenario = s;
  FillGraphMarkerTimes(trace);
  return trace;
}

std::vector<CalibrationSamples> CudaRun::State::RecordCalibrationSamples() {
  std::vector<CalibrationSamples> samples(s.device_count);
  for (int d = 0; d < s.device_count; ++d) {
    UseDevice(d);
    CalibrationSamples& r = samples[d];
    r.ref = MakeTimingEvent();
    void* p = nullptr;
    SL_CUDA(cudaMalloc(&p, CalibrationSamples::kCount * sizeof(BlockTiming)));
    r.timing = DeviceMemory(p);
    SL_CUDA(cudaMemset(p, 0, CalibrationSamples::kCount * sizeof(BlockTiming)));
    cudaStream_t cs = calibration_streams[d].get();
    SL_CUDA(cudaEventRecord(r.ref.get(), cs));
    for (int k = 0; k < CalibrationSamples::kCount; ++k) {
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
  UseDevice(0);
  return samples;
}

// [SECTION] clocks -----------------------------------------------------------------------

PassReadings CudaRun::State::ReadPass(const std::vector<OpProbe>& probes, std::vector<CalibrationSamples>& samples) {
  size_t n = probes.size();
  PassReadings out;
  out.bounds.resize(s.device_count);
  out.blocks.resize(n);
  out.instrumented.assign(n, false);
  out.ready_e.assign(n, 0);
  out.done_e.assign(n, 0);
  for (int d = 0; d < s.device_count; ++d) {
    std::vector<BlockTiming> calib;
    OpProbe tmp;
    tmp.timing = std::move(samples[d].timing);
    tmp.blocks = CalibrationSamples::kCount;
    UseDevice(d);
    if (ReadBlocks(tmp, &calib)) {
      for (int k = 0; k < CalibrationSamples::kCount; ++k) {
        out.bounds[d].AddReady(ElapsedNs(samples[d].ref.get(), samples[d].before[k].get()), static_cast<int64_t>(calib[k].start));
        out.bounds[d].AddDone(ElapsedNs(samples[d].ref.get(), samples[d].after[k].get()), static_cast<int64_t>(calib[k].end));
      }
    }
    samples[d].timing = std::move(tmp.timing);
  }
  for (size_t i = 0; i < n; ++i) {
    const OpProbe& p = probes[i];
    if (!p.ready) {
      if (p.blocks) {
        UseDevice(p.device);
        out.instrumented[i] = ReadBlocks(p, &out.blocks[i]);  // a graph node: blocks only
      }
      continue;
    }
    UseDevice(p.device);
    out.ready_e[i] = ElapsedNs(samples[p.device].ref.get(), p.ready.get());
    out.done_e[i] = p.done ? ElapsedNs(samples[p.device].ref.get(), p.done.get()) : out.ready_e[i];
    if (p.blocks && ReadBlocks(p, &out.blocks[i])) {
      out.instrumented[i] = true;
      uint64_t first = UINT64_MAX, last = 0;
      for (const BlockTiming& b : out.blocks[i]) {
        first = std::min(first, b.start);
        last = std::max(last, b.end);
      }
      out.bounds[p.device].AddReady(out.ready_e[i], static_cast<int64_t>(first));
      if (p.done) out.bounds[p.device].AddDone(out.done_e[i], static_cast<int64_t>(last));
    }
  }
  return out;
}

TimeNs CudaRun::State::PlaceOnHostClock(const std::vector<OpProbe>& probes, const PassReadings& in, int64_t origin,
                                        Trace& trace) {
  // %globaltimer -> host clock, per device; then event time -> globaltimer -> trace time.
  std::vector<ClockOffset> host_offsets;
  TimeNs worst_error = 0;
  for (int d = 0; d < s.device_count; ++d) {
    host_offsets.push_back(CalibrateGlobalTimer(d, HostNow));
    worst_error = std::max(worst_error, in.bounds[d].Error() + host_offsets[d].error);
    trace.notes.push_back(Note("clock_alignment", {{"gpu", std::to_string(d)},
                                                   {"events", std::to_string(in.bounds[d].Error())},
                                                   {"host", std::to_string(host_offsets[d].error)}}));
  }
  current_device = -1;
  UseDevice(0);
  auto from_global = [&](int d, int64_t g) { return g - host_offsets[d].offset - origin; };
  auto from_event = [&](int d, int64_t e) { return from_global(d, e + in.bounds[d].Mid()); };

  for (size_t i = 0; i < probes.size(); ++i) {
    const OpProbe& p = probes[i];
    if (!p.ready && !in.instrumented[i]) continue;
    OpRecord& rec = trace.ops[i];
    rec.gpu = true;
    if (p.ready) {
      rec.ready = from_event(p.device, in.ready_e[i]);
      rec.start = rec.ready;
      rec.end = std::max(rec.ready, from_event(p.device, in.done_e[i]));
    } else {
      rec.ready = rec.start = std::numeric_limits<TimeNs>::max();
    }
    const OpKind kind = s.ops[i].kind;
    if (kind == OpKind::kRecord || kind == OpKind::kWaitEvent || kind == OpKind::kWaitStream)
      rec.start = rec.end;  // a marker: "ready" = stream reached it, end = it was satisfied
    if (!in.instrumented[i]) continue;
    TimeNs first = std::numeric_limits<TimeNs>::max(), last = 0;
    for (size_t b = 0; b < in.blocks[i].size(); ++b) {
      const BlockTiming& bt = in.blocks[i][b];
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
  return worst_error;
}

}  // namespace streamlab
