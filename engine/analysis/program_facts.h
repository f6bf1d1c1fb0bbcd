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
// With `process` >= 0, that process's own (each process of a recording creates one).
int ContextCreationCall(const Trace& trace, bool* inferred, int process = -1);

// When CUDA's start-up ended for `process` (-1: the first process): the return of the call
// that created its context; -1 without one. A run without steps is judged from there on (the
// context's creation is said apart, as a one-off every process pays).
TimeNs StartupEnd(const Trace& trace, int process = -1);

}  // namespace streamlab
