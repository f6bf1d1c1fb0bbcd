// A raw CUDA C++ program that captures one step as a CUDA graph and, for each later step,
// captures the step again with that step's buffers and updates the instance it already has
// (cudaGraphExecUpdate) instead of instantiating a new one, the way CUDA's jacobiCudaGraphs
// sample does. The step: on stream s, Scale reads in and writes out_a; on stream t, forked
// from s by an event, Offset reads in and writes out_b; t joins s again. Steps alternate
// between two sets of buffers. With --shared-output the second set's out_b is its out_a: the
// two branches then write one buffer with nothing ordering them, in the updated replays only.
// Build: nvcc -o graph_exec_update graph_exec_update.cu
// Run: ./graph_exec_update [--shared-output]
#include <cstdio>
#include <cstring>

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

constexpr int kN = 1 << 20;

__global__ void Fill(float* p, float v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v;
}
__global__ void Scale(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2.0f * in[i];
}
__global__ void Offset(const float* in, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i] + 1.0f;
}

struct Buffers {
  float *in, *out_a, *out_b;
};

// Captures one step on `s` (forking to `t`) into a new graph.
cudaError_t CaptureStep(cudaStream_t s, cudaStream_t t, cudaEvent_t fork, cudaEvent_t join, const Buffers& b,
                        cudaGraph_t* graph) {
  cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess) return e;
  cudaEventRecord(fork, s);
  cudaStreamWaitEvent(t, fork, 0);
  Scale<<<132, 256, 0, s>>>(b.in, b.out_a, kN);
  Offset<<<132, 256, 0, t>>>(b.in, b.out_b, kN);
  cudaEventRecord(join, t);
  cudaStreamWaitEvent(s, join, 0);
  return cudaStreamEndCapture(s, graph);
}

int main(int argc, char** argv) {
  bool shared = argc > 1 && std::strcmp(argv[1], "--shared-output") == 0;
  Buffers sets[2];
  for (Buffers& b : sets) {
    CHECK(cudaMalloc(&b.in, kN * sizeof(float)));
    CHECK(cudaMalloc(&b.out_a, kN * sizeof(float)));
    CHECK(cudaMalloc(&b.out_b, kN * sizeof(float)));
  }
  if (shared) sets[1].out_b = sets[1].out_a;  // the bug: one output for both branches
  cudaStream_t s, t;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  for (int k = 0; k < 2; ++k) Fill<<<132, 256, 0, s>>>(sets[k].in, 3.0f + k, kN);
  CHECK(cudaStreamSynchronize(s));

  cudaGraphExec_t exec = nullptr;
  int wrong_steps = 0;
  for (int step = 0; step < 4; ++step) {
    const Buffers& b = sets[step % 2];
    cudaGraph_t graph;
    CHECK(CaptureStep(s, t, fork, join, b, &graph));
    if (!exec) {
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
    } else {
      cudaGraphExecUpdateResultInfo info;
      if (cudaGraphExecUpdate(exec, graph, &info) != cudaSuccess) {  // not the same shape: a new instance
        std::printf("step %d: update refused (result %d), instantiating again\n", step, static_cast<int>(info.result));
        cudaGetLastError();
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
      }
    }
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    float a = 0, o = 0, x = 3.0f + step % 2;
    CHECK(cudaMemcpy(&a, b.out_a, sizeof a, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&o, b.out_b, sizeof o, cudaMemcpyDeviceToHost));
    bool ok = a == 2 * x && o == x + 1;
    wrong_steps += ok ? 0 : 1;
    std::printf("step %d: out_a %.0f (expected %.0f), out_b %.0f (expected %.0f)%s\n", step, a, 2 * x, o, x + 1,
                ok ? "" : "  WRONG");
  }
  std::printf("%d of 4 steps wrong\n", wrong_steps);
  CHECK(cudaGraphExecDestroy(exec));
  return 0;
}
