// The environment settings a recording keeps, read inside the recorded process when it
// initialised CUDA (the recorder's "env" line): the table the recorder writes from and the
// conversion reads, so a program that sets CUDA_DEVICE_MAX_CONNECTIONS in its own code is
// explained with its own value, not the default.
#pragma once

namespace streamlab {

inline constexpr const char* kRecordedSettings[] = {
    "CUDA_DEVICE_MAX_CONNECTIONS",  // hardware queues per device (default 8)
    "CUDA_MODULE_LOADING",          // LAZY (default since CUDA 12.2) or EAGER
    "CUDA_LAUNCH_BLOCKING",         // 1: every launch waits for its kernel
    "CUDA_VISIBLE_DEVICES",
    "CUDA_SCALE_LAUNCH_QUEUES",
    "PYTORCH_CUDA_ALLOC_CONF",      // the caching allocator's settings (expandable_segments, backend)
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_NO_CUDA_MEMORY_CACHING",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    "NCCL_NVLS_ENABLE",
    "NCCL_P2P_DISABLE",
    "OMP_NUM_THREADS",
};

}  // namespace streamlab
