// A loop that replays one CUDA graph 2000 times, changing its kernel's argument each time:
// cudaGraphExecKernelNodeSetParams, cudaGraphLaunch, cudaStreamSynchronize. The graph's last node
// copies the 8-byte result into PAGEABLE host memory, so (CUDA's documented behaviour for copies
// to pageable memory) the launch itself cannot return before the graph has run: each iteration
// the host waits inside cudaGraphLaunch, then syncs. Prints the median iteration (wall, steady).
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

__global__ void Accumulate(double* sum, const float* data, int n, float scale) {
  double local = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) local += data[i] * scale;
  atomicAdd(sum, local);
}

int main() {
  const int n = 1 << 16, iterations = 2000;
  float* data = nullptr;
  double* sum = nullptr;
  CHECK(cudaMalloc(&data, n * sizeof(float)));
  CHECK(cudaMalloc(&sum, sizeof(double)));
  double* result = static_cast<double*>(std::malloc(sizeof(double)));  // pageable on purpose
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaMemsetAsync(data, 0, n * sizeof(float), stream));  // on the loop's stream: ordered before it

  // The graph: zero the sum, accumulate, copy the sum back (into pageable memory).
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(sum, 0, sizeof(double), stream));
  float scale = 1.0f;
  Accumulate<<<1, 256, 0, stream>>>(sum, data, n, scale);
  CHECK(cudaMemcpyAsync(result, sum, sizeof(double), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  // The kernel node, to change its scale argument each iteration.
  size_t count = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK(cudaGraphGetNodes(graph, nodes.data(), &count));
  cudaGraphNode_t kernel_node = nullptr;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) kernel_node = node;
  }
  cudaKernelNodeParams params;
  CHECK(cudaGraphKernelNodeGetParams(kernel_node, &params));

  std::vector<double> times;
  for (int it = 0; it < iterations; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    scale = 1.0f + it;
    void* args[] = {&sum, &data, const_cast<int*>(&n), &scale};
    params.kernelParams = args;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel_node, &params));
    CHECK(cudaGraphLaunch(exec, stream));  // returns after the graph ran: its copy node writes pageable memory
    CHECK(cudaStreamSynchronize(stream));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> steady(times.begin() + 5, times.end());
  std::nth_element(steady.begin(), steady.begin() + steady.size() / 2, steady.end());
  std::printf("graph_setparams_loop: %d steps timed; median step %.4f ms (steps 5..%d); result %.1f\n", iterations,
              steady[steady.size() / 2], iterations - 1, *result);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  std::free(result);
  CHECK(cudaFree(data));
  CHECK(cudaFree(sum));
  return 0;
}
