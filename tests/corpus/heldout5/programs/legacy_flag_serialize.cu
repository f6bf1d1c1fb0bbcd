// Four independent workers, each meant to run on its own stream at the same time, serialized by
// a one-line "bookkeeping" kernel on the legacy default stream.
//
// Each iteration (16 timed, after one warm-up) launches, for each of 4 streams made with
// cudaStreamCreate (blocking streams), first reset_flag<<<1, 32>>> on the LEGACY DEFAULT STREAM
// (stream 0; line 57) to clear that worker's flag, then worker<<<8, 256, 0, streams[s]>>> (line 58),
// a kernel of 8 blocks (8 of the H200's 132 SMs) whose threads each run a dependent chain of
// 2^19 fused multiply-adds (~1 ms). The four workers are independent and use 32 of 132 SMs
// together, so they could all run at once (~1 ms an iteration). But CUDA's legacy default stream
// synchronizes with every blocking stream: reset_flag for worker s waits for worker s-1 (already
// queued on its stream) to finish, and worker s waits for reset_flag. So the four workers run one
// after the other, ~4 ms an iteration. The iteration ends with cudaDeviceSynchronize (line 60).
// Fix: create the streams with cudaStreamNonBlocking, or launch reset_flag on streams[s]
// (or compile with --default-stream per-thread). The flags are ordered correctly (by the legacy
// stream's implicit synchronization): there is no race.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

__global__ void reset_flag(int *flag) {
    if (threadIdx.x == 0) *flag = 0;
}

__global__ void worker(float *out, int *flag, int iters, float a, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 1.0f + 1e-6f * i;
#pragma unroll 4
    for (int k = 0; k < iters; ++k) x = x * a + b;   // a dependent chain: ~4 cycles per step
    out[i] = x;
    if (i == 0) atomicAdd(flag, 1);
}

int main() {
    const int nstreams = 4, blocks = 8, threads = 256, iters = 1 << 19, steps = 16;
    cudaStream_t streams[nstreams];
    for (int s = 0; s < nstreams; ++s) CHECK(cudaStreamCreate(&streams[s]));   // blocking streams
    float *d_out = nullptr;
    int *d_flags = nullptr;
    CHECK(cudaMalloc(&d_out, sizeof(float) * nstreams * blocks * threads));
    CHECK(cudaMalloc(&d_flags, sizeof(int) * nstreams));
    std::vector<double> times;
    for (int step = 0; step <= steps; ++step) {   // step 0 is a warm-up (module load)
        auto t0 = std::chrono::steady_clock::now();
        for (int s = 0; s < nstreams; ++s) {
            reset_flag<<<1, 32>>>(d_flags + s);   // LEGACY default stream: a barrier for all streams
            worker<<<blocks, threads, 0, streams[s]>>>(d_out + s * blocks * threads, d_flags + s, iters, 0.999999f, 1e-7f);
        }
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaGetLastError());
        auto t1 = std::chrono::steady_clock::now();
        if (step > 0) times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    int flags[nstreams];
    float sample[4];
    CHECK(cudaMemcpy(flags, d_flags, sizeof(flags), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sample, d_out, sizeof(sample), cudaMemcpyDeviceToHost));
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    double median = sorted[sorted.size() / 2];
    std::printf("legacy_flag_serialize: %zu steps timed; median step %.3f ms (steps 1..%d)\n", times.size(), median, steps);
    std::printf("flags %d %d %d %d, out[0] %.6f\n", flags[0], flags[1], flags[2], flags[3], sample[0]);
    bool ok = flags[0] == 1 && flags[1] == 1 && flags[2] == 1 && flags[3] == 1;
    std::printf("%s\n", ok ? "Test passed" : "Test FAILED");
    for (int s = 0; s < nstreams; ++s) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_flags));
    return ok ? 0 : 1;
}
