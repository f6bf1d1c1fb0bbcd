// Device code for the lab kernels. Thread 0 of each block reads %globaltimer at entry and
// after the block's work, and %smid. Spin kernels poll the watchdog's cancel flag (host
// memory, over PCIe) only every ~1 ms, at a phase that differs per block and on one of 32
// cache lines: on an H200, 264 blocks reading one host address at the same moment every
// 50 us serialised and stretched 200 us blocks to up to 460 us.
#include "kernels/device_kernels.cuh"

namespace streamlab {
namespace {

constexpr uint64_t kCancelPollNs = 1000000;
// Measured on an H200: the block's recorded end lands 256 ns after the spin loop exits
// (the barrier and the final timer read), so the loop stops that much early.
constexpr uint64_t kSpinTailNs = 256;

__device__ __forceinline__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint32_t SmId() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ float g_sink;  // keeps results alive without a visible write

__device__ __forceinline__ void RecordBlock(const KernelArgs& a, uint64_t start) {
  __syncthreads();  // the block is done when its last thread is
  if (threadIdx.x == 0 && a.timing) a.timing[blockIdx.x] = {start, GlobalTimer(), SmId(), 0};
}

template <int Slot>
__global__ void SpinKernel(KernelArgs a) {
  uint64_t start = GlobalTimer();
  if (threadIdx.x == 0) {
    uint64_t work = static_cast<uint64_t>(a.work);
    uint64_t deadline = start + (work > 2 * kSpinTailNs ? work - kSpinTailNs : work);
    uint64_t next_poll = start + kCancelPollNs + (blockIdx.x % 997) * 1000;
    const volatile int* flag = a.cancel ? a.cancel + (blockIdx.x % kCancelLines) * kCancelStride : nullptr;
    for (uint64_t now = start; now < deadline; now = GlobalTimer()) {
      if (now >= next_poll) {
        if (flag && *flag) break;
        next_poll = now + kCancelPollNs;
      }
    }
    // A spin kernel that "writes" a buffer stamps its block id, so races are visible.
    if (!a.fill && a.write && a.write_bytes >= 4)
      static_cast<volatile unsigned*>(a.write)[blockIdx.x % (a.write_bytes / 4)] = blockIdx.x + 1 + Slot * 0x10000u;
  }
  if (a.fill) {
    __syncthreads();  // read and write only after the spin: the result depends on what ran first
    // Plain loads: this kernel has not touched `in` before, so they read what is in memory now.
    const unsigned* in = static_cast<const unsigned*>(a.read);
    unsigned* out = static_cast<unsigned*>(a.write);
    size_t n_in = a.read_bytes / 4, n_out = a.write_bytes / 4;
    size_t step = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (size_t j = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n_out; j += step)
      out[j] = (in && n_in ? in[j % n_in] : 0u) + 1u;
  }
  RecordBlock(a, start);
}

__global__ void ComputeKernel(KernelArgs a) {
  uint64_t start = GlobalTimer();
  float x = threadIdx.x * 1e-3f, y = 1.0000001f;
  for (int64_t i = 0; i < a.work; ++i) x = fmaf(x, y, 1e-7f);
  if (a.write && a.write_bytes >= 4)
    static_cast<float*>(a.write)[(blockIdx.x * blockDim.x + threadIdx.x) % (a.write_bytes / 4)] = x;
  else if (x == -1.0f)
    g_sink = x;
  RecordBlock(a, start);
}

__global__ void MemoryKernel(KernelArgs a) {
  uint64_t start = GlobalTimer();
  const uint4* src = static_cast<const uint4*>(a.read);
  uint4* dst = static_cast<uint4*>(a.write);
  size_t src_n = a.read_bytes / sizeof(uint4), dst_n = a.write_bytes / sizeof(uint4);
  size_t per_block = static_cast<size_t>(a.work) / sizeof(uint4);
  size_t base = static_cast<size_t>(blockIdx.x) * per_block;
  unsigned acc = 0;
  for (size_t i = threadIdx.x; i < per_block && src_n; i += blockDim.x) {
    uint4 v = src[(base + i) % src_n];
    if (dst_n) dst[(base + i) % dst_n] = v;
    else acc ^= v.x ^ v.w;
  }
  if (acc == 0xdeadbeefu) g_sink = 1.0f;
  RecordBlock(a, start);
}

__global__ void AtomicKernel(KernelArgs a) {
  uint64_t start = GlobalTimer();
  unsigned* target = static_cast<unsigned*>(a.write);
  size_t n = a.write_bytes / 4;
  if (n > 32) n = 32;  // a few hot addresses: contended on purpose
  for (int64_t i = 0; i < a.work && n; ++i) atomicAdd(&target[(threadIdx.x + i) % n], 1u);
  RecordBlock(a, start);
}

// Reads a tile that no thread writes after the barrier, and writes only the thread's own
// slot: shared-memory traffic without a race inside the block (racecheck stays clean).
__global__ void SharedMemoryKernel(KernelArgs a) {
  uint64_t start = GlobalTimer();
  __shared__ float tile[1024];
  __shared__ float mine[1024];
  unsigned slot = threadIdx.x % 1024;
  tile[slot] = threadIdx.x;
  mine[slot] = 0;
  __syncthreads();
  float acc = 0;
  for (int64_t i = 0; i < a.work; ++i) {
    acc += tile[(threadIdx.x + i * 33) % 1024];
    mine[slot] = acc * 0.5f + mine[slot];
  }
  acc += mine[slot];
  if (a.write && a.write_bytes >= 4)
    static_cast<float*>(a.write)[(blockIdx.x * blockDim.x + threadIdx.x) % (a.write_bytes / 4)] = acc;
  else if (acc == -1.0f)
    g_sink = acc;
  RecordBlock(a, start);
}

__global__ void ClockPingPongKernel(volatile int* flags, volatile uint64_t* stamps, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    while (flags[0] != r + 1) {
      if (flags[2]) return;
    }
    stamps[r] = GlobalTimer();
    __threadfence_system();
    flags[1] = r + 1;
  }
}

template <int Slot>
void LaunchSpin(const KernelArgs& a, int grid, int block, cudaStream_t s) {
  SpinKernel<Slot><<<grid, block, 0, s>>>(a);
}

}  // namespace

cudaError_t LaunchLabKernel(const KernelArgs& a, int grid, int block, cudaStream_t s) {
  switch (a.kind) {
    case 0:  // spin: eight distinct functions, so lazy loading can be shown per function
      switch (a.slot) {
        case 0: LaunchSpin<0>(a, grid, block, s); break;
        case 1: LaunchSpin<1>(a, grid, block, s); break;
        case 2: LaunchSpin<2>(a, grid, block, s); break;
        case 3: LaunchSpin<3>(a, grid, block, s); break;
        case 4: LaunchSpin<4>(a, grid, block, s); break;
        case 5: LaunchSpin<5>(a, grid, block, s); break;
        case 6: LaunchSpin<6>(a, grid, block, s); break;
        default: LaunchSpin<7>(a, grid, block, s); break;
      }
      break;
    case 1: ComputeKernel<<<grid, block, 0, s>>>(a); break;
    case 2: MemoryKernel<<<grid, block, 0, s>>>(a); break;
    case 3: AtomicKernel<<<grid, block, 0, s>>>(a); break;
    default: SharedMemoryKernel<<<grid, block, 0, s>>>(a); break;
  }
  return cudaGetLastError();
}

cudaError_t LaunchClockPingPong(volatile int* flags, volatile uint64_t* stamps, int rounds,
                                cudaStream_t stream) {
  ClockPingPongKernel<<<1, 1, 0, stream>>>(flags, stamps, rounds);
  return cudaGetLastError();
}

}  // namespace streamlab
