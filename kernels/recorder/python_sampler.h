// Where a Python program's main thread spent its time outside CUDA: while it has been out of
// CUDA calls for a while (200 us by default), a thread of the recorder reads its Python stack
// every so often (1 ms), as a sampling profiler does, but only in the stretches that can leave
// the GPU waiting. Each sample is a "py_sample" line (the thread, the time, the stack's id); the
// conversion makes consecutive samples at one stack a range of that stack's frames
// (engine/ingest/python_traceback.h), so the analysis places host work at the function that
// spent it. Only the main thread is sampled: its Python state lives as long as the interpreter,
// where another thread's may be freed as it ends. Nothing here includes CUDA.
#pragma once

#include <cstdint>

namespace streamlab::recorder {

// Starts the sampler (STREAMLAB_RECORD_SAMPLE_US sets its period, 0 = off;
// STREAMLAB_RECORD_SAMPLE_AFTER_US the time out of CUDA before it samples); `now` reads the
// clock the calls are stamped with. False when it is off.
bool StartPythonSampler(uint64_t (*now)());

// Called at every call's entry and exit on any thread (the main thread's are kept): whether
// the thread is inside a CUDA call, and when it left the last one.
void NoteCallEntry();
void NoteCallExit();

// Stops the sampler and writes how many samples it took and what they cost (at exit).
void StopPythonSampler();

// In a fatal signal's handler: true when the fault came from a sample being read on the
// sampler's thread; the read is then abandoned (this does not return) and dropped; after 16
// such faults sampling stops.
// `rearm` puts the recorder's handler back for that signal first.
void EscapeFaultInSample(int sig, void (*rearm)(int sig));

}  // namespace streamlab::recorder
