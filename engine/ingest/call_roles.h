// The roles of a recorded API call: the one table shared by the recorder, which writes a call's
// role into its log (kernels/recorder/call_log.cpp), and the conversion, which reads it back
// once into this enum (engine/ingest/recording_parse.cpp). Header only and std only, so the
// recorder (no engine library linked) can include it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/util/enum_names.h"

namespace streamlab {

// What a call means for the program's streams; decides which arguments the recorder keeps.
enum class CallRole : uint8_t {
  kOther,             // any other API call (kept only when it took long enough to matter)
  kLaunch,            // kernel launch: stream; args = the addresses among its arguments
  kGraphLaunch,       // stream; exec = the instantiated graph launched
  kStreamCreate,      // out = the new stream; flags, priority
  kStreamDestroy,
  kEventCreate,       // out = the new event; flags
  kEventDestroy,
  kRecord,            // event, stream
  kWaitEvent,         // stream, event, flags
  kSyncDevice,
  kSyncStream,        // stream
  kSyncEvent,         // event
  kQueryEvent,        // event; result = ready or not
  kQueryStream,       // stream
  kMalloc,            // size; out = pointer
  kFree,              // pointer
  kMallocHost,        // size, flags; out = pointer (cudaMallocHost / cudaHostAlloc)
  kHostRegister,      // pointer, size
  kFreeHost,          // pointer
  kMallocAsync,       // stream-ordered (cudaMallocAsync, from a pool): stream, size; out = pointer
  kFreeAsync,         // stream-ordered free: stream, pointer
  kMemcpy,            // synchronous copy: bytes, direction; args = destination, source
  kMemcpyAsync,       // stream, bytes, direction; args = destination, source
  kMemset,            // synchronous memset; args = destination
  kMemsetAsync,       // stream; args = destination
  kSetDevice,         // device
  kPeerCopy,          // stream, bytes
  kNvtxPush,          // text
  kNvtxPop,
  kCorrelationAlias,  // a driver call made inside a runtime call: corr -> parent corr
  kCaptureStart,      // --capture-range: cudaProfilerStart turned recording on
  kCaptureStop,       // cudaProfilerStop turned it off for good
  kBeginCapture,      // cudaStreamBeginCapture: stream (its calls build a graph, they run nothing)
  kEndCapture,        // cudaStreamEndCapture: stream
  kGraphNode,         // a CUDA graph node was created: out = node id, value = node type;
                      // correlation = the call that made it (0 if its callback was off)
  kGraphNodeClone,    // graph instantiation cloned node `parent` into node `out` (the id
                      // replayed work's activity records carry)
  kGraphEdit,         // a call that may change a graph after its capture (cudaGraphExecUpdate,
                      // a node's parameters set by hand): captured arguments may be stale
  kGraphBuild,        // a call that adds a node or edges to a graph and is read (graph_build.h):
                      // what it made follows as kGraphNodeParams / kGraphEdge records
  kGraphNodeParams,   // a node built by hand, or its parameters set again (exec = the one
                      // instance a cuGraphExec*SetParams call changed, 0 = the graph): out =
                      // node id, value = CUgraphNodeType, args = its addresses; flags 1 = a
                      // kernel's arguments could not be read
  kGraphEdge,         // an edge built by hand: node `parent` comes before node `out`; flags 1 =
                      // the edge was removed (cuGraphRemoveDependencies)
  kGraphExecEdit,     // a call that changed one instance (exec) of a graph in a way not read
                      // (cudaGraphExecUpdate, ...); flags 1 = it changes nothing the race
                      // check uses (cudaGraphNodeSetEnabled: a disabled node orders as an empty one)
  kGraphNodeUpdate,   // cuGraphExecUpdate gave instance `exec`'s node `out` (the id its replays
                      // carry) the parameters of node `parent` of the graph it was handed, as
                      // CUPTI pairs them (its GRAPH_NODE_UPDATED callback); correlation = the call
  kLaunchArgs,        // a launch's addresses past the 8 its record holds: correlation = the
                      // launch's (out = the node, for a graph's kernel node), args = 8 more
  kModuleLoad,        // CUDA loaded a module (CUPTI's MODULE_LOADED): correlation = the program's
                      // call it was loaded in (0 = none: an eager load), size = the cubin's bytes
  kContextCreated,    // CUDA created a context (CUPTI's CONTEXT_CREATED): correlation = the call
                      // it was created in (the program's first call that needed one)
  // Roles only the conversion gives (the recorder never writes them):
  kWaitWithoutRecord, // a torch.profiler stream wait whose event record the trace does not hold
};

// The number of roles; the last one of the enum.
inline constexpr size_t kCallRoleCount = static_cast<size_t>(CallRole::kWaitWithoutRecord) + 1;

// Each role's name in a recorder log, in the enum's order.
inline constexpr EnumNames<CallRole, kCallRoleCount> kCallRoleNames{{
    {CallRole::kOther, "other"},
    {CallRole::kLaunch, "launch"},
    {CallRole::kGraphLaunch, "graph_launch"},
    {CallRole::kStreamCreate, "stream_create"},
    {CallRole::kStreamDestroy, "stream_destroy"},
    {CallRole::kEventCreate, "event_create"},
    {CallRole::kEventDestroy, "event_destroy"},
    {CallRole::kRecord, "record"},
    {CallRole::kWaitEvent, "wait_event"},
    {CallRole::kSyncDevice, "sync_device"},
    {CallRole::kSyncStream, "sync_stream"},
    {CallRole::kSyncEvent, "sync_event"},
    {CallRole::kQueryEvent, "query_event"},
    {CallRole::kQueryStream, "query_stream"},
    {CallRole::kMalloc, "malloc"},
    {CallRole::kFree, "free"},
    {CallRole::kMallocHost, "malloc_host"},
    {CallRole::kHostRegister, "host_register"},
    {CallRole::kFreeHost, "free_host"},
    {CallRole::kMallocAsync, "malloc_async"},
    {CallRole::kFreeAsync, "free_async"},
    {CallRole::kMemcpy, "memcpy"},
    {CallRole::kMemcpyAsync, "memcpy_async"},
    {CallRole::kMemset, "memset"},
    {CallRole::kMemsetAsync, "memset_async"},
    {CallRole::kSetDevice, "set_device"},
    {CallRole::kPeerCopy, "peer_copy"},
    {CallRole::kNvtxPush, "nvtx_push"},
    {CallRole::kNvtxPop, "nvtx_pop"},
    {CallRole::kCorrelationAlias, "alias"},
    {CallRole::kCaptureStart, "capture_start"},
    {CallRole::kCaptureStop, "capture_stop"},
    {CallRole::kBeginCapture, "begin_capture"},
    {CallRole::kEndCapture, "end_capture"},
    {CallRole::kGraphNode, "graph_node"},
    {CallRole::kGraphNodeClone, "graph_node_clone"},
    {CallRole::kGraphEdit, "graph_edit"},
    {CallRole::kGraphBuild, "graph_build"},
    {CallRole::kGraphNodeParams, "graph_node_params"},
    {CallRole::kGraphEdge, "graph_edge"},
    {CallRole::kGraphExecEdit, "graph_exec_edit"},
    {CallRole::kGraphNodeUpdate, "graph_node_update"},
    {CallRole::kLaunchArgs, "launch_args"},
    {CallRole::kModuleLoad, "module_load"},
    {CallRole::kContextCreated, "context_created"},
    {CallRole::kWaitWithoutRecord, "unrecorded_wait"},
}};

constexpr std::string_view CallRoleName(CallRole role) { return NameOf(kCallRoleNames, role); }

// The role a log names; nullopt for a name no role has (a newer recorder's).
constexpr std::optional<CallRole> ParseCallRole(std::string_view name) { return ValueNamed(kCallRoleNames, name); }

// The table is in the enum's order, so CallRoleName is an index.
static_assert(InEnumOrder(kCallRoleNames));

}  // namespace streamlab
