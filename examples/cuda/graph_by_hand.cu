// A raw CUDA C++ program that builds a CUDA graph node by node (no stream capture) and
// replays it three times: upload x, then two kernels on it side by side (a = x*x, b = 3x),
// an empty join node, a memset of out, out = a + b, and a download of out. With
// --missing-edge the square kernel is added without its edge from the upload, the bug a
// hand-built graph invites: it may read x while the copy still writes it. With --range only
// the replays are in a profiler range (record --capture-range cudaProfilerApi): the graph is
// built before it. With --second-instance a second instance of the graph runs beside the
// first, on a stream of its own, with buffers of its own: instances made after the graph's
// download node is set again (cudaGraphMemcpyNodeSetParams1D) download into the new place, and
// cudaGraphExec*SetParams point the second instance's other nodes at its buffers. With
// --forget-node as well, its Triple node is not pointed: it still reads x and writes b, the
// first instance's buffers, while the first instance uses them.
// Build: nvcc -o graph_by_hand graph_by_hand.cu
// Run: ./graph_by_hand [--missing-edge] [--range] [--second-instance [--forget-node]]
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
cudaKernelNodeParams KernelParams(void* func, void** args) {
  cudaKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3(132);
  p.blockDim = dim3(256);
  p.kernelParams = args;
  return p;
}
cudaError_t AddKernel(cudaGraph_t g, cudaGraphNode_t* node, const cudaGraphNode_t* deps, size_t ndeps, void* func,
                      void** args) {
  cudaKernelNodeParams p = KernelParams(func, args);
  return cudaGraphAddKernelNode(node, g, deps, ndeps, &p);
}

// The buffers one instance of the graph works on.
struct Buffers {
  float *host_x, *host_out, *x, *a, *b, *out;
};
cudaError_t Allocate(Buffers& m, size_t bytes) {
  cudaError_t e = cudaSuccess;
  for (float** host : {&m.host_x, &m.host_out})  // pinned: the copies are truly asynchronous
    if (e == cudaSuccess) e = cudaMallocHost(host, bytes);
  for (float** device : {&m.x, &m.a, &m.b, &m.out})
    if (e == cudaSuccess) e = cudaMalloc(device, bytes);
  return e;
}
void Release(Buffers& m) {
  for (float* host : {m.host_x, m.host_out}) cudaFreeHost(host);
  for (float* device : {m.x, m.a, m.b, m.out}) cudaFree(device);
}
// How many elements of `m.host_out` differ from x*x + 3x for x = `value`.
int Wrong(const Buffers& m, int n, float value) {
  float expect = value * value + 3 * value;
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += m.host_out[i] != expect;
  return wrong;
}

int main(int argc, char** argv) {
  bool missing_edge = false, range = false, second = false, forget = false;
  for (int i = 1; i < argc; ++i) {
    missing_edge |= std::strcmp(argv[i], "--missing-edge") == 0;
    range |= std::strcmp(argv[i], "--range") == 0;
    second |= std::strcmp(argv[i], "--second-instance") == 0;
    forget |= std::strcmp(argv[i], "--forget-node") == 0;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA GPU\n");
    return 3;
  }
  int n = 1 << 22;  // 16 MB per buffer: the upload takes a few hundred microseconds
  size_t bytes = n * sizeof(float);
  Buffers one = {}, two = {};
  CHECK(Allocate(one, bytes));
  if (second) CHECK(Allocate(two, bytes));

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t upload, square, triple, join, zero, sum, download;
  CHECK(cudaGraphAddMemcpyNode1D(&upload, graph, nullptr, 0, one.x, one.host_x, bytes, cudaMemcpyHostToDevice));
  void* square_args[] = {&one.x, &one.a, &n};
  void* triple_args[] = {&one.x, &one.b, &n};
  CHECK(AddKernel(graph, &square, missing_edge ? nullptr : &upload, missing_edge ? 0 : 1,
                  reinterpret_cast<void*>(Square), square_args));
  CHECK(AddKernel(graph, &triple, &upload, 1, reinterpret_cast<void*>(Triple), triple_args));
  cudaGraphNode_t branches[] = {square, triple};
  CHECK(cudaGraphAddEmptyNode(&join, graph, branches, 2));  // waits for both branches
  cudaMemsetParams m = {};
  m.dst = one.out;
  m.elementSize = 4;
  m.width = n;
  m.height = 1;
  CHECK(cudaGraphAddMemsetNode(&zero, graph, nullptr, 0, &m));
  void* sum_args[] = {&one.a, &one.b, &one.out, &n};
  CHECK(AddKernel(graph, &sum, &join, 1, reinterpret_cast<void*>(AddInto), sum_args));
  // An edge added after the node (CUDA 13 takes optional edge data: none = an ordinary edge).
#if CUDART_VERSION >= 13000
  CHECK(cudaGraphAddDependencies(graph, &zero, &sum, nullptr, 1));
#else
  CHECK(cudaGraphAddDependencies(graph, &zero, &sum, 1));
#endif
  CHECK(cudaGraphAddMemcpyNode1D(&download, graph, &sum, 1, one.host_out, one.out, bytes, cudaMemcpyDeviceToHost));

  cudaGraphExec_t exec, exec2 = nullptr;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t stream, stream2 = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void* square2[] = {&two.x, &two.a, &n};
  void* triple2[] = {&two.x, &two.b, &n};
  void* sum2[] = {&two.a, &two.b, &two.out, &n};
  if (second) {
    // On the graph: instances made from now on download into the second host buffer; the
    // first instance keeps its own download.
    CHECK(cudaGraphMemcpyNodeSetParams1D(download, two.host_out, two.out, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGraphInstantiate(&exec2, graph, 0));
    // On the second instance only: each node pointed at its buffers (the edges stay).
    CHECK(cudaGraphExecMemcpyNodeSetParams1D(exec2, upload, two.x, two.host_x, bytes, cudaMemcpyHostToDevice));
    cudaKernelNodeParams p = KernelParams(reinterpret_cast<void*>(Square), square2);
    CHECK(cudaGraphExecKernelNodeSetParams(exec2, square, &p));
    p = KernelParams(reinterpret_cast<void*>(Triple), triple2);
    if (!forget) CHECK(cudaGraphExecKernelNodeSetParams(exec2, triple, &p));
    m.dst = two.out;
    CHECK(cudaGraphExecMemsetNodeSetParams(exec2, zero, &m));
    p = KernelParams(reinterpret_cast<void*>(AddInto), sum2);
    CHECK(cudaGraphExecKernelNodeSetParams(exec2, sum, &p));
    CHECK(cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking));
  }
  int wrong_replays = 0, wrong_second = 0;
  if (range) CHECK(cudaProfilerStart());
  for (int step = 1; step <= 3; ++step) {
    for (int i = 0; i < n; ++i) one.host_x[i] = static_cast<float>(step);
    for (int i = 0; second && i < n; ++i) two.host_x[i] = static_cast<float>(10 * step);
    CHECK(cudaGraphLaunch(exec, stream));
    if (second) CHECK(cudaGraphLaunch(exec2, stream2));  // beside the first: nothing orders them
    CHECK(cudaStreamSynchronize(stream));
    if (second) CHECK(cudaStreamSynchronize(stream2));
    int wrong = Wrong(one, n, static_cast<float>(step));
    wrong_replays += wrong > 0;
    std::printf("replay %d: out = %g expected, %d of %d elements differ\n", step,
                static_cast<float>(step * step + 3 * step), wrong, n);
    if (!second) continue;
    int wrong2 = Wrong(two, n, static_cast<float>(10 * step));
    wrong_second += wrong2 > 0;
    std::printf("replay %d of the second instance: %d of %d elements differ\n", step, wrong2, n);
  }
  if (range) CHECK(cudaProfilerStop());  // the streams were synchronized: every replay is recorded
  std::printf("%s graph: %d of 3 replays gave a wrong result\n", missing_edge ? "missing-edge" : "correct",
              wrong_replays);
  if (second) {
    std::printf("second instance%s: %d of 3 replays gave a wrong result\n", forget ? " (Triple not pointed)" : "",
                wrong_second);
    CHECK(cudaGraphExecDestroy(exec2));
    CHECK(cudaStreamDestroy(stream2));
    Release(two);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  Release(one);
  return 0;
}
