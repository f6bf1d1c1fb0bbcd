// A probe, not part of StreamLab's data flow: prints what CUPTI's resource callbacks and kernel
// activity records say about two CUDA graph features, so that what the recorder follows (or
// not) rests on what the driver does rather than on a guess. (1) cudaGraphExecUpdate: which
// callbacks fire, and what node pairs they name. (2) A child graph: which node ids its
// instantiation announces, and which one the replayed kernel carries.
// Run on the GPU machine: build/kernels/probe_graph_callbacks (README, "CUDA graphs").
#include <cupti.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e_));                      \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

namespace {

__global__ void Write(int* p, int v) { p[threadIdx.x] = v; }

unsigned long long NodeId(CUgraphNode n) {
  uint64_t id = 0;
  if (n) cuptiGetGraphNodeId(n, &id);
  return id;
}
unsigned GraphId(CUgraph g) {
  uint32_t id = 0;
  if (g) cuptiGetGraphId(g, &id);
  return id;
}

void CUPTIAPI OnResource(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id < CUPTI_CBID_RESOURCE_GRAPH_CREATED) return;
  const auto* g = static_cast<const CUpti_GraphData*>(static_cast<const CUpti_ResourceData*>(data)->resourceDescriptor);
  if (!g) return;
  std::printf("callback %u: graph %u (from %u) node %llu (from %llu) type %d dependency %llu exec %p\n", id,
              GraphId(g->graph), GraphId(g->originalGraph), NodeId(g->node), NodeId(g->originalNode),
              static_cast<int>(g->nodeType), NodeId(g->dependency), static_cast<void*>(g->graphExec));
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}
void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      std::printf("kernel: correlation %u graph %u node %llu\n", k->correlationId, k->graphId,
                  static_cast<unsigned long long>(k->graphNodeId));
    }
  std::free(buffer);
}

}  // namespace

int main() {
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, OnResource, nullptr) != CUPTI_SUCCESS) {
    std::printf("CUPTI is in use by another tool\n");
    return 1;
  }
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
  cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  int* buf = nullptr;
  CHECK(cudaMalloc(&buf, 8 * 32 * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto capture = [&](int a, int b) {  // two kernels writing slots a and b
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    Write<<<1, 32, 0, s>>>(buf + 32 * a, a);
    Write<<<1, 32, 0, s>>>(buf + 32 * b, b);
    CHECK(cudaStreamEndCapture(s, &g));
    return g;
  };
  std::printf("== capture the first graph (slots 0, 1), instantiate, launch\n");
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, capture(0, 1), 0));
  CHECK(cudaGraphLaunch(exec, s));
  std::printf("== capture the second graph (slots 2, 3), cudaGraphExecUpdate, launch\n");
  cudaGraph_t second = capture(2, 3);
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec, second, &info));
  CHECK(cudaGraphLaunch(exec, s));
  CHECK(cudaStreamSynchronize(s));
  int slots[4 * 32];
  CHECK(cudaMemcpy(slots, buf, sizeof slots, cudaMemcpyDeviceToHost));
  std::printf("slots written: %d %d %d %d (expect 0 1 2 3)\n", slots[0], slots[32], slots[64], slots[96]);

  std::printf("== a child graph holding one kernel node, in a parent graph; instantiate, launch\n");
  cudaGraph_t child, parent;
  CHECK(cudaGraphCreate(&child, 0));
  int* slot = buf + 32 * 4;
  int value = 4;
  void* args[] = {&slot, &value};
  cudaKernelNodeParams p = {};
  p.func = reinterpret_cast<void*>(Write);
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  cudaGraphNode_t kernel, child_node;
  CHECK(cudaGraphAddKernelNode(&kernel, child, nullptr, 0, &p));
  CHECK(cudaGraphCreate(&parent, 0));
  CHECK(cudaGraphAddChildGraphNode(&child_node, parent, nullptr, 0, child));
  cudaGraphExec_t parent_exec;
  CHECK(cudaGraphInstantiate(&parent_exec, parent, 0));
  CHECK(cudaGraphLaunch(parent_exec, s));
  CHECK(cudaStreamSynchronize(s));
  cuptiActivityFlushAll(1);
  std::printf("the child's kernel node: %llu; the child graph node: %llu\n", NodeId(kernel), NodeId(child_node));
  return 0;
}
