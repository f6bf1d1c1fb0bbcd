// The lines of a recorder log that describe the process rather than its calls: its meta line
// (pid, rank in a distributed job, start time) and CUPTI-clock/host-clock pairs, with which
// `record` puts several processes' logs on one timeline.
#pragma once

namespace streamlab::recorder {

// The process's rank in a distributed job (torchrun and MPI launchers set it), or -1.
int Rank();
// Writes the meta line: the log's format, `pid`, Rank() and CUPTI's time now.
void WriteMeta(int pid);
// Writes a pair of CUPTI's clock and CLOCK_MONOTONIC read together (at the start, and again
// at the end to show their drift).
void WriteClockPair();
// Writes the settings CUDA and PyTorch read from the process's environment (CUDA_DEVICE_MAX_-
// CONNECTIONS, CUDA_MODULE_LOADING, ...), as the program itself sees them when it initialises
// CUDA: a program may set them in its own code (os.environ, setenv) before its first CUDA call.
void WriteSettings();

}  // namespace streamlab::recorder
