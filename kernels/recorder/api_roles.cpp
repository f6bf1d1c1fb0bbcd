// The recorder's table of CUDA API calls: which runtime and driver calls are subscribed, and
// for each one its Role and the arguments that decide ordering. Parameter structs come from
// CUPTI's generated headers (the same layout the driver hands the callback).
#include "kernels/recorder/api_roles.h"

#include "kernels/recorder/graph_build.h"
#include "engine/ingest/host_call_kinds.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace streamlab::recorder {
namespace {

uint64_t H(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Calls that may give a captured graph's nodes other arguments or edges than its capture did
// (cudaGraphExecUpdate, cudaGraphExecKernelNodeSetParams, cudaGraphAddDependencies,
// cudaStreamUpdateCaptureDependencies, capturing into an existing graph, ...). Found by name,
// so that every variant and every later version's calls count.
bool IsGraphEditName(const char* name) {
  if (!name) return false;
  auto starts = [&](const char* prefix) { return std::strncmp(name, prefix, std::strlen(prefix)) == 0; };
  auto has = [&](const char* part) { return std::strstr(name, part) != nullptr; };
  if (starts("cudaGraphics") || starts("cuGraphics")) return false;  // graphics interop, not graphs
  if (starts("cudaGraph") || starts("cuGraph"))
    return has("Add") || has("Set") || has("Update") || has("Remove") || has("DestroyNode");
  return has("UpdateCaptureDependencies") || has("BeginCaptureToGraph");
}

std::vector<CUpti_CallbackId> GraphEditCallsOf(CUpti_CallbackDomain domain, CUpti_CallbackId end) {
  std::vector<CUpti_CallbackId> ids;
  for (CUpti_CallbackId id = 1; id < end; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) == CUPTI_SUCCESS && IsGraphEditName(name)) ids.push_back(id);
  }
  return ids;  // ascending: IsGraphEdit searches it
}

const std::vector<CUpti_CallbackId>& GraphEditCalls(bool runtime) {
  static const std::vector<CUpti_CallbackId> runtime_calls =
      GraphEditCallsOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
  static const std::vector<CUpti_CallbackId> driver_calls =
      GraphEditCallsOf(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
  return runtime ? runtime_calls : driver_calls;
}

Role OtherOrGraphEdit(bool runtime, CUpti_CallbackId id) {
  if (IsGraphBuildCall(runtime, id)) return Role::kGraphBuild;  // a subset of the edit names
  return IsGraphEdit(runtime, id) ? Role::kGraphEdit : Role::kOther;
}

}  // namespace

bool IsGraphEdit(bool runtime, CUpti_CallbackId id) {
  const std::vector<CUpti_CallbackId>& edits = GraphEditCalls(runtime);
  return std::binary_search(edits.begin(), edits.end(), id);
}

namespace {

// A copy's or memset's addresses (the destination first), for the race check.
void Ends(CallRecord& r, uint64_t dst, uint64_t src = 0) {
  r.args[0] = dst;
  r.args[1] = src;
  r.nargs = src ? 2 : 1;
}

}  // namespace

#define SL_P(type) const auto* p = static_cast<const type##_params*>(d->functionParams)

// [SECTION] runtime API: which calls matter and their arguments ---------------------------

#define SL_RT(name) CUPTI_RUNTIME_TRACE_CBID_##name

Role RuntimeRole(CUpti_CallbackId id, const CUpti_CallbackData* d, CallRecord& r) {
  switch (id) {
    case SL_RT(cudaLaunchKernel_v7000): case SL_RT(cudaLaunchKernel_ptsz_v7000): {
      SL_P(cudaLaunchKernel_v7000); r.stream = H(p->stream); return Role::kLaunch; }
    case SL_RT(cudaLaunchKernelExC_v11060): case SL_RT(cudaLaunchKernelExC_ptsz_v11060): {
      SL_P(cudaLaunchKernelExC_v11060); r.stream = p->config ? H(p->config->stream) : 0; return Role::kLaunch; }
    case SL_RT(cudaLaunchCooperativeKernel_v9000): case SL_RT(cudaLaunchCooperativeKernel_ptsz_v9000): {
      SL_P(cudaLaunchCooperativeKernel_v9000); r.stream = H(p->stream); return Role::kLaunch; }
    case SL_RT(cudaGraphLaunch_v10000): case SL_RT(cudaGraphLaunch_ptsz_v10000): {
      SL_P(cudaGraphLaunch_v10000); r.stream = H(p->stream); r.exec = H(p->graphExec); return Role::kGraphLaunch; }
    case SL_RT(cudaStreamCreate_v3020): return Role::kStreamCreate;
    case SL_RT(cudaStreamCreateWithFlags_v5000): {
      SL_P(cudaStreamCreateWithFlags_v5000); r.flags = static_cast<int32_t>(p->flags); return Role::kStreamCreate; }
    case SL_RT(cudaStreamCreateWithPriority_v5050): {
      SL_P(cudaStreamCreateWithPriority_v5050);
      r.flags = static_cast<int32_t>(p->flags);
      r.priority = p->priority;
      return Role::kStreamCreate;
    }
    case SL_RT(cudaStreamDestroy_v3020): case SL_RT(cudaStreamDestroy_v5050): {
      SL_P(cudaStreamDestroy_v5050); r.stream = H(p->stream); return Role::kStreamDestroy; }
    case SL_RT(cudaEventCreate_v3020): return Role::kEventCreate;
    case SL_RT(cudaEventCreateWithFlags_v3020): {
      SL_P(cudaEventCreateWithFlags_v3020); r.flags = static_cast<int32_t>(p->flags); return Role::kEventCreate; }
    case SL_RT(cudaEventDestroy_v3020): {
      SL_P(cudaEventDestroy_v3020); r.event = H(p->event); return Role::kEventDestroy; }
    case SL_RT(cudaEventRecord_v3020): case SL_RT(cudaEventRecord_ptsz_v7000): {
      SL_P(cudaEventRecord_v3020); r.event = H(p->event); r.stream = H(p->stream); return Role::kRecord; }
    case SL_RT(cudaEventRecordWithFlags_v11010): case SL_RT(cudaEventRecordWithFlags_ptsz_v11010): {
      SL_P(cudaEventRecordWithFlags_v11010); r.event = H(p->event); r.stream = H(p->stream); return Role::kRecord; }
    case SL_RT(cudaStreamWaitEvent_v3020): case SL_RT(cudaStreamWaitEvent_ptsz_v7000): {
      SL_P(cudaStreamWaitEvent_v3020);
      r.stream = H(p->stream);
      r.event = H(p->event);
      r.flags = static_cast<int32_t>(p->flags);
      return Role::kWaitEvent;
    }
    case SL_RT(cudaDeviceSynchronize_v3020): return Role::kSyncDevice;
    case SL_RT(cudaStreamSynchronize_v3020): case SL_RT(cudaStreamSynchronize_ptsz_v7000): {
      SL_P(cudaStreamSynchronize_v3020); r.stream = H(p->stream); return Role::kSyncStream; }
    case SL_RT(cudaEventSynchronize_v3020): {
      SL_P(cudaEventSynchronize_v3020); r.event = H(p->event); return Role::kSyncEvent; }
    case SL_RT(cudaEventQuery_v3020): {
      SL_P(cudaEventQuery_v3020); r.event = H(p->event); return Role::kQueryEvent; }
    case SL_RT(cudaStreamQuery_v3020): case SL_RT(cudaStreamQuery_ptsz_v7000): {
      SL_P(cudaStreamQuery_v3020); r.stream = H(p->stream); return Role::kQueryStream; }
    case SL_RT(cudaMalloc_v3020): { SL_P(cudaMalloc_v3020); r.size = p->size; return Role::kMalloc; }
    case SL_RT(cudaFree_v3020): { SL_P(cudaFree_v3020); r.out = H(p->devPtr); return Role::kFree; }
    case SL_RT(cudaMallocHost_v3020): { SL_P(cudaMallocHost_v3020); r.size = p->size; return Role::kMallocHost; }
    case SL_RT(cudaHostAlloc_v3020): {
      SL_P(cudaHostAlloc_v3020); r.size = p->size; r.flags = static_cast<int32_t>(p->flags); return Role::kMallocHost; }
    case SL_RT(cudaHostRegister_v4000): {
      SL_P(cudaHostRegister_v4000); r.out = H(p->ptr); r.size = p->size; return Role::kHostRegister; }
    case SL_RT(cudaFreeHost_v3020): { SL_P(cudaFreeHost_v3020); r.out = H(p->ptr); return Role::kFreeHost; }
    // Stream-ordered memory: a block freed on one stream and handed to another orders the two
    // (the engine's happens-before), so the stream and the pointer are logged (out is read at
    // the call's exit, when this runs).
    case SL_RT(cudaMallocAsync_v11020): case SL_RT(cudaMallocAsync_ptsz_v11020): {
      SL_P(cudaMallocAsync_v11020);
      r.size = p->size;
      r.stream = H(p->hStream);
      if (p->devPtr) r.out = H(*p->devPtr);
      return Role::kMallocAsync;
    }
    case SL_RT(cudaMallocFromPoolAsync_v11020): case SL_RT(cudaMallocFromPoolAsync_ptsz_v11020): {
      SL_P(cudaMallocFromPoolAsync_v11020);
      r.size = p->size;
      r.stream = H(p->stream);
      if (p->ptr) r.out = H(*p->ptr);
      return Role::kMallocAsync;
    }
    case SL_RT(cudaFreeAsync_v11020): case SL_RT(cudaFreeAsync_ptsz_v11020): {
      SL_P(cudaFreeAsync_v11020); r.out = H(p->devPtr); r.stream = H(p->hStream); return Role::kFreeAsync; }
    case SL_RT(cudaMemcpy_v3020): case SL_RT(cudaMemcpy_ptds_v7000): {
      SL_P(cudaMemcpy_v3020);
      r.size = p->count;
      r.value = static_cast<int32_t>(p->kind);
      Ends(r, H(p->dst), H(p->src));
      return Role::kMemcpy;
    }
    case SL_RT(cudaMemcpyAsync_v3020): case SL_RT(cudaMemcpyAsync_ptsz_v7000): {
      SL_P(cudaMemcpyAsync_v3020);
      r.size = p->count;
      r.value = static_cast<int32_t>(p->kind);
      r.stream = H(p->stream);
      Ends(r, H(p->dst), H(p->src));
      return Role::kMemcpyAsync;
    }
    // Pitched and symbol copies: their bytes and kind. Their ends are not logged: a pitched
    // copy touches rows, not the range from its start, and a symbol's address is the host's
    // handle of it, so the race check leaves them out rather than compare a wrong range.
    case SL_RT(cudaMemcpy2D_v3020): case SL_RT(cudaMemcpy2D_ptds_v7000): {
      SL_P(cudaMemcpy2D_v3020); r.size = p->width * p->height; r.value = static_cast<int32_t>(p->kind); return Role::kMemcpy; }
    case SL_RT(cudaMemcpy2DAsync_v3020): case SL_RT(cudaMemcpy2DAsync_ptsz_v7000): {
      SL_P(cudaMemcpy2DAsync_v3020);
      r.size = p->width * p->height;
      r.value = static_cast<int32_t>(p->kind);
      r.stream = H(p->stream);
      return Role::kMemcpyAsync;
    }
    case SL_RT(cudaMemcpyToSymbol_v3020): case SL_RT(cudaMemcpyToSymbol_ptds_v7000): {
      SL_P(cudaMemcpyToSymbol_v3020); r.size = p->count; r.value = static_cast<int32_t>(p->kind); return Role::kMemcpy; }
    case SL_RT(cudaMemcpyFromSymbol_v3020): case SL_RT(cudaMemcpyFromSymbol_ptds_v7000): {
      SL_P(cudaMemcpyFromSymbol_v3020); r.size = p->count; r.value = static_cast<int32_t>(p->kind); return Role::kMemcpy; }
    case SL_RT(cudaMemcpyToSymbolAsync_v3020): case SL_RT(cudaMemcpyToSymbolAsync_ptsz_v7000): {
      SL_P(cudaMemcpyToSymbolAsync_v3020);
      r.size = p->count;
      r.value = static_cast<int32_t>(p->kind);
      r.stream = H(p->stream);
      return Role::kMemcpyAsync;
    }
    case SL_RT(cudaMemcpyFromSymbolAsync_v3020): case SL_RT(cudaMemcpyFromSymbolAsync_ptsz_v7000): {
      SL_P(cudaMemcpyFromSymbolAsync_v3020);
      r.size = p->count;
      r.value = static_cast<int32_t>(p->kind);
      r.stream = H(p->stream);
      return Role::kMemcpyAsync;
    }
    case SL_RT(cudaMemset_v3020): case SL_RT(cudaMemset_ptds_v7000): {
      SL_P(cudaMemset_v3020); r.size = p->count; Ends(r, H(p->devPtr)); return Role::kMemset; }
    case SL_RT(cudaMemsetAsync_v3020): case SL_RT(cudaMemsetAsync_ptsz_v7000): {
      SL_P(cudaMemsetAsync_v3020);
      r.size = p->count;
      r.stream = H(p->stream);
      Ends(r, H(p->devPtr));
      return Role::kMemsetAsync;
    }
    case SL_RT(cudaMemcpyPeerAsync_v4000): {
      SL_P(cudaMemcpyPeerAsync_v4000);
      r.size = p->count;
      r.stream = H(p->stream);
      Ends(r, H(p->dst), H(p->src));
      return Role::kPeerCopy;
    }
    case SL_RT(cudaSetDevice_v3020): { SL_P(cudaSetDevice_v3020); r.value = p->device; return Role::kSetDevice; }
    case SL_RT(cudaStreamBeginCapture_v10000): case SL_RT(cudaStreamBeginCapture_ptsz_v10000): {
      SL_P(cudaStreamBeginCapture_v10000); r.stream = H(p->stream); return Role::kBeginCapture; }
    case SL_RT(cudaStreamEndCapture_v10000): case SL_RT(cudaStreamEndCapture_ptsz_v10000): {
      SL_P(cudaStreamEndCapture_v10000); r.stream = H(p->stream); return Role::kEndCapture; }
    default: return OtherOrGraphEdit(true, id);
  }
}

// The per-thread-stream variants: there, stream 0 means cudaStreamPerThread.
bool IsPerThreadVariant(const char* name) {
  return name && (std::strstr(name, "_ptsz") != nullptr || std::strstr(name, "_ptds") != nullptr);
}

// The runtime calls subscribed by default: those RuntimeRole reads, and calls that can hold
// the host long (context creation, device queries, graph instantiation, capture, managed and
// stream-ordered allocation). PyTorch makes thousands of cheap calls per step besides
// (cudaGetDevice, cudaStreamIsCapturing, cudaPeekAtLastError); a callback on each of them
// cost a ResNet-50 step measurably (bench/README.md). STREAMLAB_RECORD_RUNTIME=all
// subscribes every call and keeps those that took at least 2 us. RuntimeCalls() adds, by name,
// every call of a kind the account names (HostCalls below), which are kept however short.
constexpr CUpti_CallbackId kRuntimeCalls[] = {
    SL_RT(cudaLaunchKernel_v7000), SL_RT(cudaLaunchKernel_ptsz_v7000), SL_RT(cudaLaunchKernelExC_v11060),
    SL_RT(cudaLaunchKernelExC_ptsz_v11060), SL_RT(cudaLaunchCooperativeKernel_v9000),
    SL_RT(cudaLaunchCooperativeKernel_ptsz_v9000), SL_RT(cudaGraphLaunch_v10000), SL_RT(cudaGraphLaunch_ptsz_v10000),
    SL_RT(cudaStreamCreate_v3020), SL_RT(cudaStreamCreateWithFlags_v5000), SL_RT(cudaStreamCreateWithPriority_v5050),
    SL_RT(cudaStreamDestroy_v3020), SL_RT(cudaStreamDestroy_v5050), SL_RT(cudaEventCreate_v3020),
    SL_RT(cudaEventCreateWithFlags_v3020), SL_RT(cudaEventDestroy_v3020), SL_RT(cudaEventRecord_v3020),
    SL_RT(cudaEventRecord_ptsz_v7000), SL_RT(cudaEventRecordWithFlags_v11010),
    SL_RT(cudaEventRecordWithFlags_ptsz_v11010), SL_RT(cudaStreamWaitEvent_v3020),
    SL_RT(cudaStreamWaitEvent_ptsz_v7000), SL_RT(cudaDeviceSynchronize_v3020), SL_RT(cudaStreamSynchronize_v3020),
    SL_RT(cudaStreamSynchronize_ptsz_v7000), SL_RT(cudaEventSynchronize_v3020), SL_RT(cudaEventQuery_v3020),
    SL_RT(cudaStreamQuery_v3020), SL_RT(cudaStreamQuery_ptsz_v7000), SL_RT(cudaMalloc_v3020), SL_RT(cudaFree_v3020),
    SL_RT(cudaMallocHost_v3020), SL_RT(cudaHostAlloc_v3020), SL_RT(cudaHostRegister_v4000), SL_RT(cudaFreeHost_v3020),
    SL_RT(cudaMemcpy_v3020), SL_RT(cudaMemcpy_ptds_v7000), SL_RT(cudaMemcpyAsync_v3020),
    SL_RT(cudaMemcpyAsync_ptsz_v7000), SL_RT(cudaMemset_v3020), SL_RT(cudaMemset_ptds_v7000),
    SL_RT(cudaMemsetAsync_v3020), SL_RT(cudaMemsetAsync_ptsz_v7000), SL_RT(cudaMemcpyPeerAsync_v4000),
    SL_RT(cudaSetDevice_v3020),
    // Slow calls that order nothing but hold the host:
    SL_RT(cudaGetDeviceCount_v3020), SL_RT(cudaGetDeviceProperties_v3020), SL_RT(cudaGetDeviceProperties_v12000),
    SL_RT(cudaDeviceGetStreamPriorityRange_v5050), SL_RT(cudaMemGetInfo_v3020), SL_RT(cudaDeviceReset_v3020),
    SL_RT(cudaDeviceSetLimit_v3020), SL_RT(cudaDeviceEnablePeerAccess_v4000), SL_RT(cudaHostUnregister_v4000),
    SL_RT(cudaMallocManaged_v6000), SL_RT(cudaMallocAsync_v11020), SL_RT(cudaFreeAsync_v11020),
    SL_RT(cudaMallocFromPoolAsync_v11020), SL_RT(cudaMallocFromPoolAsync_ptsz_v11020), SL_RT(cudaMallocPitch_v3020),
    SL_RT(cudaMallocAsync_ptsz_v11020), SL_RT(cudaFreeAsync_ptsz_v11020),
    SL_RT(cudaMemPrefetchAsync_v8000), SL_RT(cudaMemcpy2D_v3020), SL_RT(cudaMemcpy2D_ptds_v7000),
    SL_RT(cudaMemcpy2DAsync_v3020), SL_RT(cudaMemcpy2DAsync_ptsz_v7000), SL_RT(cudaMemcpyToSymbol_v3020),
    SL_RT(cudaMemcpyToSymbol_ptds_v7000), SL_RT(cudaMemcpyFromSymbol_v3020), SL_RT(cudaMemcpyFromSymbol_ptds_v7000),
    SL_RT(cudaMemcpyToSymbolAsync_v3020), SL_RT(cudaMemcpyToSymbolAsync_ptsz_v7000),
    SL_RT(cudaMemcpyFromSymbolAsync_v3020), SL_RT(cudaMemcpyFromSymbolAsync_ptsz_v7000), SL_RT(cudaMemcpyPeer_v4000),
    SL_RT(cudaGraphInstantiate_v10000), SL_RT(cudaGraphInstantiateWithFlags_v11040),
    SL_RT(cudaStreamBeginCapture_v10000), SL_RT(cudaStreamBeginCapture_ptsz_v10000), SL_RT(cudaStreamEndCapture_v10000),
    SL_RT(cudaStreamEndCapture_ptsz_v10000), SL_RT(cudaIpcOpenMemHandle_v4010),
    SL_RT(cudaLaunchHostFunc_v10000), SL_RT(cudaStreamAddCallback_v5000)};

// [SECTION] driver API: the calls libraries make directly (cuBLAS, Triton, NCCL) ------------

#define SL_DRV(name) CUPTI_DRIVER_TRACE_CBID_##name

Role DriverRole(CUpti_CallbackId id, const CUpti_CallbackData* d, CallRecord& r) {
  switch (id) {
    case SL_DRV(cuLaunchKernel): case SL_DRV(cuLaunchKernel_ptsz): {
      SL_P(cuLaunchKernel); r.stream = H(p->hStream); return Role::kLaunch; }
    case SL_DRV(cuLaunchKernelEx): case SL_DRV(cuLaunchKernelEx_ptsz): {
      SL_P(cuLaunchKernelEx); r.stream = p->config ? H(p->config->hStream) : 0; return Role::kLaunch; }
    case SL_DRV(cuGraphLaunch): case SL_DRV(cuGraphLaunch_ptsz): {
      SL_P(cuGraphLaunch); r.stream = H(p->hStream); r.exec = H(p->hGraph); return Role::kGraphLaunch; }
    case SL_DRV(cuEventRecord): case SL_DRV(cuEventRecord_ptsz): {
      SL_P(cuEventRecord); r.event = H(p->hEvent); r.stream = H(p->hStream); return Role::kRecord; }
    case SL_DRV(cuEventRecordWithFlags): {
      SL_P(cuEventRecordWithFlags); r.event = H(p->hEvent); r.stream = H(p->hStream); return Role::kRecord; }
    case SL_DRV(cuStreamWaitEvent): case SL_DRV(cuStreamWaitEvent_ptsz): {
      SL_P(cuStreamWaitEvent); r.stream = H(p->hStream); r.event = H(p->hEvent); return Role::kWaitEvent; }
    case SL_DRV(cuStreamSynchronize): case SL_DRV(cuStreamSynchronize_ptsz): {
      SL_P(cuStreamSynchronize); r.stream = H(p->hStream); return Role::kSyncStream; }
    case SL_DRV(cuEventSynchronize): { SL_P(cuEventSynchronize); r.event = H(p->hEvent); return Role::kSyncEvent; }
    case SL_DRV(cuCtxSynchronize): case SL_DRV(cuCtxSynchronize_v2): return Role::kSyncDevice;
    // Stream capture made with the driver API (CuPy, JAX, Numba): its launches build nodes.
    case SL_DRV(cuStreamBeginCapture): case SL_DRV(cuStreamBeginCapture_ptsz): {
      SL_P(cuStreamBeginCapture); r.stream = H(p->hStream); return Role::kBeginCapture; }
    case SL_DRV(cuStreamBeginCapture_v2): case SL_DRV(cuStreamBeginCapture_v2_ptsz): {
      SL_P(cuStreamBeginCapture_v2); r.stream = H(p->hStream); return Role::kBeginCapture; }
    case SL_DRV(cuStreamEndCapture): case SL_DRV(cuStreamEndCapture_ptsz): {
      SL_P(cuStreamEndCapture); r.stream = H(p->hStream); return Role::kEndCapture; }
    case SL_DRV(cuStreamCreate): {
      SL_P(cuStreamCreate); r.flags = static_cast<int32_t>(p->Flags); return Role::kStreamCreate; }
    case SL_DRV(cuStreamCreateWithPriority): {
      SL_P(cuStreamCreateWithPriority);
      r.flags = static_cast<int32_t>(p->flags);
      r.priority = p->priority;
      return Role::kStreamCreate;
    }
    case SL_DRV(cuEventCreate): { SL_P(cuEventCreate); r.flags = static_cast<int32_t>(p->Flags); return Role::kEventCreate; }
    case SL_DRV(cuMemAlloc_v2): { SL_P(cuMemAlloc_v2); r.size = p->bytesize; return Role::kMalloc; }
    case SL_DRV(cuMemFree_v2): { SL_P(cuMemFree_v2); r.out = p->dptr; return Role::kFree; }
    case SL_DRV(cuMemAllocAsync): case SL_DRV(cuMemAllocAsync_ptsz): {
      SL_P(cuMemAllocAsync);
      r.size = p->bytesize;
      r.stream = H(p->hStream);
      if (p->dptr) r.out = *p->dptr;
      return Role::kMallocAsync;
    }
    case SL_DRV(cuMemAllocFromPoolAsync): case SL_DRV(cuMemAllocFromPoolAsync_ptsz): {
      SL_P(cuMemAllocFromPoolAsync);
      r.size = p->bytesize;
      r.stream = H(p->hStream);
      if (p->dptr) r.out = *p->dptr;
      return Role::kMallocAsync;
    }
    case SL_DRV(cuMemFreeAsync): case SL_DRV(cuMemFreeAsync_ptsz): {
      SL_P(cuMemFreeAsync); r.out = p->dptr; r.stream = H(p->hStream); return Role::kFreeAsync; }
    case SL_DRV(cuMemcpyHtoDAsync_v2): {
      SL_P(cuMemcpyHtoDAsync_v2);
      r.size = p->ByteCount;
      r.stream = H(p->hStream);
      Ends(r, p->dstDevice, H(p->srcHost));
      return Role::kMemcpyAsync;
    }
    case SL_DRV(cuMemcpyDtoHAsync_v2): {
      SL_P(cuMemcpyDtoHAsync_v2);
      r.size = p->ByteCount;
      r.stream = H(p->hStream);
      Ends(r, H(p->dstHost), p->srcDevice);
      return Role::kMemcpyAsync;
    }
    case SL_DRV(cuMemcpyDtoDAsync_v2): {
      SL_P(cuMemcpyDtoDAsync_v2);
      r.size = p->ByteCount;
      r.stream = H(p->hStream);
      Ends(r, p->dstDevice, p->srcDevice);
      return Role::kMemcpyAsync;
    }
    case SL_DRV(cuMemcpyAsync): {
      SL_P(cuMemcpyAsync);
      r.size = p->ByteCount;
      r.stream = H(p->hStream);
      Ends(r, p->dst, p->src);
      return Role::kMemcpyAsync;
    }
    case SL_DRV(cuMemcpyHtoD_v2): {
      SL_P(cuMemcpyHtoD_v2); r.size = p->ByteCount; Ends(r, p->dstDevice, H(p->srcHost)); return Role::kMemcpy; }
    case SL_DRV(cuMemcpyDtoH_v2): {
      SL_P(cuMemcpyDtoH_v2); r.size = p->ByteCount; Ends(r, H(p->dstHost), p->srcDevice); return Role::kMemcpy; }
    case SL_DRV(cuMemcpyDtoD_v2): {
      SL_P(cuMemcpyDtoD_v2); r.size = p->ByteCount; Ends(r, p->dstDevice, p->srcDevice); return Role::kMemcpy; }
    default: return OtherOrGraphEdit(false, id);
  }
}

// Driver calls that make or end device memory, followed for the allocation table
// (TrackAllocations) and otherwise logged like any other call.
#define SL_KNOWN_MEMORY_DRIVER_CALLS                                                                          \
  SL_DRV(cuMemAllocAsync), SL_DRV(cuMemAllocAsync_ptsz), SL_DRV(cuMemAllocFromPoolAsync),                     \
      SL_DRV(cuMemAllocFromPoolAsync_ptsz), SL_DRV(cuMemAllocManaged), SL_DRV(cuMemAllocPitch_v2),            \
      SL_DRV(cuMemFreeAsync), SL_DRV(cuMemFreeAsync_ptsz), SL_DRV(cuMemMap), SL_DRV(cuMemUnmap)

// The driver calls DriverRole reads. Only these are subscribed by default: the runtime makes
// dozens of driver calls per runtime call, and a callback on each of them cost a PyTorch
// training step measurably (bench/README.md). STREAMLAB_RECORD_DRIVER=all subscribes all.
constexpr CUpti_CallbackId kDriverCalls[] = {
    SL_DRV(cuLaunchKernel), SL_DRV(cuLaunchKernel_ptsz), SL_DRV(cuLaunchKernelEx), SL_DRV(cuLaunchKernelEx_ptsz),
    SL_DRV(cuGraphLaunch), SL_DRV(cuGraphLaunch_ptsz), SL_DRV(cuEventRecord), SL_DRV(cuEventRecord_ptsz),
    SL_DRV(cuEventRecordWithFlags), SL_DRV(cuStreamWaitEvent), SL_DRV(cuStreamWaitEvent_ptsz),
    SL_DRV(cuStreamSynchronize), SL_DRV(cuStreamSynchronize_ptsz), SL_DRV(cuEventSynchronize),
    SL_DRV(cuCtxSynchronize), SL_DRV(cuCtxSynchronize_v2), SL_DRV(cuStreamCreate), SL_DRV(cuStreamCreateWithPriority), SL_DRV(cuEventCreate),
    SL_DRV(cuMemAlloc_v2), SL_DRV(cuMemFree_v2), SL_DRV(cuMemcpyHtoDAsync_v2), SL_DRV(cuMemcpyDtoHAsync_v2),
    SL_DRV(cuMemcpyDtoDAsync_v2), SL_DRV(cuMemcpyAsync), SL_DRV(cuMemcpyHtoD_v2), SL_DRV(cuMemcpyDtoH_v2),
    SL_DRV(cuMemcpyDtoD_v2), SL_DRV(cuStreamBeginCapture), SL_DRV(cuStreamBeginCapture_ptsz),
    SL_DRV(cuStreamBeginCapture_v2), SL_DRV(cuStreamBeginCapture_v2_ptsz), SL_DRV(cuStreamEndCapture),
    SL_DRV(cuStreamEndCapture_ptsz), SL_KNOWN_MEMORY_DRIVER_CALLS};

// [SECTION] capture range: subscribed while waiting for it, what names a stream's kind, and the range's own controls.
constexpr CUpti_CallbackId kWaitingRuntimeCalls[] = {
    SL_RT(cudaStreamCreate_v3020), SL_RT(cudaStreamCreateWithFlags_v5000), SL_RT(cudaStreamCreateWithPriority_v5050),
    SL_RT(cudaProfilerStart_v4000), SL_RT(cudaProfilerStop_v4000),
    // Allocations made before the range (PyTorch's caching allocator keeps its blocks for the
    // whole run): followed, not logged, so that launches in the range find their memory.
    SL_RT(cudaMalloc_v3020), SL_RT(cudaFree_v3020), SL_RT(cudaMallocManaged_v6000), SL_RT(cudaMallocAsync_v11020),
    SL_RT(cudaFreeAsync_v11020), SL_RT(cudaMallocFromPoolAsync_v11020), SL_RT(cudaMallocFromPoolAsync_ptsz_v11020),
    SL_RT(cudaMallocPitch_v3020), SL_RT(cudaMallocAsync_ptsz_v11020), SL_RT(cudaFreeAsync_ptsz_v11020),
    // A graph captured before the range and replayed in it: while a capture is open every call
    // is logged (cupti_hooks.cpp), so that its replays have their captured addresses and edges.
    SL_RT(cudaStreamBeginCapture_v10000), SL_RT(cudaStreamBeginCapture_ptsz_v10000),
    SL_RT(cudaStreamEndCapture_v10000), SL_RT(cudaStreamEndCapture_ptsz_v10000)};
constexpr CUpti_CallbackId kWaitingDriverCalls[] = {
    SL_DRV(cuStreamCreate), SL_DRV(cuStreamCreateWithPriority), SL_DRV(cuProfilerStart), SL_DRV(cuProfilerStop),
    SL_DRV(cuMemAlloc_v2), SL_DRV(cuMemFree_v2), SL_DRV(cuStreamBeginCapture), SL_DRV(cuStreamBeginCapture_ptsz),
    SL_DRV(cuStreamBeginCapture_v2), SL_DRV(cuStreamBeginCapture_v2_ptsz), SL_DRV(cuStreamEndCapture),
    SL_DRV(cuStreamEndCapture_ptsz), SL_KNOWN_MEMORY_DRIVER_CALLS};

// +1 for a profiler start call, -1 for a stop, 0 for any other.
int ProfilerControl(bool runtime, CUpti_CallbackId id) {
  if (runtime) return id == SL_RT(cudaProfilerStart_v4000) ? 1 : id == SL_RT(cudaProfilerStop_v4000) ? -1 : 0;
  return id == SL_DRV(cuProfilerStart) ? 1 : id == SL_DRV(cuProfilerStop) ? -1 : 0;
}

void ReadOutputs(const CUpti_CallbackData* d, CallRecord& r) {
  if (!d->functionParams) return;
  if (r.domain == 0) {
    switch (r.role) {
      case Role::kStreamCreate: r.stream = H(*static_cast<const cudaStreamCreate_v3020_params*>(d->functionParams)->pStream); break;
      case Role::kEventCreate: r.event = H(*static_cast<const cudaEventCreate_v3020_params*>(d->functionParams)->event); break;
      case Role::kMalloc: r.out = H(*static_cast<const cudaMalloc_v3020_params*>(d->functionParams)->devPtr); break;
      case Role::kMallocHost: r.out = H(*static_cast<const cudaMallocHost_v3020_params*>(d->functionParams)->ptr); break;
      default: break;
    }
  } else {
    switch (r.role) {
      case Role::kStreamCreate: r.stream = H(*static_cast<const cuStreamCreate_params*>(d->functionParams)->phStream); break;
      case Role::kEventCreate: r.event = H(*static_cast<const cuEventCreate_params*>(d->functionParams)->phEvent); break;
      case Role::kMalloc: r.out = *static_cast<const cuMemAlloc_v2_params*>(d->functionParams)->dptr; break;
      default: break;
    }
  }
}

// A thread makes call after call in one context: the lookup is paid when it changes.
int8_t ContextDevice(CUcontext context) {
  thread_local CUcontext last = nullptr;
  thread_local int8_t device = -1;
  if (!context) return -1;
  if (context != last) {
    uint32_t id = 0;
    device = cuptiGetDeviceId(context, &id) == CUPTI_SUCCESS && id < 64 ? static_cast<int8_t>(id) : -1;
    last = context;
  }
  return device;
}

// Calls whose stream has no activity record to name it (kernels, copies and memsets get
// their CUPTI stream id from their activity): only these pay for cuptiGetStreamIdEx.
bool NeedsStreamId(Role role) {
  switch (role) {
    case Role::kGraphLaunch: case Role::kStreamCreate: case Role::kRecord: case Role::kWaitEvent:
    case Role::kSyncStream: case Role::kQueryStream: case Role::kBeginCapture: case Role::kEndCapture:
    case Role::kMallocAsync: case Role::kFreeAsync: return true;
    default: return false;
  }
}

// [SECTION] memory: allocations, and a driver launch's arguments -------------------------------

void TrackAllocations(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d) {
  if (!d->functionParams) return;
  if (runtime) {
    switch (id) {
      case SL_RT(cudaMalloc_v3020): { SL_P(cudaMalloc_v3020); if (p->devPtr) AddAllocation(H(*p->devPtr), p->size); return; }
      case SL_RT(cudaMallocManaged_v6000): {
        SL_P(cudaMallocManaged_v6000); if (p->devPtr) AddAllocation(H(*p->devPtr), p->size); return; }
      case SL_RT(cudaMallocAsync_v11020): case SL_RT(cudaMallocAsync_ptsz_v11020): {
        SL_P(cudaMallocAsync_v11020); if (p->devPtr) AddAllocation(H(*p->devPtr), p->size); return; }
      case SL_RT(cudaMallocFromPoolAsync_v11020): case SL_RT(cudaMallocFromPoolAsync_ptsz_v11020): {
        SL_P(cudaMallocFromPoolAsync_v11020); if (p->ptr) AddAllocation(H(*p->ptr), p->size); return; }
      case SL_RT(cudaMallocPitch_v3020): {
        SL_P(cudaMallocPitch_v3020);
        if (p->devPtr && p->pitch) AddAllocation(H(*p->devPtr), *p->pitch * p->height);
        return;
      }
      case SL_RT(cudaFree_v3020): { SL_P(cudaFree_v3020); RemoveAllocation(H(p->devPtr)); return; }
      case SL_RT(cudaFreeAsync_v11020): case SL_RT(cudaFreeAsync_ptsz_v11020): {
        SL_P(cudaFreeAsync_v11020); RemoveAllocation(H(p->devPtr)); return; }
      default: return;
    }
  }
  switch (id) {
    case SL_DRV(cuMemAlloc_v2): { SL_P(cuMemAlloc_v2); if (p->dptr) AddAllocation(*p->dptr, p->bytesize); return; }
    case SL_DRV(cuMemFree_v2): { SL_P(cuMemFree_v2); RemoveAllocation(p->dptr); return; }
    case SL_DRV(cuMemAllocAsync): case SL_DRV(cuMemAllocAsync_ptsz): {
      SL_P(cuMemAllocAsync); if (p->dptr) AddAllocation(*p->dptr, p->bytesize); return; }
    case SL_DRV(cuMemAllocFromPoolAsync): case SL_DRV(cuMemAllocFromPoolAsync_ptsz): {
      SL_P(cuMemAllocFromPoolAsync); if (p->dptr) AddAllocation(*p->dptr, p->bytesize); return; }
    case SL_DRV(cuMemAllocManaged): { SL_P(cuMemAllocManaged); if (p->dptr) AddAllocation(*p->dptr, p->bytesize); return; }
    case SL_DRV(cuMemAllocPitch_v2): {
      SL_P(cuMemAllocPitch_v2); if (p->dptr && p->pPitch) AddAllocation(*p->dptr, *p->pPitch * p->Height); return; }
    case SL_DRV(cuMemFreeAsync): case SL_DRV(cuMemFreeAsync_ptsz): { SL_P(cuMemFreeAsync); RemoveAllocation(p->dptr); return; }
    // Virtual memory management (PyTorch's expandable segments): a reserved range becomes
    // memory as pieces of it are mapped, and stops being memory as they are unmapped.
    case SL_DRV(cuMemMap): { SL_P(cuMemMap); AddAllocation(p->ptr, p->size); return; }
    case SL_DRV(cuMemUnmap): { SL_P(cuMemUnmap); RemoveRange(p->ptr, p->size); return; }
    default: return;
  }
}

bool ReadDriverLaunch(CUpti_CallbackId id, const CUpti_CallbackData* d, LaunchAddresses& out) {
  if (!d->functionParams) return false;
  switch (id) {
    case SL_DRV(cuLaunchKernel): case SL_DRV(cuLaunchKernel_ptsz): {
      SL_P(cuLaunchKernel); ReadLaunchAddresses(p->f, p->kernelParams, p->extra, out); return true; }
    case SL_DRV(cuLaunchKernelEx): case SL_DRV(cuLaunchKernelEx_ptsz): {
      SL_P(cuLaunchKernelEx); ReadLaunchAddresses(p->f, p->kernelParams, p->extra, out); return true; }
    default: return false;
  }
}

bool CopiesOnDevice(bool runtime, CUpti_CallbackId id, const CUpti_CallbackData* d) {
  if (runtime) {
    switch (id) {
      case SL_RT(cudaMemcpy_v3020): case SL_RT(cudaMemcpy_ptds_v7000): {
        SL_P(cudaMemcpy_v3020); return p->kind == cudaMemcpyDeviceToDevice; }
      case SL_RT(cudaMemcpyAsync_v3020): case SL_RT(cudaMemcpyAsync_ptsz_v7000): {
        SL_P(cudaMemcpyAsync_v3020); return p->kind == cudaMemcpyDeviceToDevice; }
      default: return false;
    }
  }
  switch (id) {
    case SL_DRV(cuMemcpyDtoD): case SL_DRV(cuMemcpyDtoDAsync): case SL_DRV(cuMemcpyDtoD_v2):
    case SL_DRV(cuMemcpyDtoDAsync_v2): case SL_DRV(cuMemcpyDtoD_v2_ptds): case SL_DRV(cuMemcpyDtoDAsync_v2_ptsz):
      return true;
    default: return false;
  }
}

// [SECTION] calls that hold the host, found by name (host_call_kinds.h) --------------------

namespace {

// Per domain, by callback id: the call's kind is one the account names (not "other"), so it is
// kept however short it was, and subscribed. Read by name, so that every version and _ptsz
// variant counts: capture, instantiate (cudaGraphInstantiate_v12000, the one CUDA 12 programs
// call), upload, destroy, update, peer access, IPC, pools, host registration, modules.
std::vector<bool> HostCallsOf(CUpti_CallbackDomain domain, CUpti_CallbackId end) {
  std::vector<bool> named(end, false);
  for (CUpti_CallbackId id = 1; id < end; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) == CUPTI_SUCCESS && name)
      named[id] = HostCallKindOfName(name) != HostCallKind::kOther;
  }
  return named;
}

const std::vector<bool>& HostCalls(bool runtime) {
  static const std::vector<bool> runtime_calls = HostCallsOf(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
  static const std::vector<bool> driver_calls = HostCallsOf(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
  return runtime ? runtime_calls : driver_calls;
}

// A table's calls, the graph-editing calls, and (`host_calls`) the calls HostCalls names (all
// rare: subscribing them costs nothing per step). Of the driver's, not the launch kind: the
// runtime makes cuMemsetD8Async and the like inside every cudaMemsetAsync, and the runtime call
// is the one logged.
template <size_t N>
std::vector<CUpti_CallbackId> WithGraphEdits(const CUpti_CallbackId (&calls)[N], bool runtime, bool host_calls) {
  std::vector<CUpti_CallbackId> all(calls, calls + N);
  const std::vector<CUpti_CallbackId>& edits = GraphEditCalls(runtime);
  all.insert(all.end(), edits.begin(), edits.end());
  if (host_calls) {
    CUpti_CallbackDomain domain = runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    const std::vector<bool>& named = HostCalls(runtime);
    for (CUpti_CallbackId id = 1; id < named.size(); ++id) {
      const char* name = nullptr;
      if (!named[id] || cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name) continue;
      if (runtime || HostCallKindOfName(name) != HostCallKind::kLaunch) all.push_back(id);
    }
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

bool KeptHoweverShort(bool runtime, CUpti_CallbackId id) {
  const std::vector<bool>& named = HostCalls(runtime);
  return id < named.size() && named[id];
}

std::span<const CUpti_CallbackId> RuntimeCalls() {
  static const std::vector<CUpti_CallbackId> calls = WithGraphEdits(kRuntimeCalls, true, true);
  return calls;
}
std::span<const CUpti_CallbackId> DriverCalls() {
  static const std::vector<CUpti_CallbackId> calls = WithGraphEdits(kDriverCalls, false, true);
  return calls;
}
// Graph edits are logged before the range too: they decide whether any replay is trusted.
std::span<const CUpti_CallbackId> WaitingRuntimeCalls() {
  static const std::vector<CUpti_CallbackId> calls = WithGraphEdits(kWaitingRuntimeCalls, true, false);
  return calls;
}
std::span<const CUpti_CallbackId> WaitingDriverCalls() {
  static const std::vector<CUpti_CallbackId> calls = WithGraphEdits(kWaitingDriverCalls, false, false);
  return calls;
}

}  // namespace streamlab::recorder
