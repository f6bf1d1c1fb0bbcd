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

namespace streamlab::recorder {

// The most addresses kept per launch; a launch with more says so. A record holds 8
// (CallRecord::args) and the rest follow in launch_args records: PyTorch's foreach kernels,
// which optimizer.step() runs, are handed up to about 160 tensors in one launch (H100, AdamW).
constexpr int kMaxLaunchAddresses = 256;

struct LaunchAddresses {
  uint64_t at[kMaxLaunchAddresses];  // the first `count` are set (not zeroed: read per launch)
  // Where each was read: its byte offset in the launch's argument block (the first time it
  // appears there). A library's kernel says which part of its arguments it writes (PyTorch's
  // foreach kernels: one tensor list of several); the analysis needs the place, not the order.
  uint16_t offset[kMaxLaunchAddresses];
  int count = 0;
  bool more = false;  // more distinct addresses than were kept
};

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
