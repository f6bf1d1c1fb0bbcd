// RAII owners for CUDA streams, events and memory, so an error thrown mid-run releases
// everything that was created. Destructors never throw (errors there are ignored: the
// context may already be broken, and the original error is the one worth reporting).
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <utility>

#include "kernels/cuda_check.h"

namespace streamlab {

template <typename T, typename Deleter>
class CudaHandle {
 public:
  CudaHandle() = default;
  explicit CudaHandle(T handle) : handle_(handle) {}
  CudaHandle(CudaHandle&& o) noexcept : handle_(std::exchange(o.handle_, T{})) {}
  CudaHandle& operator=(CudaHandle&& o) noexcept {
    if (this != &o) {
      Reset();
      handle_ = std::exchange(o.handle_, T{});
    }
    return *this;
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;
  ~CudaHandle() { Reset(); }

  T get() const { return handle_; }
  // Gives up ownership without destroying (the handle was destroyed elsewhere).
  T Release() { return std::exchange(handle_, T{}); }
  explicit operator bool() const { return handle_ != T{}; }
  void Reset() {
    if (handle_ != T{}) Deleter{}(handle_);
    handle_ = T{};
  }

 private:
  T handle_{};
};

struct StreamDeleter {
  void operator()(cudaStream_t s) const { (void)cudaStreamDestroy(s); }
};
struct EventDeleter {
  void operator()(cudaEvent_t e) const { (void)cudaEventDestroy(e); }
};
struct GraphDeleter {
  void operator()(cudaGraph_t g) const { (void)cudaGraphDestroy(g); }
};
struct GraphExecDeleter {
  void operator()(cudaGraphExec_t g) const { (void)cudaGraphExecDestroy(g); }
};
struct DeviceMemoryDeleter {
  void operator()(void* p) const { (void)cudaFree(p); }
};
struct PinnedMemoryDeleter {
  void operator()(void* p) const { (void)cudaFreeHost(p); }
};
struct PageableMemoryDeleter {
  void operator()(void* p) const { std::free(p); }
};

using OwnedStream = CudaHandle<cudaStream_t, StreamDeleter>;
using OwnedEvent = CudaHandle<cudaEvent_t, EventDeleter>;
using OwnedGraph = CudaHandle<cudaGraph_t, GraphDeleter>;
using OwnedGraphExec = CudaHandle<cudaGraphExec_t, GraphExecDeleter>;
using DeviceMemory = CudaHandle<void*, DeviceMemoryDeleter>;
using PinnedMemory = CudaHandle<void*, PinnedMemoryDeleter>;
using PageableMemory = CudaHandle<void*, PageableMemoryDeleter>;

inline OwnedEvent MakeTimingEvent() {
  cudaEvent_t e = nullptr;
  SL_CUDA(cudaEventCreate(&e));
  return OwnedEvent(e);
}

}  // namespace streamlab
