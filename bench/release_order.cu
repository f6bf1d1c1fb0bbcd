// Probe: how does the GPU release streams that wait on events, when several wait on one event
// (fan-out) or one stream waits on several (fan-in)? w3-graphs/eager ran 20-28 % slower on
// H200s than the simulator, which releases every waiting stream one fixed gap after the event.
// No StreamLab instrumentation here: plain events (timing off unless `timing`), kernels that
// read %globaltimer at their start and end, 1 block each, the host far ahead of the GPU.
//   nvcc -O2 -o release_order bench/release_order.cu && ./release_order [timing]
// Prints, as medians of 21 repeats (us):
//   fanout N: each of N waiting streams' kernel start after the producer's end (N = 1..4)
//   fanin M:  the consumer's start after the last of M producers' ends (M = 1..4, the
//             producers on M streams end ~5 us apart)
//   chain:    the period of w3-graphs' step (a -> b, c on two streams -> d, 5 us kernels,
//             events between) when the GPU is the bound, 40 steps, with no timing events of
//             StreamLab's, with one before each kernel, and with one before every op and
//             one after every record and wait (as StreamLab's CUDA executor records them)
//
// 2026-11-29, H200 (driver 580.159.04), two machine starts, five processes: a waiting stream
// started 1.5-1.8 us after its event's kernel ended (3.1-3.3 us with the program's events
// timed); the 2nd to 4th stream on one event 1.5-3.6 us (4.1-6.7); one stream waiting on 1-4
// events 1.5 us (3.1-4.6). The chain's step: 23.8-25.1 us plain, 33.0-35.8 with a timing
// event before each kernel, 57.6-65.5 with StreamLab's events (docs/evidence/simulator-fidelity.md).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                  \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

__device__ unsigned long long Now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins `ns`, writing its start and end to stamps[2*slot], stamps[2*slot+1].
__global__ void Spin(unsigned long long ns, unsigned long long* stamps, int slot) {
  unsigned long long start = Now();
  while (Now() - start < ns) {
  }
  if (threadIdx.x == 0) {
    stamps[2 * slot] = start;
    stamps[2 * slot + 1] = Now();
  }
}

static double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  bool timing = argc > 1 && std::strcmp(argv[1], "timing") == 0;
  unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
  const int kStreams = 5, kRepeats = 21, kSlots = 256;
  cudaStream_t s[kStreams];
  cudaEvent_t e[kStreams];
  for (int i = 0; i < kStreams; ++i) {
    CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&e[i], flags));
  }
  unsigned long long *d_stamps, stamps[2 * kSlots];
  CHECK(cudaMalloc(&d_stamps, sizeof(stamps)));
  Spin<<<1, 128, 0, s[0]>>>(1000, d_stamps, 0);  // load the module
  CHECK(cudaDeviceSynchronize());
  auto fetch = [&] { CHECK(cudaMemcpy(stamps, d_stamps, sizeof(stamps), cudaMemcpyDeviceToHost)); };
  auto us = [](unsigned long long a, unsigned long long b) { return (static_cast<double>(a) - b) / 1e3; };

  std::printf("events: %s\n", timing ? "timing" : "timing disabled");
  for (int n = 1; n <= 4; ++n) {
    std::vector<std::vector<double>> starts(n);
    for (int r = 0; r < kRepeats; ++r) {
      Spin<<<1, 128, 0, s[0]>>>(200000, d_stamps, 0);
      CHECK(cudaEventRecord(e[0], s[0]));
      for (int k = 1; k <= n; ++k) CHECK(cudaStreamWaitEvent(s[k], e[0], 0));
      for (int k = 1; k <= n; ++k) Spin<<<1, 128, 0, s[k]>>>(5000, d_stamps, k);
      CHECK(cudaDeviceSynchronize());
      fetch();
      for (int k = 1; k <= n; ++k) starts[k - 1].push_back(us(stamps[2 * k], stamps[1]));
    }
    std::printf("fanout %d:", n);
    for (auto& v : starts) std::printf(" %.2f", Median(v));
    std::printf("\n");
  }
  for (int m = 1; m <= 4; ++m) {
    std::vector<double> after;
    for (int r = 0; r < kRepeats; ++r) {
      for (int k = 1; k <= m; ++k) {
        Spin<<<1, 128, 0, s[k]>>>(200000 + 5000 * k, d_stamps, k);
        CHECK(cudaEventRecord(e[k], s[k]));
      }
      for (int k = 1; k <= m; ++k) CHECK(cudaStreamWaitEvent(s[0], e[k], 0));
      Spin<<<1, 128, 0, s[0]>>>(5000, d_stamps, 0);
      CHECK(cudaDeviceSynchronize());
      fetch();
      unsigned long long last = 0;
      for (int k = 1; k <= m; ++k) last = std::max(last, stamps[2 * k + 1]);
      after.push_back(us(stamps[0], last));
    }
    std::printf("fanin %d: %.2f\n", m, Median(after));
  }
  // The chain again, with timing events where StreamLab's CUDA executor records them:
  // `all` = one before every op and one after every record and wait (what it did until
  // 2026-11-29), `kernels` = one before every kernel only.
  const char* modes[] = {"none", "kernels", "all"};
  std::vector<cudaEvent_t> probes(64 * 40);
  for (auto& p : probes) CHECK(cudaEventCreate(&p));
  for (const char* mode : modes) {
    bool before_kernels = std::strcmp(mode, "none") != 0, around_markers = std::strcmp(mode, "all") == 0;
    std::vector<double> periods;
    for (int r = 0; r < 5; ++r) {
      const int kSteps = 40;
      size_t next = 0;
      auto mark = [&](bool on, cudaStream_t st) {
        if (on) CHECK(cudaEventRecord(probes[next++], st));
      };
      auto kernel = [&](cudaStream_t st, int slot) {
        mark(before_kernels, st);
        Spin<<<1, 128, 0, st>>>(5000, d_stamps, slot);
      };
      auto record = [&](cudaEvent_t ev, cudaStream_t st) {
        mark(around_markers, st);
        CHECK(cudaEventRecord(ev, st));
        mark(around_markers, st);
      };
      auto wait = [&](cudaStream_t st, cudaEvent_t ev) {
        mark(around_markers, st);
        CHECK(cudaStreamWaitEvent(st, ev, 0));
        mark(around_markers, st);
      };
      Spin<<<1, 128, 0, s[0]>>>(10000000, d_stamps, kSlots - 1);  // the host gets ahead: 10 ms
      for (int step = 0; step < kSteps; ++step) {
        kernel(s[0], 4 * step);
        record(e[0], s[0]);
        wait(s[1], e[0]);
        wait(s[2], e[0]);
        kernel(s[1], 4 * step + 1);
        kernel(s[2], 4 * step + 2);
        record(e[1], s[1]);
        record(e[2], s[2]);
        wait(s[0], e[1]);
        wait(s[0], e[2]);
        kernel(s[0], 4 * step + 3);
      }
      CHECK(cudaDeviceSynchronize());
      fetch();
      std::vector<double> b_after_a, c_after_a, d_after_bc, period;
      for (int step = 5; step < kSteps; ++step) {
        const unsigned long long* x = stamps + 8 * step;  // a b c d: start, end each
        b_after_a.push_back(us(x[2], x[1]));
        c_after_a.push_back(us(x[4], x[1]));
        d_after_bc.push_back(us(x[6], std::max(x[3], x[5])));
        period.push_back(us(x[0], x[-8]));
      }
      periods.push_back(Median(period));
      std::printf("chain (timing events: %s): b %.2f c %.2f after a's end; d %.2f after the later of b, c; step %.2f\n",
                  mode, Median(b_after_a), Median(c_after_a), Median(d_after_bc), Median(period));
    }
    std::printf("chain (timing events: %s) step, median of 5: %.2f us\n", mode, Median(periods));
  }
  return 0;
}
