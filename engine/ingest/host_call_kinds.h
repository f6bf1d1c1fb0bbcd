// What a recorded host call does to the host's time: the kinds the analysis splits "time inside
// CUDA calls" into (launch, a launch that blocked, a sync, a pageable copy, allocation, free,
// graph building, module load, context, peer access, other). One table over the recorder's roles
// (call_roles.h) and one over call names, shared by the recorder (which calls it keeps however
// short they were) and the conversion and analysis (what a call's time is). Header only, std only.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/ingest/call_roles.h"
#include "engine/util/enum_names.h"

namespace streamlab {

enum class HostCallKind : uint8_t {
  kLaunch,          // submits GPU work and returns (kernel, async copy, record, wait, graph launch)
  kBlockingLaunch,  // submits GPU work and returns only when (part of) it is done (cudaMemcpy, cudaMemset)
  kSync,            // waits for GPU work (device, stream, event)
  kPageableCopy,    // a copy that touches pageable host memory: staged through the driver's buffer
  kAllocation,      // device, pinned, managed, pool or mapped memory made or registered
  kFree,            // ... freed, unregistered or unmapped (cudaFree also waits for the device)
  kGraphBuild,      // a CUDA graph captured, built, instantiated, updated, uploaded or destroyed
  kModuleLoad,      // a module or library loaded (or unloaded)
  kContext,         // a context made, destroyed or chosen (cudaSetDevice, cuInit, cudaDeviceReset)
  kPeerAccess,      // peer access between GPUs enabled or disabled; IPC handles
  kOther,           // anything else (stream and event create/destroy, queries, device properties)
};

inline constexpr size_t kHostCallKindCount = static_cast<size_t>(HostCallKind::kOther) + 1;

inline constexpr EnumNames<HostCallKind, kHostCallKindCount> kHostCallKindNames{{
    {HostCallKind::kLaunch, "launch"},
    {HostCallKind::kBlockingLaunch, "blocking_launch"},
    {HostCallKind::kSync, "sync"},
    {HostCallKind::kPageableCopy, "pageable_copy"},
    {HostCallKind::kAllocation, "allocation"},
    {HostCallKind::kFree, "free"},
    {HostCallKind::kGraphBuild, "graph_build"},
    {HostCallKind::kModuleLoad, "module_load"},
    {HostCallKind::kContext, "context"},
    {HostCallKind::kPeerAccess, "peer_access"},
    {HostCallKind::kOther, "other"},
}};
static_assert(InEnumOrder(kHostCallKindNames));

constexpr std::string_view HostCallKindName(HostCallKind kind) { return NameOf(kHostCallKindNames, kind); }
constexpr std::optional<HostCallKind> ParseHostCallKind(std::string_view name) {
  return ValueNamed(kHostCallKindNames, name);
}

// [SECTION] by name: the first rule whose prefix starts the call's name (runtime or driver API,
// every version and _ptsz variant). `async` is the kind of a name that holds "Async".
struct CallNameRule {
  std::string_view prefix;
  HostCallKind kind;
  HostCallKind async = kind;
};

// Order matters: a narrower prefix comes before a wider one that would take it.
inline constexpr CallNameRule kCallNameRules[] = {
    // Graphs: launching one is a launch; graphics interop is not about graphs.
    {"cudaGraphLaunch", HostCallKind::kLaunch}, {"cuGraphLaunch", HostCallKind::kLaunch},
    {"cudaGraphics", HostCallKind::kOther}, {"cuGraphics", HostCallKind::kOther},
    {"cudaGraph", HostCallKind::kGraphBuild}, {"cuGraph", HostCallKind::kGraphBuild},
    {"cudaStreamBeginCapture", HostCallKind::kGraphBuild},
    {"cuStreamBeginCapture", HostCallKind::kGraphBuild},
    {"cudaStreamEndCapture", HostCallKind::kGraphBuild},
    {"cuStreamEndCapture", HostCallKind::kGraphBuild},
    {"cudaStreamUpdateCaptureDependencies", HostCallKind::kGraphBuild},
    {"cuStreamUpdateCaptureDependencies", HostCallKind::kGraphBuild},
    // Work submitted to a stream.
    {"cudaLaunch", HostCallKind::kLaunch}, {"cuLaunch", HostCallKind::kLaunch},
    {"cudaStreamAddCallback", HostCallKind::kLaunch},
    {"cuStreamAddCallback", HostCallKind::kLaunch},
    {"cudaEventRecord", HostCallKind::kLaunch}, {"cuEventRecord", HostCallKind::kLaunch},
    {"cudaStreamWaitEvent", HostCallKind::kLaunch},
    {"cuStreamWaitEvent", HostCallKind::kLaunch},
    {"cuStreamWaitValue", HostCallKind::kLaunch},
    {"cuStreamWriteValue", HostCallKind::kLaunch},
    {"cuStreamBatchMemOp", HostCallKind::kLaunch},
    {"cudaMemPrefetch", HostCallKind::kLaunch}, {"cuMemPrefetch", HostCallKind::kLaunch},
    {"cudaStreamAttachMemAsync", HostCallKind::kLaunch},
    {"cuStreamAttachMemAsync", HostCallKind::kLaunch},
    // Copies and memsets: the Async ones return at once (unless pageable: the conversion knows).
    {"cudaMemcpy", HostCallKind::kBlockingLaunch, HostCallKind::kLaunch},
    {"cuMemcpy", HostCallKind::kBlockingLaunch, HostCallKind::kLaunch},
    {"cudaMemset", HostCallKind::kBlockingLaunch, HostCallKind::kLaunch},
    {"cuMemsetD", HostCallKind::kBlockingLaunch, HostCallKind::kLaunch},
    // Waits.
    {"cudaDeviceSynchronize", HostCallKind::kSync},
    {"cudaThreadSynchronize", HostCallKind::kSync},
    {"cudaStreamSynchronize", HostCallKind::kSync},
    {"cudaEventSynchronize", HostCallKind::kSync},
    {"cuCtxSynchronize", HostCallKind::kSync}, {"cuStreamSynchronize", HostCallKind::kSync},
    {"cuEventSynchronize", HostCallKind::kSync},
    // Peer access and memory shared with other processes.
    {"cudaDeviceEnablePeerAccess", HostCallKind::kPeerAccess},
    {"cudaDeviceDisablePeerAccess", HostCallKind::kPeerAccess},
    {"cuCtxEnablePeerAccess", HostCallKind::kPeerAccess},
    {"cuCtxDisablePeerAccess", HostCallKind::kPeerAccess},
    {"cudaIpc", HostCallKind::kPeerAccess}, {"cuIpc", HostCallKind::kPeerAccess},
    // Memory made and freed (runtime, then driver), pools included.
    {"cudaMalloc", HostCallKind::kAllocation}, {"cudaHostAlloc", HostCallKind::kAllocation},
    {"cudaHostRegister", HostCallKind::kAllocation}, {"cudaFree", HostCallKind::kFree},
    {"cudaHostUnregister", HostCallKind::kFree},
    {"cudaMemPoolDestroy", HostCallKind::kFree}, {"cudaMemPoolTrimTo", HostCallKind::kFree},
    {"cudaMemPoolCreate", HostCallKind::kAllocation},
    {"cudaMemPoolImport", HostCallKind::kAllocation},
    {"cudaMemPoolSetAccess", HostCallKind::kAllocation},
    {"cuMemAlloc", HostCallKind::kAllocation}, {"cuMemHostAlloc", HostCallKind::kAllocation},
    {"cuMemHostRegister", HostCallKind::kAllocation}, {"cuMemCreate", HostCallKind::kAllocation},
    {"cuMemMap", HostCallKind::kAllocation},
    {"cuMemAddressReserve", HostCallKind::kAllocation},
    {"cuMemSetAccess", HostCallKind::kAllocation},
    {"cuMemImportFromShareableHandle", HostCallKind::kAllocation},
    {"cuMemFree", HostCallKind::kFree}, {"cuMemHostUnregister", HostCallKind::kFree},
    {"cuMemRelease", HostCallKind::kFree}, {"cuMemUnmap", HostCallKind::kFree},
    {"cuMemAddressFree", HostCallKind::kFree},
    {"cuMemPoolDestroy", HostCallKind::kFree}, {"cuMemPoolTrimTo", HostCallKind::kFree},
    {"cuMemPoolCreate", HostCallKind::kAllocation},
    {"cuMemPoolImport", HostCallKind::kAllocation},
    {"cuMemPoolSetAccess", HostCallKind::kAllocation},
    // Modules (lazy loading loads them inside a kernel's first launch: that call says so).
    {"cudaLibraryLoad", HostCallKind::kModuleLoad},
    {"cudaLibraryUnload", HostCallKind::kModuleLoad},
    {"cuModuleLoad", HostCallKind::kModuleLoad}, {"cuModuleUnload", HostCallKind::kModuleLoad},
    {"cuLibraryLoad", HostCallKind::kModuleLoad},
    {"cuLibraryUnload", HostCallKind::kModuleLoad},
    {"cuLinkComplete", HostCallKind::kModuleLoad},
    // Contexts. Not cuCtxGetCurrent / SetCurrent / Push / Pop: bookkeeping the runtime does
    // inside nearly every call, and cheap.
    {"cudaSetDevice", HostCallKind::kContext}, {"cudaDeviceReset", HostCallKind::kContext},
    {"cudaInitDevice", HostCallKind::kContext}, {"cuInit", HostCallKind::kContext},
    {"cuCtxCreate", HostCallKind::kContext}, {"cuCtxDestroy", HostCallKind::kContext},
    {"cuDevicePrimaryCtxRetain", HostCallKind::kContext},
    {"cuDevicePrimaryCtxRelease", HostCallKind::kContext},
    {"cuDevicePrimaryCtxReset", HostCallKind::kContext},
};

// The kind of a call known only by its name (a role of "other", a trace's api_call op). A graph
// call that only reads (cudaGraphGetNodes, cudaGraphKernelNodeGetParams) builds nothing: other.
constexpr HostCallKind HostCallKindOfName(std::string_view function) {
  for (const CallNameRule& rule : kCallNameRules) {
    if (function.substr(0, rule.prefix.size()) != rule.prefix) continue;
    if (rule.kind == HostCallKind::kGraphBuild && function.find("Get") != std::string_view::npos) return HostCallKind::kOther;
    return function.find("Async") != std::string_view::npos ? rule.async : rule.kind;
  }
  return HostCallKind::kOther;
}

// Calls that page-lock host memory or release it (their own roles in a recording, an api_call
// op's name in a trace): such a loop allocates no device memory, and its remedy is to pin once.
inline constexpr std::string_view kHostPinningCalls[] = {
    "cudaMallocHost", "cudaHostAlloc", "cudaHostRegister", "cudaFreeHost", "cudaHostUnregister",
    "cuMemAllocHost", "cuMemHostAlloc", "cuMemHostRegister", "cuMemFreeHost", "cuMemHostUnregister"};
constexpr bool PinsHostMemory(std::string_view function) {
  for (std::string_view name : kHostPinningCalls)
    if (function.substr(0, name.size()) == name) return true;
  return false;
}

// [SECTION] by role: what each role the recorder writes means; by_name: the role says nothing
// more than the name does (kOther), so the name decides.
struct RoleKind {
  CallRole role;
  HostCallKind kind;
  bool by_name = false;
};

inline constexpr RoleKind kRoleKinds[kCallRoleCount] = {
    {CallRole::kOther, HostCallKind::kOther, true},
    {CallRole::kLaunch, HostCallKind::kLaunch},
    {CallRole::kGraphLaunch, HostCallKind::kLaunch},
    {CallRole::kStreamCreate, HostCallKind::kOther},
    {CallRole::kStreamDestroy, HostCallKind::kOther},
    {CallRole::kEventCreate, HostCallKind::kOther},
    {CallRole::kEventDestroy, HostCallKind::kOther},
    {CallRole::kRecord, HostCallKind::kLaunch},
    {CallRole::kWaitEvent, HostCallKind::kLaunch},
    {CallRole::kSyncDevice, HostCallKind::kSync},
    {CallRole::kSyncStream, HostCallKind::kSync},
    {CallRole::kSyncEvent, HostCallKind::kSync},
    {CallRole::kQueryEvent, HostCallKind::kOther},
    {CallRole::kQueryStream, HostCallKind::kOther},
    {CallRole::kMalloc, HostCallKind::kAllocation},
    {CallRole::kFree, HostCallKind::kFree},
    {CallRole::kMallocHost, HostCallKind::kAllocation},
    {CallRole::kHostRegister, HostCallKind::kAllocation},
    {CallRole::kFreeHost, HostCallKind::kFree},
    {CallRole::kMallocAsync, HostCallKind::kAllocation},
    {CallRole::kFreeAsync, HostCallKind::kFree},
    {CallRole::kMemcpy, HostCallKind::kBlockingLaunch},
    {CallRole::kMemcpyAsync, HostCallKind::kLaunch},
    {CallRole::kMemset, HostCallKind::kBlockingLaunch},
    {CallRole::kMemsetAsync, HostCallKind::kLaunch},
    {CallRole::kSetDevice, HostCallKind::kContext},
    {CallRole::kPeerCopy, HostCallKind::kLaunch},
    {CallRole::kNvtxPush, HostCallKind::kOther},
    {CallRole::kNvtxPop, HostCallKind::kOther},
    {CallRole::kCorrelationAlias, HostCallKind::kOther},
    {CallRole::kCaptureStart, HostCallKind::kOther},
    {CallRole::kCaptureStop, HostCallKind::kOther},
    {CallRole::kBeginCapture, HostCallKind::kGraphBuild},
    {CallRole::kEndCapture, HostCallKind::kGraphBuild},
    {CallRole::kGraphNode, HostCallKind::kGraphBuild},
    {CallRole::kGraphNodeClone, HostCallKind::kGraphBuild},
    {CallRole::kGraphEdit, HostCallKind::kGraphBuild},
    {CallRole::kGraphBuild, HostCallKind::kGraphBuild},
    {CallRole::kGraphNodeParams, HostCallKind::kGraphBuild},
    {CallRole::kGraphEdge, HostCallKind::kGraphBuild},
    {CallRole::kGraphExecEdit, HostCallKind::kGraphBuild},
    {CallRole::kGraphNodeUpdate, HostCallKind::kGraphBuild},
    {CallRole::kLaunchArgs, HostCallKind::kLaunch},
    {CallRole::kModuleLoad, HostCallKind::kModuleLoad},
    {CallRole::kContextCreated, HostCallKind::kContext},
    {CallRole::kWaitWithoutRecord, HostCallKind::kLaunch},
};

constexpr bool RoleKindsInEnumOrder() {
  for (size_t i = 0; i < kCallRoleCount; ++i)
    if (static_cast<size_t>(kRoleKinds[i].role) != i) return false;
  return true;
}
static_assert(RoleKindsInEnumOrder());

// A recorded call's kind from its role and name. `pageable`: a copy that touched pageable host
// memory (its GPU record says so), which holds the host while the driver stages it.
constexpr HostCallKind ClassifyHostCall(CallRole role, std::string_view function, bool pageable = false) {
  const RoleKind& row = kRoleKinds[static_cast<size_t>(role)];
  HostCallKind kind = row.by_name ? HostCallKindOfName(function) : row.kind;
  bool copy = role == CallRole::kMemcpy || role == CallRole::kMemcpyAsync || role == CallRole::kPeerCopy ||
              (row.by_name && function.find("cpy") != std::string_view::npos);
  if (pageable && copy && (kind == HostCallKind::kLaunch || kind == HostCallKind::kBlockingLaunch))
    return HostCallKind::kPageableCopy;
  return kind;
}

}  // namespace streamlab
