// The kernels a lab can name (spin, compute, memory, atomic, shared-memory), each able to
// record per-block (start, end, SM) from %globaltimer and %smid, and the clock ping-pong
// used to align %globaltimer with the host clock.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace streamlab {

struct BlockTiming {
  uint64_t start;  // %globaltimer when the block began
  uint64_t end;    // %globaltimer when its last thread was done
  uint32_t sm;     // %smid
  uint32_t pad;
};

// The watchdog's cancel flag: kCancelLines ints kCancelStride apart (one per 128-byte line),
// so polling blocks spread their reads over several host cache lines.
constexpr int kCancelLines = 32;
constexpr int kCancelStride = 32;
constexpr int kCancelInts = kCancelLines * kCancelStride;

struct KernelArgs {
  int kind = 0;           // KernelKind as int
  int slot = 0;           // function slot 0..7 (distinct functions for lazy loading)
  int64_t work = 0;       // see KernelSpec::work
  const void* read = nullptr;
  size_t read_bytes = 0;
  void* write = nullptr;
  size_t write_bytes = 0;
  // Spin kernels only: write every element of `write` as read[j % n] + 1 (1 with no read
  // buffer) once the spin is over - the content model of engine/sim/buffer_contents.h. Off, a
  // spin kernel only stamps one word per block, so its time does not grow with the buffer.
  bool fill = false;
  BlockTiming* timing = nullptr;        // one record per block, or null
  const volatile int* cancel = nullptr; // watchdog flags (kCancelInts) in mapped pinned memory
};

// Launches the kernel on `stream`; returns the launch's error (cudaGetLastError).
cudaError_t LaunchLabKernel(const KernelArgs& args, int grid, int block, cudaStream_t stream);

// Clock ping-pong: `flags` and `stamps` are mapped pinned memory. For each round r the
// kernel waits until flags[0] == r + 1, writes %globaltimer to stamps[r], then sets
// flags[1] = r + 1. flags[2] != 0 makes it give up at once.
cudaError_t LaunchClockPingPong(volatile int* flags, volatile uint64_t* stamps, int rounds,
                                cudaStream_t stream);

}  // namespace streamlab
