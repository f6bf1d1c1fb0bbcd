// Splitting interleaved RGBA frames into planes with strided 2D copies on the device.
//
// Three 1024 x 1024 RGBA float frames (16 MiB each, channels interleaved: R G B A R G B A ...) sit
// in device memory (a capture ring, filled once before the loop). For each frame (40 timed, after 3
// warm-ups) the program, on one non-blocking stream:
//   splits the frame into four 4 MiB planes with four cudaMemcpy2DAsync device-to-device copies
//   (line 68): each copies 1,048,576 "rows" of one 4-byte float, reading with a 16-byte pitch and
//   writing with a 4-byte pitch -- the copy is done row by row, 4 bytes at a time;
//   clears four channel sums (line 69) and sums each plane with channel_sums<<<264, 256>>> (line 70);
//   copies the four sums to pinned host memory (line 71) and waits for the stream (line 72).
// The strided copies move only 16 MiB a frame but in 4-byte pieces; a kernel reading float4s and
// writing four planes would do the same split in a few microseconds. One stream, and the host
// reads the sums only after the synchronize: no race.
// Prints the median frame time, and "Test passed" when the last frame's planes and sums match the
// CPU's copy of the frame.
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

using Clock = std::chrono::steady_clock;
constexpr int W = 1024, H = 1024, RING = 3;

__global__ void channel_sums(const float *planes, size_t npix, float *sums) {
    __shared__ float part[4];
    if (threadIdx.x < 4) part[threadIdx.x] = 0.0f;
    __syncthreads();
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < npix; i += size_t(gridDim.x) * blockDim.x)
        for (int c = 0; c < 4; ++c) acc[c] += planes[c * npix + i];
    for (int c = 0; c < 4; ++c) atomicAdd(&part[c], acc[c]);
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&sums[threadIdx.x], part[threadIdx.x]);
}

static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main() {
    const size_t npix = size_t(W) * H, frame_bytes = npix * 4 * sizeof(float);
    const int warmup = 3, steps = 40;
    std::vector<float> ring(RING * npix * 4);                             // the CPU's copy of the ring
    for (size_t i = 0; i < ring.size(); ++i) ring[i] = float((i * 2654435761u) % 1021u) / 1021.0f;
    float *d_ring = nullptr, *d_planes = nullptr, *d_sums = nullptr, *h_sums = nullptr;
    CHECK(cudaMalloc(&d_ring, RING * frame_bytes));
    CHECK(cudaMalloc(&d_planes, frame_bytes));                            // 4 planes of npix floats
    CHECK(cudaMalloc(&d_sums, 4 * sizeof(float)));
    CHECK(cudaMallocHost(&h_sums, 4 * sizeof(float)));
    CHECK(cudaMemcpy(d_ring, ring.data(), RING * frame_bytes, cudaMemcpyHostToDevice));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<double> frame_ms;
    double total = 0.0;
    for (int step = 0; step < warmup + steps; ++step) {
        const float *frame = d_ring + size_t(step % RING) * npix * 4;
        auto t0 = Clock::now();
        for (int c = 0; c < 4; ++c) CHECK(cudaMemcpy2DAsync(d_planes + c * npix, sizeof(float), frame + c, 4 * sizeof(float), sizeof(float), npix, cudaMemcpyDeviceToDevice, stream));
        CHECK(cudaMemsetAsync(d_sums, 0, 4 * sizeof(float), stream));
        channel_sums<<<264, 256, 0, stream>>>(d_planes, npix, d_sums);
        CHECK(cudaMemcpyAsync(h_sums, d_sums, 4 * sizeof(float), cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        total += h_sums[0] + h_sums[1] + h_sums[2] + h_sums[3];
        auto t1 = Clock::now();
        if (step >= warmup) frame_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    CHECK(cudaGetLastError());
    // Check the last frame: its planes against the CPU's copy, and the sums against the CPU's sums.
    const int last = (warmup + steps - 1) % RING;
    std::vector<float> planes(npix * 4);
    CHECK(cudaMemcpy(planes.data(), d_planes, frame_bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    double ref[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < npix; ++i)
        for (int c = 0; c < 4; ++c) {
            const float v = ring[(size_t(last) * npix + i) * 4 + c];
            bad += planes[c * npix + i] != v;
            ref[c] += v;
        }
    for (int c = 0; c < 4; ++c) bad += std::fabs(h_sums[c] - ref[c]) > 1e-3 * std::fabs(ref[c]) + 1.0;
    std::printf("deinterleave_memcpy2d: %zu steps timed; median step %.3f ms (steps %d..%d)\n", frame_ms.size(),
                median(frame_ms), warmup, warmup + steps - 1);
    std::printf("sum of sums %.1f; %zu wrong values\n%s\n", total, bad, bad == 0 ? "Test passed" : "Test FAILED");
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFreeHost(h_sums));
    CHECK(cudaFree(d_ring));
    CHECK(cudaFree(d_planes));
    CHECK(cudaFree(d_sums));
    return bad == 0 ? 0 : 1;
}
