// A camera pipeline whose auto-exposure runs on the CPU, between the frames, serially.
//
// 8 synthetic HDR frames of 2048 x 2048 floats (16 MiB each) live in pinned host memory. For each
// frame (40 timed, after one warm-up) on one non-blocking stream:
//   cudaMemcpyAsync host -> device of the frame (line 84, pinned: a real asynchronous DMA)
//   tonemap<<<(64, 256), (32, 8)>>>: 3x3 box filter, exposure, Reinhard curve, gamma (line 85)
//   cudaMemcpyAsync device -> host of the result (line 86, pinned)
//   cudaStreamSynchronize (line 87)
// and then the CPU computes the next frame's exposure from this frame's result (line 88,
// auto_exposure: a 4096-bin histogram over all 4,194,304 pixels, then its median), because the next
// frame's kernel takes that exposure as an argument. The GPU's part of a frame is two 16.8 MB pinned
// copies (~0.3 ms each) and a ~30-50 us memory-bound kernel; the CPU's histogram loop touches every
// pixel once with a data-dependent increment, milliseconds of plain host code during which the GPU
// has nothing to do. One stream, every access ordered by it and by the synchronize: no race.
// Prints the median frame time and "Test passed" when a sample of pixels matches a CPU reference.
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

constexpr int W = 2048, H = 2048, BINS = 4096;

__host__ __device__ inline float tone(float sum9, float exposure) {
    float v = sum9 * (1.0f / 9.0f) * exposure;
    v = v / (1.0f + v);
    return powf(v, 1.0f / 2.2f);
}

__global__ void tonemap(const float *in, float *out, float exposure) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            s += in[min(max(y + dy, 0), H - 1) * W + min(max(x + dx, 0), W - 1)];
    out[y * W + x] = tone(s, exposure);
}

// The next frame's exposure: the median of this frame's tone-mapped values should sit at 0.45.
static float auto_exposure(const float *img, size_t n, std::vector<unsigned> &hist, float exposure) {
    std::fill(hist.begin(), hist.end(), 0u);
    for (size_t i = 0; i < n; ++i) {
        int b = int(img[i] * float(BINS - 1));
        ++hist[b < 0 ? 0 : (b >= BINS ? BINS - 1 : b)];
    }
    size_t seen = 0;
    int median_bin = 0;
    while (median_bin < BINS - 1 && (seen += hist[median_bin]) < n / 2) ++median_bin;
    const float median = std::max(float(median_bin) / float(BINS - 1), 1e-3f);
    return std::clamp(exposure * std::pow(0.45f / median, 0.5f), 0.05f, 20.0f);
}

int main() {
    const size_t n = size_t(W) * H, bytes = n * sizeof(float);
    const int frames = 8, steps = 40;
    float *h_frames = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMallocHost(&h_frames, frames * bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    for (int f = 0; f < frames; ++f)
        for (size_t i = 0; i < n; ++i)
            h_frames[f * n + i] = 0.05f + 4.0f * float((i * 2654435761u + f * 97u) % 10007u) / 10007.0f * float(i % W) / W;
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    std::vector<unsigned> hist(BINS);
    std::vector<double> times;
    float exposure = 1.0f, used = 1.0f;
    for (int step = 0; step <= steps; ++step) {            // step 0 is a warm-up (module load)
        auto t0 = std::chrono::steady_clock::now();
        const float *frame = h_frames + size_t(step % frames) * n;
        CHECK(cudaMemcpyAsync(d_in, frame, bytes, cudaMemcpyHostToDevice, stream));
        tonemap<<<dim3(W / 32, H / 8), dim3(32, 8), 0, stream>>>(d_in, d_out, exposure);
        CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        used = exposure, exposure = auto_exposure(h_out, n, hist, exposure);
        auto t1 = std::chrono::steady_clock::now();
        if (step > 0) times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    CHECK(cudaGetLastError());
    const float *last = h_frames + size_t(steps % frames) * n;
    size_t bad = 0;
    for (size_t i = W + 1; i < n - W - 1; i += 7919) {
        const size_t x = i % W;
        if (x == 0 || x == W - 1) continue;
        float s = 0.0f;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) s += last[i + dy * W + dx];
        if (std::fabs(tone(s, used) - h_out[i]) > 1e-4f) ++bad;
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    std::printf("auto_exposure_host_histogram: %zu steps timed; median step %.3f ms (steps 1..%d)\n",
                times.size(), sorted[sorted.size() / 2], steps);
    std::printf("final exposure %.3f; %zu wrong values\n%s\n", exposure, bad, bad == 0 ? "Test passed" : "Test FAILED");
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFreeHost(h_frames));
    CHECK(cudaFreeHost(h_out));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return bad == 0 ? 0 : 1;
}
