// Which of a recorded kernel's arguments it is known to write, from the code of the library
// that wrote the kernel. A recorder sees only that an address was handed to a kernel, not
// whether the kernel reads or writes it; for a few of PyTorch's kernels the source says:
// TensorIterator kernels take their outputs first, softmax forward takes (output, input, ...),
// and the foreach and fused-optimizer kernels (multi_tensor_apply) take tensor lists, one of
// which (the functor's result list; a fused optimizer's parameters) they write. A race one of
// whose sides is known to write leads the verdict (correctness before speed); any other
// kernel's argument stays "handed", and such a race a note.
#pragma once

#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

// For each of op.addresses, whether the kernel is known to write there (all false for an op
// that is not a kernel or a kernel the table does not know).
std::vector<bool> KnownKernelWrites(const Op& op);

// A foreach or fused-optimizer kernel (multi_tensor_apply): it updates tensors the program
// keeps (parameters, optimizer state) in place, rather than filling new memory.
bool IsTensorListKernel(const Op& op);

// For tests: the foreach layout read from a multi_tensor_apply kernel's full name.
struct TensorListLayout {
  int lists = 0;             // tensor lists (the metadata's depth), 0 = not a known layout
  int slots = 0;             // tensors per list (the struct's addresses[lists][slots])
  std::vector<int> written;  // the lists it writes
};
TensorListLayout TensorListLayoutOf(const std::string& function);

}  // namespace streamlab
