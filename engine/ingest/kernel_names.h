// Kernel names as people read them: "at::native::vectorized_elementwise_kernel" from the
// mangled or demangled name a recording or a torch.profiler trace gives.
#pragma once

#include <string>

namespace streamlab {

// Demangled, without return type, template arguments or parameters; `full` gets the whole
// demangled name. A name the demangler refuses keeps its leading names.
std::string ShortKernelName(const std::string& mangled, std::string* full = nullptr);

}  // namespace streamlab
