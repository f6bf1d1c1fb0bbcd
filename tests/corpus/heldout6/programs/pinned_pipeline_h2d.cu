// A chunked upload -> compute -> download pipeline done right, and bound by the host link.
//
// 256 MiB of floats live in pinned host memory (cudaMallocHost). Each iteration (30 timed, after
// one warm-up) pushes them to the GPU in 8 chunks of 32 MiB, transforms each chunk with a light
// kernel, and brings the results back into a second pinned buffer, on three non-blocking streams:
//   up:      cudaMemcpyAsync host -> device of chunk c (line 69), then event in_ready[c] (line 70)
//   compute: cudaStreamWaitEvent(in_ready[c]) (line 71), scale_shift<<<528, 256>>> on chunk c
//            (line 72), then event out_ready[c] (line 73)
//   down:    cudaStreamWaitEvent(out_ready[c]) (line 74), cudaMemcpyAsync device -> host of chunk c
//            (line 75)
// and ends with cudaStreamSynchronize(down) (line 77), which covers everything: the last download
// waits for the last kernel, which waits for the last upload. Every buffer is ordered: a chunk is
// written by its upload before the kernel reads it (event), the kernel writes its output before the
// download reads it (event), the host reads the results only after the synchronize, and the next
// iteration rewrites the device buffers only after that synchronize too. The uploads run one after
// another on the one host-to-device copy engine (~268 MB at ~50-55 GB/s, ~5 ms); each kernel is
// ~20 us of memory traffic; the downloads overlap the uploads on the other copy engine, except the
// last chunk's. Prints the median iteration time and "Test passed" when the results are right.
#include <algorithm>
#include <chrono>
#include <cmath>
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

__global__ void scale_shift(const float4 *in, float4 *out, size_t n4, float a, float b) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = in[i];
        v.x = v.x * a + b; v.y = v.y * a + b; v.z = v.z * a + b; v.w = v.w * a + b;
        out[i] = v;
    }
}

int main() {
    const size_t total = size_t(64) << 20;             // 64 Mi floats = 256 MiB
    const int chunks = 8, steps = 30;
    const size_t per = total / chunks, bytes = per * sizeof(float);
    const float a = 0.5f, b = 3.0f;
    float *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMallocHost(&h_in, total * sizeof(float)));   // pinned: copies are real DMA, async
    CHECK(cudaMallocHost(&h_out, total * sizeof(float)));
    CHECK(cudaMalloc(&d_in, total * sizeof(float)));
    CHECK(cudaMalloc(&d_out, total * sizeof(float)));
    for (size_t i = 0; i < total; ++i) h_in[i] = float(i % 1000) * 0.25f;
    cudaStream_t up, compute, down;
    CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    cudaEvent_t in_ready[chunks], out_ready[chunks];
    for (int c = 0; c < chunks; ++c) {
        CHECK(cudaEventCreateWithFlags(&in_ready[c], cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&out_ready[c], cudaEventDisableTiming));
    }
    std::vector<double> times;
    for (int step = 0; step <= steps; ++step) {            // step 0 is a warm-up (module load)
        auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < chunks; ++c) {
            const size_t off = size_t(c) * per;
            CHECK(cudaMemcpyAsync(d_in + off, h_in + off, bytes, cudaMemcpyHostToDevice, up));
            CHECK(cudaEventRecord(in_ready[c], up));
            CHECK(cudaStreamWaitEvent(compute, in_ready[c], 0));
            scale_shift<<<528, 256, 0, compute>>>((const float4 *)(d_in + off), (float4 *)(d_out + off), per / 4, a, b);
            CHECK(cudaEventRecord(out_ready[c], compute));
            CHECK(cudaStreamWaitEvent(down, out_ready[c], 0));
            CHECK(cudaMemcpyAsync(h_out + off, d_out + off, bytes, cudaMemcpyDeviceToHost, down));
        }
        CHECK(cudaStreamSynchronize(down));
        CHECK(cudaGetLastError());
        auto t1 = std::chrono::steady_clock::now();
        if (step > 0) times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    size_t bad = 0;
    for (size_t i = 0; i < total; i += 4099) {
        const float want = (float(i % 1000) * 0.25f) * a + b;
        if (std::fabs(h_out[i] - want) > 1e-3f * std::fabs(want) + 1e-3f) ++bad;
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    const double gbps = 2.0 * total * sizeof(float) / (median * 1e-3) / 1e9;
    std::printf("pinned_pipeline_h2d: %zu steps timed; median step %.3f ms (steps 1..%d)\n", times.size(), median, steps);
    std::printf("moved %.1f MB each way per step, %.1f GB/s both ways together; %zu wrong values\n",
                total * sizeof(float) / 1e6, gbps, bad);
    std::printf("%s\n", bad == 0 ? "Test passed" : "Test FAILED");
    for (int c = 0; c < chunks; ++c) {
        CHECK(cudaEventDestroy(in_ready[c]));
        CHECK(cudaEventDestroy(out_ready[c]));
    }
    CHECK(cudaStreamDestroy(up));
    CHECK(cudaStreamDestroy(compute));
    CHECK(cudaStreamDestroy(down));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return bad == 0 ? 0 : 1;
}
