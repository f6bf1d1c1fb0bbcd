// A loop that captures its step into a CUDA graph again every iteration (the shapes change a
// little each time, as a program that re-captures dynamic work does), updates the instantiated
// graph with cudaGraphExecUpdate (instantiating it anew where the update is refused), launches
// it and waits: per iteration cudaStreamBeginCapture, 12 kernel launches captured, EndCapture,
// ExecUpdate, GraphLaunch, StreamSynchronize, GraphDestroy. 400 iterations; prints the median.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e = (x);                                                                \
    if (e != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

__global__ void Scale(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * a + 1.0f;
}

int main() {
  const int max_n = 1 << 20, iterations = 400, kernels = 12;
  float* x = nullptr;
  CHECK(cudaMalloc(&x, max_n * sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaMemsetAsync(x, 0, max_n * sizeof(float), stream));  // on the loop's stream: ordered before it
  cudaGraphExec_t exec = nullptr;
  std::vector<double> times;
  for (int it = 0; it < iterations; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    int n = max_n - (it % 7) * 4096;  // the shape of this iteration's work
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < kernels; ++k) Scale<<<(n + 255) / 256, 256, 0, stream>>>(x, n, 0.999f);
    CHECK(cudaStreamEndCapture(stream, &graph));
    if (exec == nullptr) {
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
    } else {
      cudaGraphExecUpdateResultInfo info;
      if (cudaGraphExecUpdate(exec, graph, &info) != cudaSuccess) {
        cudaGetLastError();
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
      }
    }
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGraphDestroy(graph));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> steady(times.begin() + 5, times.end());
  std::nth_element(steady.begin(), steady.begin() + steady.size() / 2, steady.end());
  std::printf("graph_recapture_loop: %d steps timed; median step %.4f ms (steps 5..%d)\n", iterations,
              steady[steady.size() / 2], iterations - 1);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  return 0;
}
