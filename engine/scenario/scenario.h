// The Scenario: the stream/event program a lab runs, as plain data.
// Devices, streams, events and buffers are declared up front; `ops` is the ordered list of
// calls the host thread makes. Executors (simulated or CUDA) turn it into a Trace.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/util/time.h"

namespace streamlab {

enum class StreamKind {
  kCreated,           // cudaStreamCreateWithPriority(...)
  kLegacyDefault,     // stream 0 / cudaStreamLegacy: syncs with every blocking stream
  kPerThreadDefault,  // cudaStreamPerThread: blocking, but no sync with other streams
};

struct StreamDesc {
  std::string name;
  int device = 0;
  StreamKind kind = StreamKind::kCreated;
  bool non_blocking = false;  // cudaStreamNonBlocking: never syncs with the legacy stream
  int priority = 0;           // lower number = higher priority (CUDA convention)
  int thread = 0;             // per-thread default stream: the host thread it belongs to
  int process = 0;            // a recorded program of several processes: whose stream it is
  // Recorded: created inside a library's code (cuDNN, NCCL, ...), not by the program asking
  // for a stream: the library orders its own work, its ops are not the program's to fix.
  bool library = false;
};

struct EventDesc {
  std::string name;
  int device = 0;
};

enum class MemoryKind { kDevice, kPinnedHost, kPageableHost };

struct BufferDesc {
  std::string name;
  MemoryKind kind = MemoryKind::kDevice;
  int device = 0;  // for device buffers: which GPU
  uint64_t bytes = 0;
  // The same memory as an earlier buffer: what a caching allocator hands back after a free
  // (PyTorch reuses a freed block at once for its stream). -1 = its own memory.
  int alias_of = -1;
  // Contents are modelled and compared after the run (engine/sim/buffer_contents.h); spin
  // kernels write every element of a checked buffer, only a stamp per block otherwise.
  bool checked = false;
};

enum class OpKind {
  kKernel,
  kMemcpy,      // cudaMemcpyAsync on a stream, or cudaMemcpy (async = false)
  kMemset,      // cudaMemsetAsync on a stream, or cudaMemset (async = false)
  kMalloc,      // cudaMalloc of a device buffer
  kFree,        // cudaFree of a device buffer
  kMallocHost,  // cudaMallocHost of a pinned buffer
  kRecord,      // cudaEventRecord(event, stream)
  kWaitEvent,   // cudaStreamWaitEvent(stream, event)
  kWaitStream,  // stream.wait_stream(other): record on other, then wait on it
  kSyncDevice,
  kSyncStream,
  kSyncEvent,
  kQuery,       // cudaEventQuery
  kHostWork,    // the host computes for a while
  kSetDevice,
  kPeerCopy,    // cudaMemcpyPeerAsync between two devices' buffers
  kGraphLaunch, // cudaGraphLaunch(graph, stream): the ops that follow with graph = this op's
                // index are its nodes, captured from `stream` before the run
  kApiCall,     // any other API call of a recorded program that took host time (its name
                // says which; `duration` = how long the host was inside it)
  kCollective,  // one GPU's part of an NCCL collective over a group of GPUs. The parts are
                // consecutive ops (one ncclGroupStart ... ncclGroupEnd), one per device, each
                // on a stream of its device, in place on `buffer`; `collective_first` = the
                // index of the group's first part. No part finishes before every part started.
};

// What a collective computes; `bytes` is the size of each rank's whole buffer (nccl-tests'
// "size": the all-reduced buffer, all-gather's output, reduce-scatter's input).
enum class CollectiveKind { kAllReduce, kReduceScatter, kAllGather, kBroadcast };

enum class KernelKind {
  kSpin, kCompute, kMemory, kAtomic, kSharedMemory,
  kForeign,  // a recorded program's own kernel: name, launch shape and measured time only
};

struct KernelSpec {
  KernelKind kind = KernelKind::kSpin;
  // Which of several identical kernel functions to use (0..7). Distinct slots are distinct
  // CUDA functions, which matters for lazy module loading.
  int function_slot = 0;
  int grid = 1;
  int block = 128;
  // Work per block: spin = ns per block; compute = FMA iterations per thread;
  // memory = bytes streamed per block; atomic = atomics per thread; shared = iterations.
  int64_t work = 0;
  std::vector<int> reads;   // buffer indices
  std::vector<int> writes;  // buffer indices
  // Foreign kernels (work = measured duration in ns):
  std::string function;         // the full (demangled) function name
  int registers = 0;            // per thread
  int shared_bytes = 0;         // static + dynamic, per block
  int max_blocks_per_sm = 0;    // occupancy from the resources above (0 = unknown)
};

// How a recorded call used an address it was handed. A kernel's argument says only that the
// kernel may touch the memory there; a copy's ends and a memset's destination say how. A
// stream-ordered allocation (cudaMallocAsync) returned it, or a stream-ordered free
// (cudaFreeAsync) gave it back: those are host calls, not accesses, and order streams
// (happens_before.cpp).
enum class AddressUse : uint8_t { kArgument, kRead, kWrite, kAllocate, kFree };

struct AddressPassed {
  uint64_t at = 0;
  AddressUse use = AddressUse::kArgument;
  // A recorded kernel's argument: its byte offset in the kernel's argument block, -1 = unknown.
  // Which part of its arguments a library's kernel writes is known by place (analyzer).
  int offset = -1;
};

struct Op {
  OpKind kind = OpKind::kHostWork;
  std::string name;
  int stream = -1;        // the stream the op is issued to
  int event = -1;         // record / wait_event / sync_event / query
  int other_stream = -1;  // wait_stream: the stream waited for; a recorded stream-ordered
                          // allocation, free or graph launch (api_call): the stream it is
                          // ordered on
  int buffer = -1;        // malloc / free / malloc_host / memset destination
  int src = -1;           // memcpy / peer_copy
  int dst = -1;
  uint64_t bytes = 0;
  int value = 0;          // memset value
  bool async = true;      // memcpy / memset: the Async variant on `stream`
  TimeNs duration = 0;    // host_work, api_call: host time; a replayed recording's copy or
                          // memset: its measured GPU time (0 = the profile's model)
  // A replayed recording's copy the host waits in (pageable, or cudaMemcpy): the time its call
  // took from when its stream reached it (staging through the driver's buffer); the replay's
  // call lasts at least that long. 0 = no floor.
  TimeNs host_floor = 0;
  // A replayed recording's call that another host thread woke its thread for (PyTorch's
  // autograd thread starting a backward pass, the main thread going on after it): the call is
  // made no sooner than `woken_delay` after op `woken_by` (on another thread) returned. -1 = none.
  int woken_by = -1;
  TimeNs woken_delay = 0;
  // A replayed recording's call: the host's own time after it returns, to its thread's next
  // call (what the program did between the two). 0 for a lab's ops.
  TimeNs host_after = 0;
  int device = -1;        // set_device
  int thread = 0;         // the host thread that makes the call (0 = the main thread)
  int graph = -1;         // a graph node: the index of the graph_launch op that submits it
                          // (a recorded replay's: its cudaGraphLaunch api_call)
  // A recorded replay's node: the nodes of the same launch it comes after in its graph,
  // rebuilt from the capture (recording_graphs.h). Empty: a root, or its edges are unknown.
  std::vector<int> graph_after;
  CollectiveKind collective = CollectiveKind::kAllReduce;  // collective (broadcast: from part 0)
  int collective_first = -1;  // collective: the index of the group's first part
  KernelSpec kernel;
  // Recorded programs only: the query returned "done" (cudaSuccess), so the host knew the
  // work its event captured had finished before it made its next call.
  bool query_ready = false;
  // Recorded programs only: device addresses the call was handed (the race check compares
  // them; a lab's ops name their buffers instead).
  std::vector<AddressPassed> addresses;
};

// Per-process settings; they must be in force before the CUDA context exists.
struct RunSettings {
  int max_connections = 8;      // CUDA_DEVICE_MAX_CONNECTIONS
  bool lazy_loading = true;     // CUDA_MODULE_LOADING=LAZY (the default since CUDA 12.2)
  bool launch_blocking = false; // CUDA_LAUNCH_BLOCKING=1
  // Run the scenario once, unmeasured, before the measured run (loads every kernel's module,
  // warms caches). Off only for labs about first-launch effects.
  bool warmup = true;
  // A recorded program: whether the settings above are the process's own (its recording says
  // what its environment held) or the defaults assumed for a recording that does not say.
  bool known = true;
  // The recorded process's own environment settings (recorded_settings.h), as it saw them.
  std::map<std::string, std::string> env;
};

struct Scenario {
  static constexpr int kSchemaVersion = 1;
  std::string name;
  // What a recorded (or imported) program did, to be explained, not run: streams may be
  // shared by threads, and its kernels are foreign. The executors refuse it.
  bool recorded = false;
  int device_count = 1;
  RunSettings settings;
  std::vector<StreamDesc> streams;
  std::vector<EventDesc> events;
  std::vector<BufferDesc> buffers;
  std::vector<Op> ops;
  // A recorded program of several processes (torchrun ranks): their names and the process
  // of each host thread. Empty = one process. A legacy default stream, a device-wide wait
  // or a free reaches only its own process's streams.
  std::vector<std::string> processes;
  std::vector<int> thread_process;
  // A lab whose PyTorch program cannot be written op by op (autograd's backward() makes
  // its calls itself) gives the program's body by hand: Python defining thread_0(tag), where
  // "{op:N}" stands for the statement the generator writes for op N (torch_program.h).
  // Never read from or written to a scenario file: a file must not carry Python to run.
  std::string torch_source;
};

const char* ToString(StreamKind kind);
const char* ToString(MemoryKind kind);
const char* ToString(OpKind kind);
const char* ToString(KernelKind kind);
const char* ToString(CollectiveKind kind);
const char* ToString(AddressUse use);
// "0x7f3a00000000": how addresses are written in files and findings.
std::string FormatAddress(uint64_t address);
bool FromString(const std::string& text, AddressUse* out);
bool FromString(const std::string& text, StreamKind* out);
bool FromString(const std::string& text, MemoryKind* out);
bool FromString(const std::string& text, OpKind* out);
bool FromString(const std::string& text, KernelKind* out);
bool FromString(const std::string& text, CollectiveKind* out);

// True for ops that put work on a GPU stream (and so get a GPU span in the trace).
bool IsStreamOp(const Op& op);
// Kernels, copies, memsets and collectives: GPU ops with a duration (not records or waits).
bool IsGpuWork(const Op& op);
// A stream that synchronises with the legacy default stream.
bool IsBlockingStream(const StreamDesc& stream);
// Buffer indices that an op only reads / writes (kernels, copies, memsets).
std::vector<int> BuffersRead(const Op& op);
std::vector<int> BuffersWritten(const Op& op);

// The buffer whose memory `buffer` uses (itself unless it aliases another).
int StorageOf(const Scenario& scenario, int buffer);
// Per buffer: whether its memory (its own, or the memory it aliases) is modelled and
// checked. Computed once per scenario; index it by buffer.
std::vector<bool> CheckedStorage(const Scenario& scenario);
// Host threads the scenario uses (1 + the largest op.thread).
int ThreadCount(const Scenario& scenario);
// The process a host thread belongs to (0 unless the program had several), and how many.
int ProcessOfThread(const Scenario& scenario, int thread);
int ProcessCount(const Scenario& scenario);
// One past the last node of the graph launched by op `launch` (its nodes directly follow it).
int GraphNodesEnd(const Scenario& scenario, int launch);
// The parts of the collective that op `part` belongs to (op indices, first to last).
std::vector<int> CollectiveParts(const Scenario& scenario, int part);
// The collective's share of `bytes` that crosses the links per GPU, in units of `bytes`
// (ring algorithm: all-reduce 2(n-1)/n, reduce-scatter and all-gather (n-1)/n, broadcast 1),
// and the number of ring steps each pays a latency for.
double CollectiveBusFactor(CollectiveKind kind, int ranks);
int CollectiveSteps(CollectiveKind kind, int ranks);

// The most ops a scenario may hold: a few minutes of a training loop. A longer recording or
// torch.profiler trace is converted up to this many ops, and its notes say where it was cut.
// Above Analysis::kMaxExplainedOps the analyzer gives figures, not a finding per op; explain's
// account walks a sample of the steady steps and its predictions replay a window of them
// (bench/README.md: a 1 M-op recording explained whole).
inline constexpr size_t kMaxScenarioOps = 5000000;

// Throws InputError naming the first problem ("ops[3].stream: no stream 7").
void ValidateScenario(const Scenario& scenario);
// The same, plus: an executor can run it (a recorded program cannot be re-run).
void ValidateRunnable(const Scenario& scenario);

}  // namespace streamlab
