// Which CUDA API calls the recorder subscribes, and what each one means for the program's
// streams: its Role and the arguments kept (which stream, which event, flags, sizes). The
// callback side (cupti_hooks.cpp) asks here; nothing here keeps state.
#pragma once

#include <cupti.h>

#include <span>

#include "kernels/recorder/call_log.h"
#include "kernels/recorder/launch_memory.h"

namespace streamlab::recorder {

// The call's role, with its arguments copied into `r` (runtime / driver API).
Role RuntimeRole(CUpti_CallbackId id, const CUpti_CallbackData* d, CallRecord& r);
Role DriverRole(CUpti_CallbackId id, const CUpti_CallbackData* d, CallRecord& r);
// What a call created (stream, event, pointer), read on its exit.
void ReadOutputs(const CUpti_CallbackData* d, CallRecord& r);
// The device of the context a call was made in (-1: none yet), remembered per thread.
int8_t ContextDevice(CUcontext context);
// Calls whose stream no activity record names: only these pay for cuptiGetStreamIdEx.
bool NeedsStreamId(Role role);
// A _ptsz / _ptds variant: stream 0 there means cudaStreamPerThread.
bool IsPerThreadVariant(const char* name);
// Follows the program's device allocations (launch_memory.h); call on a successful exit.
void TrackAllocations(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d);
// A driver launch's addresses (cuLaunchKernel, cuLaunchKernelEx); false for any other call.
bool ReadDriverLaunch(CUpti_CallbackId id, const CUpti_CallbackData* d, LaunchAddresses& out);
// A call that may change a graph after it was captured or built (cudaGraphExecUpdate,
// cudaGraph*SetParams, cudaGraphAddChildGraphNode, ...; found by name).
bool IsGraphEdit(bool runtime, CUpti_CallbackId id);
// A copy from device memory to device memory (cudaMemcpy*(..., cudaMemcpyDeviceToDevice),
// cuMemcpyDtoD*): read from the arguments at the call's entry.
bool CopiesOnDevice(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d);
// A call whose kind (engine/ingest/host_call_kinds.h, by its name) is not "other": logged however
// short it took (cudaStreamBeginCapture, cudaGraphExecUpdate, cudaGraphDestroy take 0.4-2 us).
bool KeptHoweverShort(bool runtime, CUpti_CallbackId id);
// +1 for a profiler start call, -1 for a stop, 0 for any other.
int ProfilerControl(bool runtime, CUpti_CallbackId id);

// The calls subscribed while recording, and while waiting for a capture range to start.
std::span<const CUpti_CallbackId> RuntimeCalls();
std::span<const CUpti_CallbackId> DriverCalls();
std::span<const CUpti_CallbackId> WaitingRuntimeCalls();
std::span<const CUpti_CallbackId> WaitingDriverCalls();

}  // namespace streamlab::recorder
