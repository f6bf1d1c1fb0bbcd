// Facts about a recorded or imported program that every stage reads the same way: whether it is
// a Python program (its advice then speaks PyTorch), and which call created its CUDA context.
#pragma once

#include "engine/trace/trace.h"

namespace streamlab {

// A Python program: its trace holds Python frames or PyTorch's profiler ranges, or the recorded
// command ran python. Its advice speaks PyTorch; a CUDA C++ program's does not.
bool IsPythonProgram(const Trace& trace);

// The call CUDA created the (first) context in: recorded (CUPTI's callback), or else inferred
// (`*inferred`) as the first call of 10 ms or more before any GPU work; -1 if neither. A
// program's first call that needs a context pays for creating it, however cheap the call.
int ContextCreationCall(const Trace& trace, bool* inferred);

}  // namespace streamlab
