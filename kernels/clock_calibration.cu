// Host <-> %globaltimer calibration (see clock_calibration.h).
#include "kernels/clock_calibration.h"

#include <limits>
#include <thread>

#include "kernels/cuda_raii.h"
#include "kernels/device_kernels.cuh"

namespace streamlab {

ClockOffset CalibrateGlobalTimer(int device, const std::function<int64_t()>& host_now) {
  constexpr int kRounds = 64;
  constexpr int64_t kRoundTimeoutNs = 1'000'000'000;
  SL_CUDA(cudaSetDevice(device));
  void* flag_mem = nullptr;
  void* stamp_mem = nullptr;
  SL_CUDA(cudaHostAlloc(&flag_mem, 4 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
  PinnedMemory flags_owner(flag_mem);
  SL_CUDA(cudaHostAlloc(&stamp_mem, kRounds * sizeof(uint64_t), cudaHostAllocMapped | cudaHostAllocPortable));
  PinnedMemory stamps_owner(stamp_mem);
  volatile int* flags = static_cast<volatile int*>(flag_mem);
  volatile uint64_t* stamps = static_cast<volatile uint64_t*>(stamp_mem);
  for (int i = 0; i < 4; ++i) flags[i] = 0;

  cudaStream_t raw = nullptr;
  SL_CUDA(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
  OwnedStream stream(raw);
  // Launch from a helper thread: under CUDA_LAUNCH_BLOCKING=1 the launch itself waits for
  // the kernel, which waits for this thread's pings (measured: a deadlock otherwise).
  cudaError_t launch_error = cudaSuccess;
  std::thread launcher([&] {
    launch_error = cudaSetDevice(device);
    if (launch_error == cudaSuccess) launch_error = LaunchClockPingPong(flags, stamps, kRounds, stream.get());
    if (launch_error != cudaSuccess) flags[3] = 1;  // tell the pinging thread to stop
  });
  struct Joiner {
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{launcher};

  ClockOffset best;
  int64_t best_rtt = std::numeric_limits<int64_t>::max();
  for (int r = 0; r < kRounds; ++r) {
    int64_t t0 = host_now();
    flags[0] = r + 1;
    while (flags[1] != r + 1) {
      if (flags[3]) break;  // the launch failed; reported below
      if (host_now() - t0 > kRoundTimeoutNs) {
        flags[2] = 1;  // release the kernel
        (void)cudaStreamSynchronize(stream.get());
        throw RunError("clock calibration: the GPU did not answer within 1 s");
      }
    }
    if (flags[3]) break;
    int64_t t1 = host_now();
    if (t1 - t0 < best_rtt) {
      best_rtt = t1 - t0;
      best.offset = static_cast<int64_t>(stamps[r]) - (t0 + t1) / 2;
      best.error = (t1 - t0 + 1) / 2;
    }
  }
  if (flags[3]) {
    launcher.join();
    CheckCuda(launch_error, "LaunchClockPingPong(flags, stamps, rounds, stream)", __FILE__, __LINE__);
  }
  SL_CUDA(cudaStreamSynchronize(stream.get()));
  return best;
}

}  // namespace streamlab
