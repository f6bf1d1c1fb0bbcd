// What a run leaves in its checked buffers, so a lab can show a data race's wrong result.
// Every op's effect on a checked buffer is modelled on 32-bit elements, exactly as the GPU
// kernels in kernels/device_kernels.cu do it:
//   memset v            -> every element = v repeated in each byte
//   copy                -> the source's elements
//   spin kernel R -> W  -> W[j] = R[j % |R|] + 1 (no read buffer: 1), read and written at
//                          the kernel's end, after it has spun
//   atomic kernel -> W  -> the elements' sum grows by grid * block * work
// The expected contents apply the ops in program order (what the program means); a run's
// contents apply them in the order they finished. A race shows as the two disagreeing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace streamlab {

struct Contents {
  enum class State { kUnknown, kUniform, kSum };
  State state = State::kUniform;
  uint32_t value = 0;    // kUniform: every element
  uint64_t sum = 0;      // kSum: the sum of all elements (mod 2^64)
  uint64_t elements = 0;
};

// The contents of every checked storage (indexed by buffer; non-storage entries unused)
// after applying `order`'s ops. Storages start zeroed: executors zero them before a run.
std::vector<Contents> ApplyOps(const Scenario& scenario, const std::vector<int>& order);
std::vector<Contents> ProgramOrderContents(const Scenario& scenario);
// Ops in the order their GPU work finished (ties in program order).
std::vector<int> CompletionOrder(const Trace& trace);

// "all 1048576 elements = 2", "element sum 8192", "not modelled".
std::string Describe(const Contents& contents);
// Compares read-back elements with what program order gives.
BufferCheck CheckElements(const std::string& buffer, const Contents& expected,
                          const std::vector<uint32_t>& elements);
// The checks of a run whose program saved each checked storage's bytes as DIR/<buffer index>.bin
// (the PyTorch backend's programs do); a storage with no such file gets a note, not a check.
std::vector<BufferCheck> SavedContentsChecks(const Scenario& scenario, const std::string& dir,
                                             std::vector<TraceNote>& notes);
// The simulator's checks: program order against completion order, one per checked storage.
std::vector<BufferCheck> SimulatedChecks(const Trace& trace);

// The check of `buffer` in the trace (matched by name), or null.
const BufferCheck* FindCheck(const Trace& trace, const std::string& buffer);

}  // namespace streamlab
