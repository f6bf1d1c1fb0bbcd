// A raw CUDA C++ program that builds a CUDA graph node by node (no stream capture) and
// replays it three times: upload x, then two kernels on it side by side (a = x*x, b = 3x),
// an empty join node, a memset of out, out = a + b, and a download of out. With
// --missing-edge the square kernel is added without its edge from the upload, the bug a
// hand-built graph invites: it may read x while the copy still writes it. With --range only
// the replays are in a profiler range (record --capture-range cudaProfilerApi): the graph is
// built before it.
// Build: nvcc -o graph_by_hand graph_by_hand.cu   Run: ./graph_by_hand [--missing-edge] [--range]
#include <cstdio>
#include <cstring>

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                                       \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s failed: %s (%s:%d)\n", #call, cudaGetErrorString(err_),    \
                   __FILE__, __LINE__);                                                   \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

__global__ void Square(const float* x, float* a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) a[i] = x[i] * x[i];
}
__global__ void Triple(const float* x, float* b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) b[i] = 3.0f * x[i];
}
__global__ void AddInto(const float* a, const float* b, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] += a[i] + b[i];
}

// A kernel node after `deps` (cudaGraphAddKernelNode takes the arguments as pointers to them).
cudaError_t AddKernel(cudaGraph_t g, cudaGraphNode_t* node, const cudaGraphNode_t* deps, size_t ndeps, void* func,
                      void** args) {
  cudaKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3(132);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  return cudaGraphAddKernelNode(node, g, deps, ndeps, &p);
}

int main(int argc, char** argv) {
  bool missing_edge = false, range = false;
  for (int i = 1; i < argc; ++i) {
    missing_edge |= std::strcmp(argv[i], "--missing-edge") == 0;
    range |= std::strcmp(argv[i], "--range") == 0;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA GPU\n");
    return 3;
  }
  int n = 1 << 22;  // 16 MB per buffer: the upload takes a few hundred microseconds
  size_t bytes = n * sizeof(float);
  float *host_x, *host_out, *x, *a, *b, *out;
  CHECK(cudaMallocHost(&host_x, bytes));  // pinned: the copies are truly asynchronous
  CHECK(cudaMallocHost(&host_out, bytes));
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&out, bytes));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t upload, square, triple, join, zero, sum, download;
  CHECK(cudaGraphAddMemcpyNode1D(&upload, graph, nullptr, 0, x, host_x, bytes, cudaMemcpyHostToDevice));
  void* square_args[] = {&x, &a, &n};
  void* triple_args[] = {&x, &b, &n};
  CHECK(AddKernel(graph, &square, missing_edge ? nullptr : &upload, missing_edge ? 0 : 1,
                  reinterpret_cast<void*>(Square), square_args));
  CHECK(AddKernel(graph, &triple, &upload, 1, reinterpret_cast<void*>(Triple), triple_args));
  cudaGraphNode_t branches[] = {square, triple};
  CHECK(cudaGraphAddEmptyNode(&join, graph, branches, 2));  // waits for both branches
  cudaMemsetParams m = {};
  m.dst = out;
  m.elementSize = 4;
  m.width = n;
  m.height = 1;
  CHECK(cudaGraphAddMemsetNode(&zero, graph, nullptr, 0, &m));
  void* sum_args[] = {&a, &b, &out, &n};
  CHECK(AddKernel(graph, &sum, &join, 1, reinterpret_cast<void*>(AddInto), sum_args));
  // An edge added after the node (CUDA 13 takes optional edge data: none = an ordinary edge).
#if CUDART_VERSION >= 13000
  CHECK(cudaGraphAddDependencies(graph, &zero, &sum, nullptr, 1));
#else
  CHECK(cudaGraphAddDependencies(graph, &zero, &sum, 1));
#endif
  CHECK(cudaGraphAddMemcpyNode1D(&download, graph, &sum, 1, host_out, out, bytes, cudaMemcpyDeviceToHost));

  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int wrong_replays = 0;
  if (range) CHECK(cudaProfilerStart());
  for (int step = 1; step <= 3; ++step) {
    for (int i = 0; i < n; ++i) host_x[i] = static_cast<float>(step);
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    float expect = static_cast<float>(step * step + 3 * step);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += host_out[i] != expect;
    wrong_replays += wrong > 0;
    std::printf("replay %d: out = %g expected, %d of %d elements differ\n", step, expect, wrong, n);
  }
  if (range) CHECK(cudaProfilerStop());  // the stream was synchronized: every replay is recorded
  std::printf("%s graph: %d of 3 replays gave a wrong result\n", missing_edge ? "missing-edge" : "correct",
              wrong_replays);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(out));
  CHECK(cudaFreeHost(host_x));
  CHECK(cudaFreeHost(host_out));
  return 0;
}
