// A frame pipeline that allocates (and frees) its page-locked staging buffers anew for every frame.
//
// 6 synthetic 3072 x 2048 float frames (24 MiB each) sit in ordinary pageable memory (a capture
// ring). For each frame (30 timed, after 2 warm-ups), the program:
//   cudaMallocHost an input and an output staging buffer, 24 MiB each (lines 67-68),
//   memcpy the frame from the ring into the input staging buffer on the CPU (line 69),
//   cudaMemcpyAsync host -> device from the staging buffer on a non-blocking stream (line 70, pinned:
//   a real asynchronous DMA), gain_gamma<<<6144, 256>>> over the 6.3 M pixels (line 71),
//   cudaMemcpyAsync device -> host into the output staging buffer (line 72, pinned),
//   cudaStreamSynchronize (line 73), reads a few result pixels on the CPU (line 74),
//   and cudaFreeHost both staging buffers (lines 76-77).
// Page-locking 48 MiB every frame (and unlocking it again) is expensive host work inside CUDA calls;
// the copies take ~0.5 ms each way at ~50 GB/s and the kernel tens of microseconds. The staging
// buffers should be allocated once, before the loop. One stream, every GPU access ordered by it and
// by the synchronize, and a buffer is freed only after the synchronize: no race.
// Prints the median frame time, the median time per frame inside cudaMallocHost, cudaFreeHost and
// the CPU memcpy, and "Test passed" when a sample of pixels matches a CPU reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t err_ = (call);                                                         \
        if (err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

using Clock = std::chrono::steady_clock;
constexpr int W = 3072, H = 2048, RING = 6;

__host__ __device__ inline float grade(float v) { return powf(fminf(fmaxf(v * 1.8f - 0.02f, 0.0f), 1.0f), 1.0f / 2.2f); }

__global__ void gain_gamma(const float *in, float *out, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        out[i] = grade(in[i]);
}

static double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main() {
    const size_t n = size_t(W) * H, bytes = n * sizeof(float);
    const int warmup = 2, steps = 30;
    std::vector<float> ring(RING * n);                                   // pageable capture ring
    for (int f = 0; f < RING; ++f)
        for (size_t i = 0; i < n; ++i) ring[f * n + i] = float((i * 2654435761u + f * 7919u) % 65521u) / 65521.0f;
    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<double> frame_ms, alloc_ms, free_ms, memcpy_ms;
    size_t bad = 0;
    double sum = 0.0;
    for (int step = 0; step < warmup + steps; ++step) {
        const float *frame = ring.data() + size_t(step % RING) * n;
        float *h_in = nullptr, *h_out = nullptr;
        auto t0 = Clock::now();
        CHECK(cudaMallocHost(&h_in, bytes));                             // page-locks 24 MiB, every frame
        CHECK(cudaMallocHost(&h_out, bytes));
        auto t1 = Clock::now(); std::memcpy(h_in, frame, bytes); auto t2 = Clock::now();
        CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream));
        gain_gamma<<<6144, 256, 0, stream>>>(d_in, d_out, n);
        CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        for (size_t i = step; i < n; i += 1000003) { sum += h_out[i]; bad += std::fabs(h_out[i] - grade(frame[i])) > 1e-5f; }
        auto t3 = Clock::now();
        CHECK(cudaFreeHost(h_in));                                       // unlocks them again
        CHECK(cudaFreeHost(h_out));
        auto t4 = Clock::now();
        if (step >= warmup) {
            frame_ms.push_back(ms(t0, t4)), alloc_ms.push_back(ms(t0, t1)), memcpy_ms.push_back(ms(t1, t2));
            free_ms.push_back(ms(t3, t4));
        }
    }
    CHECK(cudaGetLastError());
    std::printf("pinned_staging_per_frame: %zu steps timed; median step %.3f ms (steps %d..%d)\n", frame_ms.size(),
                median(frame_ms), warmup, warmup + steps - 1);
    std::printf("median per frame: cudaMallocHost x2 %.3f ms, CPU memcpy %.3f ms, cudaFreeHost x2 %.3f ms\n",
                median(alloc_ms), median(memcpy_ms), median(free_ms));
    std::printf("checksum %.4f; %zu wrong values\n%s\n", sum, bad, bad == 0 ? "Test passed" : "Test FAILED");
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return bad == 0 ? 0 : 1;
}
