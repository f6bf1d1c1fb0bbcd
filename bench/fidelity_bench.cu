// Fidelity bench (GPU only): how close are the chart's edges to the truth, and what does
// the instrumentation cost? For kernels from 2 us to 10 ms and 1 to 1056 blocks it compares
//   - timing events (ready/done edges around each launch),
//   - in-kernel %globaltimer (first block start, last block end),
// against CUPTI's kernel activity records, and reports median and p95 error of each edge
// after removing each method's constant offset to CUPTI's clock. It also measures the
// cost per op of block records and of timing events, and spin-duration accuracy.
//   build/bench/fidelity_bench            (prints a table; see bench/README.md)
#include <cupti.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/cuda_raii.h"
#include "kernels/device_kernels.cuh"

using namespace streamlab;

namespace {

struct CuptiKernel {
  uint32_t correlation;
  uint64_t start, end;
};
std::vector<CuptiKernel> g_cupti;

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 16 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(record);
      g_cupti.push_back({k->correlationId, k->start, k->end});
    }
  }
  std::free(buffer);
}

#define CUPTI_OK(expr)                                                             \
  do {                                                                             \
    CUptiResult r_ = (expr);                                                       \
    if (r_ != CUPTI_SUCCESS) {                                                     \
      const char* s_ = nullptr;                                                    \
      cuptiGetResultString(r_, &s_);                                               \
      std::fprintf(stderr, "%s failed: %s\n", #expr, s_ ? s_ : "?");               \
      throw RunError("CUPTI failed");                                              \
    }                                                                              \
  } while (0)

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

double Median(const std::vector<double>& v) { return Percentile(v, 0.5); }


// Least-squares slope of x over t: the rate difference between the GPU's timer (which
// events and %globaltimer share) and CUPTI's clock, ~2 ppm.
double DriftSlope(const std::vector<double>& x, const std::vector<double>& t) {
  double n = static_cast<double>(x.size()), st = 0, sx = 0, stt = 0, stx = 0;
  double t0 = t.empty() ? 0 : t.front();
  for (size_t i = 0; i < x.size(); ++i) {
    double ti = t[i] - t0;
    st += ti;
    sx += x[i];
    stt += ti * ti;
    stx += ti * x[i];
  }
  double denom = n * stt - st * st;
  return denom != 0 ? (n * stx - st * sx) / denom : 0;
}

// |x - median(x)| after removing the clock drift: a method's edge error once its constant
// offset to CUPTI is taken out.
std::vector<double> Residuals(const std::vector<double>& x, const std::vector<double>& t, double slope) {
  std::vector<double> r;
  for (size_t i = 0; i < x.size(); ++i) r.push_back(x[i] - slope * (t[i] - t.front()));
  double m = Median(r);
  for (double& v : r) v = std::fabs(v - m);
  return r;
}

struct Launch {
  OwnedEvent ready, done;
  DeviceMemory timing;
};

void FidelityRow(cudaStream_t stream, int64_t ns, int grid, OwnedEvent& ref) {
  constexpr int kRuns = 30;
  std::vector<Launch> launches(kRuns);
  size_t cupti_before = g_cupti.size();
  for (Launch& l : launches) {
    l.ready = MakeTimingEvent();
    l.done = MakeTimingEvent();
    void* p = nullptr;
    SL_CUDA(cudaMalloc(&p, grid * sizeof(BlockTiming)));
    l.timing = DeviceMemory(p);
  }
  for (Launch& l : launches) {
    KernelArgs a;
    a.work = ns;
    a.timing = static_cast<BlockTiming*>(l.timing.get());
    SL_CUDA(cudaEventRecord(l.ready.get(), stream));
    SL_CUDA(LaunchLabKernel(a, grid, grid > 132 ? 1024 : 128, stream));
    SL_CUDA(cudaEventRecord(l.done.get(), stream));
  }
  SL_CUDA(cudaStreamSynchronize(stream));
  CUPTI_OK(cuptiActivityFlushAll(1));
  std::vector<CuptiKernel> cupti(g_cupti.begin() + cupti_before, g_cupti.end());
  std::sort(cupti.begin(), cupti.end(), [](auto& a, auto& b) { return a.start < b.start; });
  if (cupti.size() != launches.size()) {
    std::printf("  (CUPTI gave %zu records for %d launches; row skipped)\n", cupti.size(), kRuns);
    return;
  }
  std::vector<double> ev_start, ev_end, gt_start, gt_end, ev_dur, gt_dur, cu_dur, when;
  std::vector<BlockTiming> blocks(grid);
  for (int i = 0; i < kRuns; ++i) {
    float ms_ready = 0, ms_done = 0;
    SL_CUDA(cudaEventElapsedTime(&ms_ready, ref.get(), launches[i].ready.get()));
    SL_CUDA(cudaEventElapsedTime(&ms_done, ref.get(), launches[i].done.get()));
    SL_CUDA(cudaMemcpy(blocks.data(), launches[i].timing.get(), grid * sizeof(BlockTiming),
                       cudaMemcpyDeviceToHost));
    uint64_t first = UINT64_MAX, last = 0;
    for (const BlockTiming& b : blocks) {
      first = std::min(first, b.start);
      last = std::max(last, b.end);
    }
    double c0 = static_cast<double>(cupti[i].start), c1 = static_cast<double>(cupti[i].end);
    when.push_back(c0);
    ev_start.push_back(ms_ready * 1e6 - c0);
    ev_end.push_back(ms_done * 1e6 - c1);
    gt_start.push_back(static_cast<double>(first) - c0);
    gt_end.push_back(static_cast<double>(last) - c1);
    ev_dur.push_back((ms_done - ms_ready) * 1e6);
    gt_dur.push_back(static_cast<double>(last - first));
    cu_dur.push_back(c1 - c0);
  }
  double slope = DriftSlope(gt_start, when);
  auto dev = [&](const std::vector<double>& v) { return Residuals(v, when, slope); };
  std::printf("%9.0f %6d | %7.2f %7.2f %7.2f %7.2f | %7.2f %7.2f %7.2f %7.2f | %8.2f %8.2f %8.2f\n",
              ns / 1e3, grid, Median(dev(ev_start)) / 1e3, Percentile(dev(ev_start), 0.95) / 1e3,
              Median(dev(ev_end)) / 1e3, Percentile(dev(ev_end), 0.95) / 1e3,
              Median(dev(gt_start)) / 1e3, Percentile(dev(gt_start), 0.95) / 1e3,
              Median(dev(gt_end)) / 1e3, Percentile(dev(gt_end), 0.95) / 1e3, Median(cu_dur) / 1e3,
              Median(ev_dur) / 1e3, Median(gt_dur) / 1e3);
}

// GPU time of n back-to-back 2 us kernels: plain, with block records, with events around
// each. A 20 ms kernel first holds the stream while the host queues all n, so the figure is
// the GPU's cost per op, not the host's launch rate.
double StreamTime(cudaStream_t stream, int n, bool records, bool events) {
  OwnedEvent begin = MakeTimingEvent(), end = MakeTimingEvent();
  KernelArgs blocker;
  blocker.work = 20000000;
  SL_CUDA(LaunchLabKernel(blocker, 1, 32, stream));
  std::vector<OwnedEvent> evs;
  if (events)
    for (int i = 0; i < 2 * n; ++i) evs.push_back(MakeTimingEvent());
  void* p = nullptr;
  SL_CUDA(cudaMalloc(&p, sizeof(BlockTiming) * 4));
  DeviceMemory timing(p);
  SL_CUDA(cudaEventRecord(begin.get(), stream));
  for (int i = 0; i < n; ++i) {
    KernelArgs a;
    a.work = 2000;
    a.timing = records ? static_cast<BlockTiming*>(timing.get()) : nullptr;
    if (events) SL_CUDA(cudaEventRecord(evs[2 * i].get(), stream));
    SL_CUDA(LaunchLabKernel(a, 4, 128, stream));
    if (events) SL_CUDA(cudaEventRecord(evs[2 * i + 1].get(), stream));
  }
  SL_CUDA(cudaEventRecord(end.get(), stream));
  SL_CUDA(cudaStreamSynchronize(stream));
  float ms = 0;
  SL_CUDA(cudaEventElapsedTime(&ms, begin.get(), end.get()));
  return ms * 1e6;
}

void SpinAccuracy(cudaStream_t stream) {
  std::printf("\nspin accuracy (in-kernel %%globaltimer, 4 blocks, median of 10)\n");
  std::printf("%12s %14s %10s\n", "requested", "measured", "error");
  for (int64_t ns : {20000LL, 100000LL, 1000000LL, 10000000LL, 100000000LL}) {
    std::vector<double> got;
    void* p = nullptr;
    SL_CUDA(cudaMalloc(&p, 4 * sizeof(BlockTiming)));
    DeviceMemory timing(p);
    for (int i = 0; i < 10; ++i) {
      KernelArgs a;
      a.work = ns;
      a.timing = static_cast<BlockTiming*>(p);
      SL_CUDA(LaunchLabKernel(a, 4, 128, stream));
      SL_CUDA(cudaStreamSynchronize(stream));
      BlockTiming b[4];
      SL_CUDA(cudaMemcpy(b, p, sizeof b, cudaMemcpyDeviceToHost));
      uint64_t first = UINT64_MAX, last = 0;
      for (const BlockTiming& x : b) {
        first = std::min(first, x.start);
        last = std::max(last, x.end);
      }
      got.push_back(static_cast<double>(last - first));
    }
    double m = Median(got);
    std::printf("%10.0f us %12.2f us %+9.3f%%\n", ns / 1e3, m / 1e3, 100.0 * (m - ns) / ns);
  }
}

}  // namespace

int main() {
  try {
    cudaDeviceProp prop{};
    SL_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("fidelity bench on %s (%d SMs)\n", prop.name, prop.multiProcessorCount);
    CUPTI_OK(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted));
    CUPTI_OK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    cudaStream_t raw = nullptr;
    SL_CUDA(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
    OwnedStream stream(raw);
    OwnedEvent ref = MakeTimingEvent();
    SL_CUDA(cudaEventRecord(ref.get(), stream.get()));
    StreamTime(stream.get(), 50, true, true);  // warm-up: module load, clocks up
    CUPTI_OK(cuptiActivityFlushAll(1));
    g_cupti.clear();

    std::printf("\nedge error vs CUPTI kernel records, us (30 launches per row; offset and clock drift removed)\n");
    std::printf("%9s %6s | %-31s | %-31s | %-26s\n", "kernel us", "blocks", "events: start med/p95 end med/p95",
                "globaltimer: start med/p95 end med/p95", "duration: CUPTI events gt");
    for (int64_t ns : {2000LL, 20000LL, 100000LL, 1000000LL, 10000000LL})
      for (int grid : {1, 132, 1056}) FidelityRow(stream.get(), ns, grid, ref);

    constexpr int kN = 500;
    double plain = StreamTime(stream.get(), kN, false, false);
    double recorded = StreamTime(stream.get(), kN, true, false);
    double evented = StreamTime(stream.get(), kN, true, true);
    std::printf("\ncost per op, %d x 2 us kernels of 4 blocks back to back on one stream\n", kN);
    std::printf("  plain %.2f us/op; block records +%.3f us/op; timing events before+after +%.2f us/op\n",
                plain / kN / 1e3, (recorded - plain) / kN / 1e3, (evented - recorded) / kN / 1e3);
    SpinAccuracy(stream.get());
    CUPTI_OK(cuptiActivityFlushAll(1));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fidelity_bench: %s\n", e.what());
    return 4;
  }
}
