// CudaRun setup: devices, peer access, streams, events, buffers, scratch and the cancel
// flag; buffers are (re)allocated before each pass and op allocations released after it.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "engine/sim/buffer_contents.h"
#include "kernels/cuda_run_state.h"

namespace streamlab {

void CudaRun::State::UseDevice(int device) {
  if (device == current_device) return;
  SL_CUDA(cudaSetDevice(device));
  current_device = device;
}

void CudaRun::State::Setup() {
  void* flag = nullptr;
  SL_CUDA(cudaHostAlloc(&flag, kCancelInts * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  cancel_mem = PinnedMemory(flag);
  cancel = static_cast<volatile int*>(flag);
  ClearCancel();

  for (int d = 0; d < s.device_count; ++d) {
    SL_CUDA(cudaSetDevice(d));
    void* p = nullptr;
    SL_CUDA(cudaMalloc(&p, kScratchBytes));
    scratch.emplace_back(p);
    SL_CUDA(cudaMemset(p, 0, kScratchBytes));
    cudaStream_t cs = nullptr;
    SL_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    calibration_streams.emplace_back(cs);
    for (int peer = 0; peer < s.device_count; ++peer) {
      if (peer == d) continue;
      int can = 0;
      SL_CUDA(cudaDeviceCanAccessPeer(&can, d, peer));
      if (!can) continue;
      cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
      else SL_CUDA(e);
    }
  }
  current_device = s.device_count - 1;
  UseDevice(0);

  for (const StreamDesc& st : s.streams) {
    UseDevice(st.device);
    if (st.kind == StreamKind::kLegacyDefault) {
      streams.push_back(cudaStreamLegacy);
      owned_streams.emplace_back();
    } else if (st.kind == StreamKind::kPerThreadDefault) {
      streams.push_back(cudaStreamPerThread);
      owned_streams.emplace_back();
    } else {
      int least = 0, greatest = 0;
      SL_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      int priority = std::clamp(st.priority, greatest, least);
      cudaStream_t raw = nullptr;
      SL_CUDA(cudaStreamCreateWithPriority(
          &raw, st.non_blocking ? cudaStreamNonBlocking : cudaStreamDefault, priority));
      owned_streams.emplace_back(raw);
      streams.push_back(raw);
    }
  }
  for (const EventDesc& e : s.events) {
    UseDevice(e.device);
    cudaEvent_t raw = nullptr;
    SL_CUDA(cudaEventCreateWithFlags(&raw, cudaEventDisableTiming));
    events.emplace_back(raw);
  }

  buffers.assign(s.buffers.size(), nullptr);
  allocated_by_op.assign(s.buffers.size(), false);
  device_mem.resize(s.buffers.size());
  pinned_mem.resize(s.buffers.size());
  pageable_mem.resize(s.buffers.size());
  EnsureBuffers();
  if (HasCollectives(s)) {
    nccl = std::make_unique<NcclGroups>(s);
    current_device = -1;  // NCCL's setup may have switched the current device
    UseDevice(0);
  }
}

// Allocates every buffer that no malloc / malloc_host op allocates and that is not held
// now (a free op in the last pass released it), zero-filled.
void CudaRun::State::EnsureBuffers() {
  std::vector<bool> op_allocates(s.buffers.size(), false);
  for (const Op& op : s.ops)
    if (op.kind == OpKind::kMalloc || op.kind == OpKind::kMallocHost) op_allocates[op.buffer] = true;
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    if (op_allocates[i] || buffers[i] || s.buffers[i].alias_of >= 0) continue;
    const BufferDesc& b = s.buffers[i];
    void* p = nullptr;
    switch (b.kind) {
      case MemoryKind::kDevice:
        UseDevice(b.device);
        SL_CUDA(cudaMalloc(&p, b.bytes));
        device_mem[i] = DeviceMemory(p);
        SL_CUDA(cudaMemset(p, 0, b.bytes));
        break;
      case MemoryKind::kPinnedHost:
        SL_CUDA(cudaMallocHost(&p, b.bytes));
        pinned_mem[i] = PinnedMemory(p);
        std::memset(p, 0, b.bytes);
        break;
      case MemoryKind::kPageableHost:
        p = std::aligned_alloc(4096, (b.bytes + 4095) / 4096 * 4096);
        if (!p) throw RunError("out of host memory for buffer " + b.name);
        pageable_mem[i] = PageableMemory(p);
        std::memset(p, 0, b.bytes);  // touch every page now, not during the run
        break;
    }
    buffers[i] = p;
  }
  // Checked buffers start every pass zeroed, as the content model assumes.
  for (size_t i = 0; i < s.buffers.size(); ++i) {
    if (!s.buffers[i].checked || s.buffers[i].alias_of >= 0 || !buffers[i]) continue;
    if (s.buffers[i].kind == MemoryKind::kDevice) {
      UseDevice(s.buffers[i].device);
      SL_CUDA(cudaMemset(buffers[i], 0, s.buffers[i].bytes));
    } else {
      std::memset(buffers[i], 0, s.buffers[i].bytes);
    }
  }
  for (int d = 0; d < s.device_count; ++d) {
    UseDevice(d);
    SL_CUDA(cudaDeviceSynchronize());
  }
  UseDevice(0);
}

// Frees what malloc / malloc_host ops allocated and did not free, so the next pass
// starts from the same state.
void CudaRun::State::ReleaseOpAllocations() {
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!allocated_by_op[i] || !buffers[i]) continue;
    if (s.buffers[i].kind == MemoryKind::kDevice) (void)cudaFree(buffers[i]);
    else (void)cudaFreeHost(buffers[i]);
    buffers[i] = nullptr;
    allocated_by_op[i] = false;
  }
}

void* CudaRun::State::BufferPtr(int index) const {
  index = StorageOf(s, index);
  if (!buffers[index])
    throw RunError("buffer " + s.buffers[index].name + " is used while not allocated");
  return buffers[index];
}

// Each buffer's memory (aliases share their storage's pointer).
std::vector<void*> CudaRun::State::StoragePointers() const {
  std::vector<void*> out;
  for (size_t i = 0; i < buffers.size(); ++i) out.push_back(buffers[StorageOf(s, static_cast<int>(i))]);
  return out;
}

void CudaRun::State::ReleaseIfHeld(int buffer) {
  if (allocated_by_op[buffer]) {
    allocated_by_op[buffer] = false;
    if (s.buffers[buffer].kind == MemoryKind::kDevice) SL_CUDA(cudaFree(buffers[buffer]));
    else SL_CUDA(cudaFreeHost(buffers[buffer]));
    buffers[buffer] = nullptr;
  }
}
thread_local int CudaRun::State::current_device = 0;
thread_local int CudaRun::State::host_device = 0;

}  // namespace streamlab
