// The device addresses one kernel launch was handed, as the recorder reads them from its
// arguments (launch_memory.h): plain data, so that what reads them needs no CUDA header.
#pragma once

#include <cstdint>

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

}  // namespace streamlab::recorder
