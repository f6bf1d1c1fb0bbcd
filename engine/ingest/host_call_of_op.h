// The host-call kind (host_call_kinds.h) of an op of a trace: what the analysis reads where it
// splits the host's time inside CUDA calls. A recorded call becomes an op whose OpKind keeps its
// role (a sync, a copy, an allocation) or, for any other call, an api_call named by the call:
// both lead back to the kind ClassifyHostCall gave the call, so traces saved before the kinds
// existed read the same. Header only (the analysis stages do not link the ingest library).
#pragma once

#include <string_view>

#include "engine/ingest/host_call_kinds.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

// What the conversion appends to the name of a call that a stream capture turned into a graph
// node (it ran nothing; its time was spent building the graph).
inline constexpr std::string_view kCapturedIntoGraph = " (captured into a CUDA graph: it runs when the graph is launched)";

// The kind of op `op` of scenario `s` as a host call. Ops that are not host calls (a lab's host
// work) are kOther. A recorded call that created a context or loaded a module (OpRecord's
// created_context, loaded_module) spent its time there: the caller decides whether that counts.
inline HostCallKind HostCallKindOf(const Scenario& s, const Op& op) {
  auto pageable = [&](int b) {
    return b >= 0 && b < static_cast<int>(s.buffers.size()) && s.buffers[b].kind == MemoryKind::kPageableHost;
  };
  switch (op.kind) {
    case OpKind::kKernel: case OpKind::kRecord: case OpKind::kWaitEvent: case OpKind::kWaitStream:
    case OpKind::kGraphLaunch: case OpKind::kCollective:
      return HostCallKind::kLaunch;
    case OpKind::kMemcpy: case OpKind::kPeerCopy:
      if (pageable(op.src) || pageable(op.dst)) return HostCallKind::kPageableCopy;
      return op.async ? HostCallKind::kLaunch : HostCallKind::kBlockingLaunch;
    case OpKind::kMemset:
      return op.async ? HostCallKind::kLaunch : HostCallKind::kBlockingLaunch;
    case OpKind::kSyncDevice: case OpKind::kSyncStream: case OpKind::kSyncEvent:
      return HostCallKind::kSync;
    case OpKind::kMalloc: case OpKind::kMallocHost:
      return HostCallKind::kAllocation;
    case OpKind::kFree:
      return HostCallKind::kFree;
    case OpKind::kSetDevice:
      return HostCallKind::kContext;
    case OpKind::kQuery: case OpKind::kHostWork:
      return HostCallKind::kOther;
    case OpKind::kApiCall: {
      std::string_view name = op.name;
      if (name.size() > kCapturedIntoGraph.size() &&
          name.substr(name.size() - kCapturedIntoGraph.size()) == kCapturedIntoGraph)
        return HostCallKind::kGraphBuild;
      return HostCallKindOfName(name);
    }
  }
  return HostCallKind::kOther;
}

}  // namespace streamlab
