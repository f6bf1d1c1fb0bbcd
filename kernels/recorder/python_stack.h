// The Python stack of the thread making a CUDA call, for programs CPython runs (PyTorch): the
// line of the program that synchronized, copied or allocated. Read with CPython's own
// crash-report dumper (_Py_DumpTraceback, faulthandler's), which needs neither the GIL nor
// the allocator: PyTorch releases the GIL around its CUDA calls, and taking it back would stall
// the call behind the program's other Python threads. The thread's frames cannot change while
// it is inside the CUDA call. Each distinct stack is written once ("python_stack" lines, read
// by engine/ingest/python_traceback.h); calls carry its id. Nothing here includes CUDA.
#pragma once

#include <cstdint>

namespace streamlab::recorder {

// Looks CPython up in the process once; false for a program CPython does not run, or under
// STREAMLAB_RECORD_PYTHON=0.
bool PythonStacksAvailable();

// The calling thread's stack, interned: its id (> 0), or 0 when the thread runs no Python or has
// no Python frame, the interpreter is not running, or the time budget is spent: reading stacks
// may take at most 1 % of the time that passes (STREAMLAB_RECORD_PYTHON_BUDGET, in percent), in
// bursts of 5 ms.
uint32_t CapturePythonStack();

// CPython's state of the calling thread (nullptr when it runs no Python), for a reader on
// another thread (python_sampler.h). It lives as long as the thread does in the interpreter.
void* ThisThreadPythonState();

// `state`'s stack read from another thread while its thread runs (python_sampler.h), interned
// as CapturePythonStack's are; 0 when CPython is not running or the stack has no frame. Outside
// the calls' time budget: the sampler keeps its own rate. CPython's dumper reads the frames
// without a lock, as faulthandler's watchdog does; the sampler guards the read against a fault.
uint32_t SamplePythonStack(void* state);

// Empties this thread's dump pipe of what a read abandoned midway (a fault) left in it.
void DiscardUnreadStack();

// Whether the last stack this thread read had no Python frame (none is kept then).
bool LastStackWasFrameless();

// Writes the stacks first seen since the last call (the log writer's work before each drain).
void WritePythonStacks(bool from_signal);

// How many stacks were read, how many calls went without for the budget, and their cost.
void WritePythonStackCounts();

}  // namespace streamlab::recorder
