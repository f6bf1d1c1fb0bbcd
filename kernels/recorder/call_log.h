// The recorder's in-process log of API calls: fixed-size records appended by the thread
// that made the call, into chunks that only that thread writes (no lock, no allocation
// except one chunk per 4096 calls), and drained to the log file by a writer thread, at exit
// and on fatal signals. Nothing here includes CUDA: the CUPTI side fills CallRecords.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>

namespace streamlab::recorder {

// What a call means for the program's streams; decides which arguments are kept.
enum class Role : uint8_t {
  kOther,        // any other API call (kept only when it took long enough to matter)
  kLaunch,       // kernel launch: stream; args = the addresses among its arguments
  kGraphLaunch,  // stream; exec = the instantiated graph launched
  kStreamCreate, // out = the new stream; flags, priority
  kStreamDestroy,
  kEventCreate,  // out = the new event; flags
  kEventDestroy,
  kRecord,       // event, stream
  kWaitEvent,    // stream, event, flags
  kSyncDevice,
  kSyncStream,   // stream
  kSyncEvent,    // event
  kQueryEvent,   // event; result = ready or not
  kQueryStream,  // stream
  kMalloc,       // size; out = pointer
  kFree,         // pointer
  kMallocHost,   // size, flags; out = pointer (cudaMallocHost / cudaHostAlloc)
  kHostRegister, // pointer, size
  kFreeHost,     // pointer
  kMallocAsync,  // stream-ordered (cudaMallocAsync, from a pool): stream, size; out = pointer
  kFreeAsync,    // stream-ordered free: stream, pointer
  kMemcpy,       // synchronous copy: bytes, direction; args = destination, source
  kMemcpyAsync,  // stream, bytes, direction; args = destination, source
  kMemset,       // synchronous memset; args = destination
  kMemsetAsync,  // stream; args = destination
  kSetDevice,    // device
  kPeerCopy,     // stream, bytes
  kNvtxPush,     // text
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
};

struct CallRecord {
  uint64_t begin = 0;        // CUPTI timestamps (ns), the same clock as activity records
  uint64_t end = 0;
  uint64_t correlation = 0;
  uint64_t stream = 0;       // handle, as the program passed it
  uint64_t event = 0;
  uint64_t out = 0;          // created stream / event / pointer, read after the call
  uint64_t size = 0;         // bytes
  uint64_t parent = 0;       // kCorrelationAlias: the runtime call's correlation id
  uint64_t exec = 0;         // an instantiated graph (CUgraphExec handle)
  const char* function = nullptr;  // CUPTI's static name of the API function
  uint32_t stream_id = UINT32_MAX; // CUPTI's id of `stream` (the id activity records use)
  uint32_t python_stack = 0;       // the Python stack at the call (python_stack.h), 0 = none
  int32_t flags = 0;
  int32_t priority = 0;
  int32_t value = 0;         // device for set_device, memcpy kind, query result
  int32_t status = 0;        // the call's return code
  Role role = Role::kOther;
  uint8_t domain = 0;        // 0 runtime, 1 driver, 2 NVTX
  uint8_t per_thread = 0;    // a _ptsz call: stream 0 means the per-thread default stream
  uint8_t nargs = 0;         // how many of `args` hold addresses
  uint8_t more_args = 0;     // a launch had more addresses than `args` holds
  union {
    char text[64] = {};      // NVTX range name
    // Addresses the call was handed: a launch's arguments that point into device memory; a
    // copy's destination and source; a memset's destination (launch_memory.h).
    uint64_t args[8];
  };
};

struct ThreadLog;

// The calling thread's log (created on first use, registered for the writer).
ThreadLog* CurrentThreadLog();
// Appends a finished record to the calling thread's log.
void Append(ThreadLog* log, const CallRecord& record);

// Opens the log file and starts the writer thread (every `period_ms`).
bool StartLog(const char* path, int period_ms);
// Writes everything appended so far; safe to call from any thread. `from_signal`: a fatal
// signal handler's best effort, which gives up rather than wait for the file.
void DrainCalls(bool from_signal = false);
// Work the writer does before each drain, off the program's threads (activity buffers, Python
// stacks): called with the drain's `from_signal`, without the log's file lock held. At most 4.
void AddBeforeDrain(void (*work)(bool from_signal));
// Writes one already formatted line (activity records, metadata).
void WriteLine(const char* line, size_t length);
// Stops the writer, drains, closes. After this nothing is written.
void StopLog();
// In a forked child: forget the parent's file and threads, write nothing.
void DisableLog();

}  // namespace streamlab::recorder
