// Which device memory a kernel launch was handed. The recorder keeps a table of the
// program's device memory (cudaMalloc, cuMemAlloc, cudaMallocAsync, pools, pitched and managed
// memory, and ranges mapped with cuMemMap, as PyTorch's expandable segments use) and
// on each launch reads the kernel's arguments word by word (their sizes from
// cuFuncGetParamInfo), keeping the words that point into an allocation. An argument says
// which memory a kernel may touch, not whether it reads or writes it, nor how far past the
// address it goes; the conversion and the findings say so.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "kernels/recorder/call_log.h"
#include "kernels/recorder/launch_addresses.h"

namespace streamlab::recorder {

// Finds cuFuncGetParamInfo / cuKernelGetParamInfo (CUDA 12.4 drivers and later). False when
// this driver has neither: launches are then recorded without their addresses.
bool StartLaunchMemory();
// The device allocations: added on a successful allocation's exit, removed on a free's.
void AddAllocation(uint64_t base, uint64_t bytes);
void RemoveAllocation(uint64_t base);
// cuMemUnmap: every part of [base, base + bytes) leaves the table (a mapping may be unmapped
// piece by piece, or several at once).
void RemoveRange(uint64_t base, uint64_t bytes);
// The addresses among a launch's arguments, given as cuLaunchKernel takes them: `params`
// (one pointer per parameter, sizes from the function) or `extra` (a packed buffer).
void ReadLaunchAddresses(CUfunction function, void** params, void** extra, LaunchAddresses& out);
// True while the recorder itself is in a driver call (its own calls are not the program's).
bool InRecorderCall();
// Puts a launch's addresses (in the order of their offsets) in its record `r`: the first 8 in
// r.args and r.arg_offsets, the rest in launch_args
// records appended now under r.correlation (and `node`, for a graph's kernel node).
void KeepLaunchAddresses(const LaunchAddresses& a, CallRecord& r, uint64_t node = 0);

}  // namespace streamlab::recorder
