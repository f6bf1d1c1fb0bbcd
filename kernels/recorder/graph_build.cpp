// See graph_build.h. Runs inside the program's graph-building calls, which are rare (a graph
// is built once and replayed many times), so it may look up each node's id.
#include "kernels/recorder/graph_build.h"

#include <cuda.h>

#include <cstring>

#include "kernels/recorder/api_roles.h"
#include "kernels/recorder/call_log.h"
#include "kernels/recorder/launch_memory.h"

namespace streamlab::recorder {
namespace {

static_assert(CU_GRAPH_NODE_TYPE_KERNEL == 0, "call_log.cpp writes a kernel node's addresses as value 0's");

uint64_t H(const void* p) { return reinterpret_cast<uint64_t>(p); }

uint64_t IdOf(CUgraphNode node) {
  uint64_t id = 0;
  return node && cuptiGetGraphNodeId(node, &id) == CUPTI_SUCCESS ? id : 0;
}

// One node built by hand, as the call handed it.
struct Built {
  CUgraphNode node = nullptr;
  const CUgraphNode* after = nullptr;
  const CUgraphEdgeData* edges = nullptr;  // null: all ordinary edges
  size_t count = 0;
  CallRecord params;
  LaunchAddresses addresses;  // a kernel node's, when `read`
  bool read = false;
};

// An edge CUDA may let through before its source ends (a programmatic or launch-order port):
// treating it as a full edge would hide a race, so a call with one is not read.
bool Ordinary(const CUgraphEdgeData* edges, size_t count) {
  for (size_t i = 0; edges && i < count; ++i)
    if (edges[i].from_port != 0 || edges[i].to_port != 0 || edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT)
      return false;
  return true;
}

void Kernel(CUfunction func, CUkernel kern, void** params, void** extra, bool read_addresses, Built& b) {
  b.params.value = CU_GRAPH_NODE_TYPE_KERNEL;
  CUfunction function = func ? func : reinterpret_cast<CUfunction>(kern);  // launch_memory reads either
  if (!read_addresses || !function) {
    b.params.flags = 1;
    return;
  }
  ReadLaunchAddresses(function, params, extra, b.addresses);
  b.read = true;
}

void Copy(const CUDA_MEMCPY3D& c, CallRecord& r) {
  // Where a side's first byte is: its base plus the copy's offset into it (0 for a 1D copy).
  auto end = [](CUmemorytype type, const void* host, CUdeviceptr device, size_t x, size_t y, size_t z, size_t pitch,
                size_t height) -> uint64_t {
    uint64_t base = type == CU_MEMORYTYPE_HOST ? H(host)
                    : type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_UNIFIED ? device
                                                                                     : 0;
    return base ? base + x + (y + z * height) * pitch : 0;  // 0: a CUDA array, not memory a kernel is handed
  };
  r.value = CU_GRAPH_NODE_TYPE_MEMCPY;
  r.size = static_cast<uint64_t>(c.WidthInBytes) * (c.Height ? c.Height : 1) * (c.Depth ? c.Depth : 1);
  uint64_t dst = end(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch, c.dstHeight);
  uint64_t src = end(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch, c.srcHeight);
  r.args[0] = dst;
  r.args[1] = src;
  r.nargs = !dst ? 0 : src ? 2 : 1;  // an array's end is no address: neither is compared then
}

void Memset(CUdeviceptr dst, CallRecord& r) {
  r.value = CU_GRAPH_NODE_TYPE_MEMSET;
  r.args[0] = dst;
  r.nargs = 1;
}

// The generic cuGraphAddNode: only the node types above and host/empty nodes are read.
bool Generic(const CUgraphNodeParams* p, bool read_addresses, Built& b) {
  if (!p) return false;
  switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      Kernel(p->kernel.func, p->kernel.kern, p->kernel.kernelParams, p->kernel.extra, read_addresses, b);
      return true;
    case CU_GRAPH_NODE_TYPE_MEMCPY: Copy(p->memcpy.copyParams, b.params); return true;
    case CU_GRAPH_NODE_TYPE_MEMSET: Memset(p->memset.dst, b.params); return true;
    case CU_GRAPH_NODE_TYPE_HOST: case CU_GRAPH_NODE_TYPE_EMPTY: b.params.value = p->type; return true;
    default: return false;
  }
}

#define SL_DRV(name) CUPTI_DRIVER_TRACE_CBID_##name
#define SL_RT(name) CUPTI_RUNTIME_TRACE_CBID_##name
#define SL_P(type) const auto* p = static_cast<const type##_params*>(d->functionParams)

// The node a driver call built (false: not a node-building call, or one not read).
bool ReadNode(CUpti_CallbackId id, const CUpti_CallbackData* d, bool read_addresses, Built& b) {
  auto take = [&](CUgraphNode* out, const CUgraphNode* after, size_t count) {
    b.node = out ? *out : nullptr;
    b.after = after;
    b.count = count;
  };
  switch (id) {
    case SL_DRV(cuGraphAddKernelNode): {
      SL_P(cuGraphAddKernelNode);
      if (!p->nodeParams) return false;
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      Kernel(p->nodeParams->func, nullptr, p->nodeParams->kernelParams, p->nodeParams->extra, read_addresses, b);
      return true;
    }
    case SL_DRV(cuGraphAddKernelNode_v2): {
      SL_P(cuGraphAddKernelNode_v2);
      if (!p->nodeParams) return false;
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      const CUDA_KERNEL_NODE_PARAMS& k = *p->nodeParams;
      Kernel(k.func, k.kern, k.kernelParams, k.extra, read_addresses, b);
      return true;
    }
    case SL_DRV(cuGraphAddMemcpyNode): {
      SL_P(cuGraphAddMemcpyNode);
      if (!p->copyParams) return false;
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      Copy(*p->copyParams, b.params);
      return true;
    }
    case SL_DRV(cuGraphAddMemsetNode): {
      SL_P(cuGraphAddMemsetNode);
      if (!p->memsetParams) return false;
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      Memset(p->memsetParams->dst, b.params);
      return true;
    }
    case SL_DRV(cuGraphAddHostNode): {
      SL_P(cuGraphAddHostNode);
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      b.params.value = CU_GRAPH_NODE_TYPE_HOST;
      return true;
    }
    case SL_DRV(cuGraphAddEmptyNode): {
      SL_P(cuGraphAddEmptyNode);
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      b.params.value = CU_GRAPH_NODE_TYPE_EMPTY;
      return true;
    }
    case SL_DRV(cuGraphAddNode): {
      SL_P(cuGraphAddNode);
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      return Generic(p->nodeParams, read_addresses, b);
    }
    case SL_DRV(cuGraphAddNode_v2): {
      SL_P(cuGraphAddNode_v2);
      take(p->phGraphNode, p->dependencies, p->numDependencies);
      b.edges = p->dependencyData;
      return Generic(p->nodeParams, read_addresses, b);
    }
    default: return false;
  }
}

// A call that set a node's parameters again: the node, and what it is handed now. `exec`: the
// one instance a cuGraphExec*SetParams call changed (0: the graph, for instances made later).
bool ReadSet(CUpti_CallbackId id, const CUpti_CallbackData* d, bool read_addresses, Built& b, uint64_t& exec) {
  switch (id) {
    case SL_DRV(cuGraphKernelNodeSetParams): {
      SL_P(cuGraphKernelNodeSetParams);
      if (!p->nodeParams) return false;
      b.node = p->hNode;
      Kernel(p->nodeParams->func, nullptr, p->nodeParams->kernelParams, p->nodeParams->extra, read_addresses, b);
      return true;
    }
    case SL_DRV(cuGraphKernelNodeSetParams_v2): {
      SL_P(cuGraphKernelNodeSetParams_v2);
      if (!p->nodeParams) return false;
      b.node = p->hNode;
      const CUDA_KERNEL_NODE_PARAMS& k = *p->nodeParams;
      Kernel(k.func, k.kern, k.kernelParams, k.extra, read_addresses, b);
      return true;
    }
    case SL_DRV(cuGraphExecKernelNodeSetParams): {
      SL_P(cuGraphExecKernelNodeSetParams);
      if (!p->nodeParams) return false;
      b.node = p->hNode;
      exec = H(p->hGraphExec);
      Kernel(p->nodeParams->func, nullptr, p->nodeParams->kernelParams, p->nodeParams->extra, read_addresses, b);
      return true;
    }
    case SL_DRV(cuGraphExecKernelNodeSetParams_v2): {
      SL_P(cuGraphExecKernelNodeSetParams_v2);
      if (!p->nodeParams) return false;
      b.node = p->hNode;
      exec = H(p->hGraphExec);
      const CUDA_KERNEL_NODE_PARAMS& k = *p->nodeParams;
      Kernel(k.func, k.kern, k.kernelParams, k.extra, read_addresses, b);
      return true;
    }
    case SL_DRV(cuGraphMemcpyNodeSetParams): {
      SL_P(cuGraphMemcpyNodeSetParams);
      if (!p->nodeParams) return false;
      b.node = p->hNode;
      Copy(*p->nodeParams, b.params);
      return true;
    }
    case SL_DRV(cuGraphExecMemcpyNodeSetParams): {
      SL_P(cuGraphExecMemcpyNodeSetParams);
      if (!p->copyParams) return false;
      b.node = p->hNode;
      exec = H(p->hGraphExec);
      Copy(*p->copyParams, b.params);
      return true;
    }
    case SL_DRV(cuGraphMemsetNodeSetParams): {
      SL_P(cuGraphMemsetNodeSetParams);
      if (!p->nodeParams) return false;
      b.node = p->hNode;
      Memset(p->nodeParams->dst, b.params);
      return true;
    }
    case SL_DRV(cuGraphExecMemsetNodeSetParams): {
      SL_P(cuGraphExecMemsetNodeSetParams);
      if (!p->memsetParams) return false;
      b.node = p->hNode;
      exec = H(p->hGraphExec);
      Memset(p->memsetParams->dst, b.params);
      return true;
    }
    case SL_DRV(cuGraphHostNodeSetParams): {  // a host function has no addresses: only its type counts
      SL_P(cuGraphHostNodeSetParams);
      b.node = p->hNode;
      b.params.value = CU_GRAPH_NODE_TYPE_HOST;
      return true;
    }
    case SL_DRV(cuGraphExecHostNodeSetParams): {
      SL_P(cuGraphExecHostNodeSetParams);
      b.node = p->hNode;
      exec = H(p->hGraphExec);
      b.params.value = CU_GRAPH_NODE_TYPE_HOST;
      return true;
    }
    case SL_DRV(cuGraphNodeSetParams): {
      SL_P(cuGraphNodeSetParams);
      b.node = p->hNode;
      return Generic(p->nodeParams, read_addresses, b);
    }
    case SL_DRV(cuGraphExecNodeSetParams): {
      SL_P(cuGraphExecNodeSetParams);
      b.node = p->hNode;
      exec = H(p->hGraphExec);
      return Generic(p->nodeParams, read_addresses, b);
    }
    default: return false;
  }
}

// An edit of one instance that is not read: every cuGraphExec* call takes the instance first,
// as does cuGraphNodeSetEnabled. Its later replays of that instance are not checked, except
// after cuGraphNodeSetEnabled: a disabled node orders the others as an empty node does.
bool LogInstanceEdit(CUpti_CallbackId id, const CUpti_CallbackData* d, uint64_t correlation, uint64_t at) {
  bool enable = id == SL_DRV(cuGraphNodeSetEnabled);
  if (!enable && (!d->functionName || std::strncmp(d->functionName, "cuGraphExec", 11) != 0)) return false;
  CallRecord r;
  r.role = Role::kGraphExecEdit;
  r.function = "graph instance changed";
  r.begin = r.end = at;
  r.correlation = correlation;
  r.exec = H(*static_cast<const CUgraphExec*>(d->functionParams));
  r.flags = enable ? 1 : 0;
  Append(CurrentThreadLog(), r);
  return true;
}

void AppendEdge(ThreadLog* log, uint64_t from, uint64_t to, uint64_t correlation, uint64_t at, bool removed = false) {
  CallRecord e;
  e.flags = removed ? 1 : 0;
  e.role = Role::kGraphEdge;
  e.function = "graph edge added";
  e.begin = e.end = at;
  e.correlation = correlation;
  e.parent = from;
  e.out = to;
  Append(log, e);
}

// cuGraphAddDependencies: edges between nodes already built; cuGraphRemoveDependencies:
// edges taken away (only ordinary ones are read: a port edge's removal is not followed).
bool LogEdges(CUpti_CallbackId id, const CUpti_CallbackData* d, uint64_t correlation, uint64_t at) {
  const CUgraphNode *from = nullptr, *to = nullptr;
  size_t count = 0;
  bool removed = id == SL_DRV(cuGraphRemoveDependencies) || id == SL_DRV(cuGraphRemoveDependencies_v2);
  if (id == SL_DRV(cuGraphAddDependencies)) {
    SL_P(cuGraphAddDependencies);
    from = p->from, to = p->to, count = p->numDependencies;
  } else if (id == SL_DRV(cuGraphAddDependencies_v2)) {
    SL_P(cuGraphAddDependencies_v2);
    if (!Ordinary(p->edgeData, p->numDependencies)) return true;
    from = p->from, to = p->to, count = p->numDependencies;
  } else if (id == SL_DRV(cuGraphRemoveDependencies)) {
    SL_P(cuGraphRemoveDependencies);
    from = p->from, to = p->to, count = p->numDependencies;
  } else if (id == SL_DRV(cuGraphRemoveDependencies_v2)) {
    SL_P(cuGraphRemoveDependencies_v2);
    if (!Ordinary(p->edgeData, p->numDependencies)) return true;
    from = p->from, to = p->to, count = p->numDependencies;
  } else {
    return false;
  }
  ThreadLog* log = CurrentThreadLog();
  for (size_t i = 0; from && to && i < count; ++i)
    AppendEdge(log, IdOf(from[i]), IdOf(to[i]), correlation, at, removed);
  return true;
}

// Appends a node's parameters record (built, or set again for `exec`).
void AppendParams(Built& b, uint64_t node, uint64_t exec, uint64_t correlation, uint64_t at, const char* what) {
  b.params.role = Role::kGraphNodeParams;
  b.params.function = what;
  b.params.begin = b.params.end = at;
  b.params.correlation = correlation;
  b.params.out = node;
  b.params.exec = exec;
  if (b.read) KeepLaunchAddresses(b.addresses, b.params, node);  // 8 in the record, the rest before it
  Append(CurrentThreadLog(), b.params);
}

}  // namespace

bool IsGraphBuildCall(bool runtime, CUpti_CallbackId id) {
  if (runtime) {
    switch (id) {
      case SL_RT(cudaGraphAddKernelNode_v10000): case SL_RT(cudaGraphAddMemcpyNode_v10000):
      case SL_RT(cudaGraphAddMemcpyNode1D_v11010): case SL_RT(cudaGraphAddMemcpyNodeToSymbol_v11010):
      case SL_RT(cudaGraphAddMemcpyNodeFromSymbol_v11010): case SL_RT(cudaGraphAddMemsetNode_v10000):
      case SL_RT(cudaGraphAddHostNode_v10000): case SL_RT(cudaGraphAddEmptyNode_v10000):
      case SL_RT(cudaGraphAddDependencies_v10000): case SL_RT(cudaGraphAddDependencies_v12030):
      case SL_RT(cudaGraphAddNode_v12020): case SL_RT(cudaGraphAddNode_v12030): return true;
      default: return false;
    }
  }
  switch (id) {
    case SL_DRV(cuGraphAddKernelNode): case SL_DRV(cuGraphAddKernelNode_v2): case SL_DRV(cuGraphAddMemcpyNode):
    case SL_DRV(cuGraphAddMemsetNode): case SL_DRV(cuGraphAddHostNode): case SL_DRV(cuGraphAddEmptyNode):
    case SL_DRV(cuGraphAddDependencies): case SL_DRV(cuGraphAddDependencies_v2): case SL_DRV(cuGraphAddNode):
    case SL_DRV(cuGraphAddNode_v2): return true;
    default: return false;
  }
}

bool LogGraphBuild(CUpti_CallbackId id, const CUpti_CallbackData* d, uint64_t correlation, bool read_addresses) {
  if (!d->functionParams) return false;
  bool build = IsGraphBuildCall(false, id);
  if (!build && !IsGraphEdit(false, id)) return false;
  // A call that failed changed nothing we could read: with no record under it, it leaves the
  // replays after it unchecked.
  if (!d->functionReturnValue || *static_cast<const CUresult*>(d->functionReturnValue) != CUDA_SUCCESS) return true;
  uint64_t at = 0;
  cuptiGetTimestamp(&at);
  if (LogEdges(id, d, correlation, at)) return true;
  if (!build) {
    Built set;
    uint64_t exec = 0;
    if (ReadSet(id, d, read_addresses, set, exec)) {
      if (uint64_t node = IdOf(set.node)) AppendParams(set, node, exec, correlation, at, "graph node set");
    } else {
      LogInstanceEdit(id, d, correlation, at);
    }
    return true;
  }
  Built b;
  // Not read (an unread node type, an unusual edge): nothing is logged, and the program's
  // call, logged with no record under it, leaves the graph's replays unchecked.
  if (!ReadNode(id, d, read_addresses, b) || !Ordinary(b.edges, b.count)) return true;
  uint64_t node = IdOf(b.node);
  if (!node) return true;
  AppendParams(b, node, 0, correlation, at, "graph node built");
  ThreadLog* log = CurrentThreadLog();
  for (size_t i = 0; b.after && i < b.count; ++i) AppendEdge(log, IdOf(b.after[i]), node, correlation, at);
  return true;
}

}  // namespace streamlab::recorder
