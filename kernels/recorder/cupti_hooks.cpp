// The recording library that `streamlab-cli record` injects into a CUDA program
// (CUDA_INJECTION64_PATH): CUPTI callbacks log runtime and driver API calls with the
// arguments that decide ordering (which stream, which event, flags, sizes), and CUPTI
// activity gives each kernel, copy and memset its GPU times, joined by correlation id.
// Output: JSON lines in $STREAMLAB_RECORD_DIR/raw.<pid>.jsonl, converted by engine/trace.
// The program's behaviour is untouched: callbacks only copy arguments and append.
#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <span>

#include "kernels/recorder/api_roles.h"
#include "kernels/recorder/call_log.h"
#include "kernels/recorder/call_stack.h"
#include "kernels/recorder/cross_stream_reads.h"
#include "kernels/recorder/fatal_signals.h"
#include "kernels/recorder/graph_build.h"
#include "kernels/recorder/launch_memory.h"
#include "kernels/recorder/log_header.h"
#include "kernels/recorder/nvtx_ranges.h"
#include "kernels/recorder/python_sampler.h"
#include "kernels/recorder/python_stack.h"
#include "kernels/recorder/stack_policy.h"
#include "kernels/recorder/timed_range.h"

namespace streamlab::recorder {

// Activity records (activity.cpp). `work`: the kernel, copy and memset kinds from the start;
// SetWorkActivity switches those kinds on or off (the capture range).
bool StartActivity(bool work, int flush_ms);
bool SetWorkActivity(bool on);
void FlushActivity(bool forced);
void DropLaunchCallbacks(CUpti_SubscriberHandle subscriber);  // diagnosis: STREAMLAB_RECORD_LAUNCHES
uint64_t ApiRecordCount();

namespace {

CUpti_SubscriberHandle g_subscriber = nullptr;
pid_t g_pid = 0;
// Atomic: the timed window's thread (timed_range.h) reads it, and must not switch recording
// on or off once the exit handler has written the log.
std::atomic<bool> g_finished{false};
// Diagnosis (bench/record_overhead.sh): the callback returns at once, so what is left is
// CUPTI's own dispatch and activity.
bool g_empty_callbacks = false;
// Calls that are not about ordering are kept only when they took at least this long, so
// the thousands of cudaGetDevice calls PyTorch makes cost a callback and nothing more.
uint64_t g_other_min_ns = 2000;

// Per thread: the calls in progress (a runtime call encloses the driver calls it makes).
using Pending = PendingCall;
thread_local Pending t_stack[16];
thread_local int t_depth = 0;
thread_local int t_runtime_depth = 0;
// Counts the times the subscribed calls were cut back to the waiting ones: a call in progress
// then loses its exit, and each thread forgets such calls on its next call (ForgetLostCalls).
std::atomic<uint32_t> g_cutbacks{0};
thread_local uint32_t t_cutbacks_seen = 0;
// The addresses a runtime launch handed over, read in the driver launch it made inside
// (which knows the CUfunction and so the parameter sizes): `correlation` = the runtime call's.
struct NestedLaunch {
  uint64_t correlation = 0;
  LaunchAddresses addresses;
};
thread_local NestedLaunch t_nested_launch;
// The recorder's own time on this thread since its last logged call (CallRecord::own_ns): the
// work of each exit after its call's end, and of each entry before its call's begin.
thread_local uint64_t t_own_ns = 0;
// Its own time inside the program's call now running (CallRecord::own_in_ns): reading a runtime
// launch's arguments in its nested driver launch.
thread_local uint64_t t_own_in_ns = 0;
// Adds the exit's work after `end` to the thread's own time, however the exit returns.
struct ExitTail {
  uint64_t end;
  ~ExitTail() {
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    if (end && now > end) t_own_ns += now - end;
  }
};
// Launches whose addresses were read, and runtime launches that made no driver launch the
// recorder saw (their addresses are unknown): written at exit, so the conversion can say so.
std::atomic<uint64_t> g_launches_read{0}, g_launches_unread{0};
bool g_addresses_supported = false;

uint64_t Now() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

// [SECTION] capture range (record --capture-range cudaProfilerApi) ------------------------

// The calls of one API subscribed: the listed ones by default; `choice` "all" subscribes the
// whole domain, "none" nothing (diagnosis: bench/record_overhead.sh measures each part).
void EnableCalls(CUpti_CallbackDomain domain, const char* choice, std::span<const CUpti_CallbackId> calls) {
  if (choice && std::strcmp(choice, "none") == 0) return;
  if (choice && std::strcmp(choice, "all") == 0) {
    cuptiEnableDomain(1, g_subscriber, domain);
    return;
  }
  for (CUpti_CallbackId id : calls) cuptiEnableCallback(1, g_subscriber, domain, id);
  DropLaunchCallbacks(g_subscriber);
}

// As Nsight Systems' option of that name: until the program calls cudaProfilerStart
// (torch.cuda.profiler.start()) only stream creation is recorded, and after its first
// cudaProfilerStop nothing is. Outside the range the per-call callbacks and the GPU activity
// kinds are switched off, not just ignored, so the rest of the run pays (almost) nothing.
enum class Capture : int { kAlways, kWaiting, kOn, kDone };
std::atomic<Capture> g_capture{Capture::kAlways};
// Diagnosis (bench/launch_rate.py's paired batches): every start/stop pair is a range, not
// only the first. The conversion reads the last range only.
bool g_range_repeat = false;
// record --delay/--duration (timed_range.h): the window is chosen by time, and the program's own
// profiler calls are ordinary calls.
bool g_timed = false;

void AppendCaptureMark(Role role) {
  CallRecord r;
  r.begin = r.end = Now();
  r.role = role;
  bool start = role == Role::kCaptureStart;
  r.function = g_timed ? (start ? "record --delay" : "record --duration") : start ? "cudaProfilerStart" : "cudaProfilerStop";
  Append(CurrentThreadLog(), r);
}

// Graph captures open while waiting for the range (cudaStreamBeginCapture ... EndCapture):
// meanwhile every call is subscribed and logged, so that a graph captured before the range
// (torch.compile and torch.cuda.graph code capture in their first steps) and replayed in it
// has its captured calls. Captures are rare; the switching costs nothing per step.
std::mutex g_subscription_mutex;
int g_open_captures = 0;
std::atomic<bool> g_logging_capture{false};

// The driver's calls first: a runtime launch whose entry is seen then also has its driver
// launch seen inside it, which holds the launch's addresses.
void SubscribeAll() {
  EnableCalls(CUPTI_CB_DOMAIN_DRIVER_API, std::getenv("STREAMLAB_RECORD_DRIVER"), DriverCalls());
  EnableCalls(CUPTI_CB_DOMAIN_RUNTIME_API, std::getenv("STREAMLAB_RECORD_RUNTIME"), RuntimeCalls());
}

void SubscribeWaiting() {
  cuptiEnableDomain(0, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(0, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  g_cutbacks.fetch_add(1);
  EnableCalls(CUPTI_CB_DOMAIN_RUNTIME_API, nullptr, WaitingRuntimeCalls());
  EnableCalls(CUPTI_CB_DOMAIN_DRIVER_API, nullptr, WaitingDriverCalls());
}

// On the exit of a begin-capture call (`opened`) or an end-capture call (the capture ends
// whether it succeeded or not).
void FollowGraphCapture(bool opened) {
  std::lock_guard<std::mutex> lock(g_subscription_mutex);
  if (!opened && g_open_captures == 0) return;
  g_open_captures += opened ? 1 : -1;
  g_logging_capture.store(g_open_captures > 0, std::memory_order_relaxed);
  if (g_capture.load() != Capture::kWaiting) return;
  if (opened && g_open_captures == 1) SubscribeAll();
  if (!opened && g_open_captures == 0) SubscribeWaiting();
}

// A call whose entry was stamped before the subscription was cut back may never see its
// exit: this thread forgets those calls, so that its depth counts (which decide what is
// nested, and which call made a graph node) stay true.
void ForgetLostCalls() {
  t_cutbacks_seen = g_cutbacks.load();
  if (t_depth > 16) return;
  auto waiting = [](const Pending& p) {
    std::span<const CUpti_CallbackId> calls = p.runtime ? WaitingRuntimeCalls() : WaitingDriverCalls();
    for (CUpti_CallbackId id : calls)
      if (id == p.id) return true;
    return false;
  };
  t_depth = KeepSubscribedCalls(t_stack, t_depth, waiting, t_runtime_depth);
}

// Called on the exit of a start call (the runtime's and the driver's under it: the first wins).
void StartCapture() {
  std::lock_guard<std::mutex> lock(g_subscription_mutex);
  Capture waiting = Capture::kWaiting;
  if (!g_capture.compare_exchange_strong(waiting, Capture::kOn)) return;
  if (g_open_captures == 0) SubscribeAll();
  SetWorkActivity(true);
  AppendCaptureMark(Role::kCaptureStart);
}

// Called on the entry of a stop call: from here on nothing is recorded. Work still running on
// the GPU may lose its record, so programs synchronize before they stop (README says so).
void StopCapture() {
  std::lock_guard<std::mutex> lock(g_subscription_mutex);
  Capture on = Capture::kOn;
  if (!g_capture.compare_exchange_strong(on, g_range_repeat ? Capture::kWaiting : Capture::kDone)) return;
  AppendCaptureMark(Role::kCaptureStop);
  // A timed stop comes at any moment, not after the program synchronized: the GPU records of
  // work still running come in a grace period, and then the activity is switched off.
  if (!g_timed) SetWorkActivity(false);
  if (g_range_repeat) {
    if (g_open_captures == 0) SubscribeWaiting();
    return;
  }
  cuptiEnableDomain(0, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(0, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  cuptiEnableDomain(0, g_subscriber, CUPTI_CB_DOMAIN_NVTX);
}

// How long GPU records keep coming after a timed stop: work launched in the window that runs
// longer than this after it closes loses its record; everything launched after it closes costs
// the instrumentation meanwhile, and its records are dropped by the conversion.
constexpr uint64_t kTimedGraceMs = 250;
void EndTimedActivity() {
  if (!g_finished) SetWorkActivity(false);
}
void StartTimedCapture() {
  if (!g_finished) StartCapture();
}
void StopTimedCapture() {
  if (!g_finished) StopCapture();
}

// [SECTION] Python stacks: where in a Python program a call that holds the host was made ----
// (which calls get one: stack_policy.h)

// A call made after the thread spent this long outside CUDA calls gets the stack too: where
// the program came back to CUDA after its own work (what kept the GPU idle, if it was).
// The stack read at a call the log leaves out (a short cudaGetDevice before the launch) goes
// with the thread's next logged call instead: the same line of the program, a moment later.
// STREAMLAB_RECORD_RESUME_US sets the time outside CUDA (0: no such stacks).
uint64_t g_resume_ns = 1'000'000;
thread_local uint64_t t_last_exit = 0;
thread_local uint32_t t_resume_stack = 0;

bool g_python_stacks = false;

// [SECTION] the callback: enter stamps the time, exit appends one record -----------------

bool LoggedWhileWaiting(Role role) {
  return role == Role::kStreamCreate || role == Role::kBeginCapture || role == Role::kEndCapture ||
         role == Role::kGraphEdit || role == Role::kGraphBuild || g_logging_capture.load(std::memory_order_relaxed);
}

// A call's stream as the GPU sees it: the legacy default stream is 0 (or CU_STREAM_LEGACY),
// the per-thread one 2 (a _ptsz call's stream 0).
uint64_t StreamKey(const CallRecord& r) {
  if (r.stream == 0 && r.per_thread) return 2;
  return r.stream == 1 ? 0 : r.stream;
}

bool WritesDestination(Role role) {
  return role == Role::kMemcpy || role == Role::kMemcpyAsync || role == Role::kMemset || role == Role::kMemsetAsync;
}

void KeepAddresses(const LaunchAddresses& a, CallRecord& r) {
  KeepLaunchAddresses(a, r);
  g_launches_read.fetch_add(1, std::memory_order_relaxed);
}

void OnApi(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData* d) {
  bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  // For a capture range: only stream creation, graph captures and edits are logged, allocations followed.
  bool waiting = false;
  if (g_capture.load(std::memory_order_relaxed) != Capture::kAlways) {
    int control = g_timed ? 0 : ProfilerControl(runtime, id);
    if (control > 0 && d->callbackSite == CUPTI_API_EXIT) StartCapture();
    if (control < 0 && d->callbackSite == CUPTI_API_ENTER) return StopCapture();
    Capture now = g_capture.load(std::memory_order_relaxed);
    if (control != 0 || now == Capture::kDone) return;
    waiting = now == Capture::kWaiting;
  }
  if (g_empty_callbacks) return;
  if (d->callbackSite == CUPTI_API_ENTER) NoteCallEntry();
  else NoteCallExit();
  // A driver call the runtime made for one of the program's calls (cudaLaunchKernel calls
  // cuLaunchKernel): the runtime call is the op, so this one needs no timestamps.
  bool nested = !runtime && t_runtime_depth > 0;
  if (d->callbackSite == CUPTI_API_ENTER) {
    if (t_cutbacks_seen != g_cutbacks.load(std::memory_order_relaxed)) {
      ForgetLostCalls();
      nested = !runtime && t_runtime_depth > 0;
    }
    uint64_t begin = nested ? 0 : Now();
    uint32_t stack = 0;
    if (g_python_stacks && !nested && !waiting && StackOnEntry(runtime, id, d, begin, t_last_exit, g_resume_ns)) {
      stack = CapturePythonStack();
      uint64_t read = begin;
      begin = Now();  // the stack's time is the recorder's, not the call's
      t_own_ns += begin - read;
    }
    if (t_depth < 16) t_stack[t_depth] = {begin, d->correlationId, runtime, id, stack};
    ++t_depth;
    if (runtime) ++t_runtime_depth;
    return;
  }
  // An exit without its entry (callbacks were switched on while the call ran) is dropped.
  if (t_depth == 0) return;
  --t_depth;
  if (runtime && t_runtime_depth > 0) --t_runtime_depth;
  if (t_depth >= 16) return;
  const Pending& pending = t_stack[t_depth];
  if (pending.correlation != d->correlationId) return;
  CallRecord r;
  r.domain = runtime ? 0 : 1;
  r.correlation = d->correlationId;
  r.function = d->functionName;
  if (!runtime) {
    // A graph built by hand: what the driver call made, logged under the program's call (the
    // outermost one, as graph_node records name it), also while waiting for a range.
    LogGraphBuild(id, d, t_depth > 0 ? t_stack[0].correlation : d->correlationId, g_addresses_supported);
  }
  if (nested) {
    if (g_addresses_supported && t_depth > 0) {
      uint64_t read_begin = Now();
      if (ReadDriverLaunch(id, d, t_nested_launch.addresses)) t_nested_launch.correlation = t_stack[t_depth - 1].correlation;
      t_own_in_ns += Now() - read_begin;
    }
    // Keep only the link, when activity may carry this call's correlation id.
    if (t_depth == 0 || t_stack[t_depth - 1].correlation == d->correlationId) return;
    r.role = Role::kCorrelationAlias;
    r.parent = t_stack[t_depth - 1].correlation;
    // The runtime call's time, not a fresh timestamp (unless it had none either).
    r.begin = r.end = t_stack[t_depth - 1].begin ? t_stack[t_depth - 1].begin : Now();
    Append(CurrentThreadLog(), r);
    return;
  }
  uint64_t end = Now();
  ExitTail tail{end};
  t_last_exit = end;
  uint64_t own_in = t_own_in_ns;  // this call's, logged or not
  t_own_in_ns = 0;
  r.begin = pending.begin;
  r.end = end;
  r.role = runtime ? RuntimeRole(id, d, r) : DriverRole(id, d, r);
  if (d->functionReturnValue) {
    r.status = runtime ? static_cast<int32_t>(*static_cast<const cudaError_t*>(d->functionReturnValue))
                       : static_cast<int32_t>(*static_cast<const CUresult*>(d->functionReturnValue));
  }
  if (r.status == 0) TrackAllocations(runtime, id, d);
  if (g_capture.load(std::memory_order_relaxed) != Capture::kAlways &&
      ((r.role == Role::kBeginCapture && r.status == 0) || r.role == Role::kEndCapture))
    FollowGraphCapture(r.role == Role::kBeginCapture);
  if (waiting && !LoggedWhileWaiting(r.role)) return;
  if (r.role == Role::kOther && end - pending.begin < g_other_min_ns && !KeptHoweverShort(runtime, id)) {
    if (pending.python_stack) t_resume_stack = pending.python_stack;
    return;
  }
  r.per_thread = IsPerThreadVariant(d->functionName) ? 1 : 0;
  r.device = ContextDevice(d->context);  // which device's legacy stream a stream-0 call used
  if (g_python_stacks) {
    uint32_t on_entry = pending.python_stack ? pending.python_stack : t_resume_stack;
    t_resume_stack = 0;
    r.python_stack = StackOnExit(runtime, id, d, r.role, end - pending.begin, on_entry, r.stream);
  }
  if (r.role == Role::kLaunch && g_addresses_supported) {
    LaunchAddresses direct;
    const LaunchAddresses* read = nullptr;
    if (runtime && t_nested_launch.correlation == r.correlation) read = &t_nested_launch.addresses;
    else if (!runtime && ReadDriverLaunch(id, d, direct)) read = &direct;
    if (read) KeepAddresses(*read, r);
    else g_launches_unread.fetch_add(1, std::memory_order_relaxed);
    t_nested_launch.correlation = 0;
    if (read && g_python_stacks && !r.python_stack && ReadsAnotherStreamsCopy(StreamKey(r), *read))
      r.python_stack = CapturePythonStack();
  }
  if (r.status == 0 && r.nargs > 0 && WritesDestination(r.role)) NoteCopyDestination(StreamKey(r), r.args[0], r.size);
  ReadOutputs(d, r);
  if (r.role == Role::kQueryEvent || r.role == Role::kQueryStream) r.value = r.status == 0 ? 1 : 0;
  if (NeedsStreamId(r.role) && d->context) {
    uint32_t sid = 0;
    CUcontext owner = r.stream > 2 ? nullptr : d->context;  // another GPU's stream: not checked against this one
    if (cuptiGetStreamIdEx(owner, reinterpret_cast<CUstream>(r.stream), r.per_thread, &sid) == CUPTI_SUCCESS)
      r.stream_id = sid;
  }
  r.own_ns = static_cast<uint32_t>(std::min<uint64_t>(t_own_ns, UINT32_MAX));
  r.own_in_ns = static_cast<uint32_t>(std::min<uint64_t>(own_in, end - r.begin));
  t_own_ns = 0;  // (this exit's own work, from here, goes to the thread's next logged call)
  Append(CurrentThreadLog(), r);
}

// Graph nodes: replayed work's activity records name the node (a clone made when the graph
// was instantiated) that ran it; these records lead back to the call, and the NVTX range,
// that created the original node while the program captured the graph, and, after
// cuGraphExecUpdate, to the node of the graph whose parameters the instance's node took. Subscribed for the
// whole run, also outside a capture range: programs capture before the steps they study.
void OnGraphNode(CUpti_CallbackId id, const CUpti_ResourceData* d) {
  const auto* g = static_cast<const CUpti_GraphData*>(d->resourceDescriptor);
  if (!g || !g->node) return;
  CallRecord r;
  r.begin = r.end = Now();
  uint64_t node = 0;
  if (cuptiGetGraphNodeId(g->node, &node) != CUPTI_SUCCESS) return;
  r.out = node;
  if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED) {
    r.role = Role::kGraphNode;
    r.function = "graph node created";
    r.value = static_cast<int32_t>(g->nodeType);
    // The program's own call (the outermost one: a runtime call encloses the driver calls
    // it makes, and the log names calls by the outer one).
    if (t_cutbacks_seen != g_cutbacks.load(std::memory_order_relaxed)) ForgetLostCalls();
    if (t_depth > 0) r.correlation = t_stack[0].correlation;
  } else if (id == CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED) {
    // cuGraphExecUpdate pairs each node of the instance (originalNode: the id its replays
    // carry) with a node of the graph it was handed (node), whose parameters it takes from now.
    uint64_t instance_node = 0;
    if (!g->originalNode || cuptiGetGraphNodeId(g->originalNode, &instance_node) != CUPTI_SUCCESS) return;
    r.role = Role::kGraphNodeUpdate;
    r.function = "graph node updated";
    r.out = instance_node;
    r.parent = node;
    r.exec = reinterpret_cast<uint64_t>(g->graphExec);
    if (t_cutbacks_seen != g_cutbacks.load(std::memory_order_relaxed)) ForgetLostCalls();
    if (t_depth > 0) r.correlation = t_stack[0].correlation;
  } else {
    uint64_t original = 0;
    if (!g->originalNode || cuptiGetGraphNodeId(g->originalNode, &original) != CUPTI_SUCCESS) return;
    r.role = Role::kGraphNodeClone;
    r.function = "graph node cloned";
    r.parent = original;
  }
  Append(CurrentThreadLog(), r);
}

// A module CUDA loaded, or a context it created, with the program's call it happened in: under
// lazy loading (the default since CUDA 12.2) a kernel's first launch loads its module, and the
// GPU work queued behind that launch waits for the load; the first call that needs a context
// pays for creating it (100 ms and more). Logged whether or not a capture range is open.
void OnLoadOrContext(CUpti_CallbackId id, const CUpti_ResourceData* d) {
  CallRecord r;
  r.begin = r.end = Now();
  if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto* m = static_cast<const CUpti_ModuleResourceData*>(d->resourceDescriptor);
    r.role = Role::kModuleLoad;
    r.function = "module loaded";
    r.size = m ? m->cubinSize : 0;
  } else {
    r.role = Role::kContextCreated;
    r.function = "context created";
  }
  if (t_cutbacks_seen != g_cutbacks.load(std::memory_order_relaxed)) ForgetLostCalls();
  if (t_depth > 0) r.correlation = t_stack[0].correlation;
  Append(CurrentThreadLog(), r);
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (g_finished || InRecorderCall()) return;
  if (domain == CUPTI_CB_DOMAIN_NVTX) return OnNvtx(id, static_cast<const CUpti_NvtxData*>(data));
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && (id == CUPTI_CBID_RESOURCE_MODULE_LOADED || id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED))
    return OnLoadOrContext(id, static_cast<const CUpti_ResourceData*>(data));
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (g_capture.load(std::memory_order_relaxed) != Capture::kDone)
      OnGraphNode(id, static_cast<const CUpti_ResourceData*>(data));
    return;
  }
  OnApi(domain, id, static_cast<const CUpti_CallbackData*>(data));
}

// [SECTION] lifetime: start, exit, fatal signals, fork ----------------------------------

// How many launches' addresses were read (the conversion's race check rests on them).
void WriteAddressCounts() {
  char line[160];
  int n = std::snprintf(line, sizeof(line), "{\"t\":\"addresses\",\"supported\":%d,\"read\":%" PRIu64 ",\"unread\":%" PRIu64 "}\n",
                        g_addresses_supported ? 1 : 0, g_launches_read.load(), g_launches_unread.load());
  WriteLine(line, static_cast<size_t>(n));
}

void Finish() {
  if (g_finished || getpid() != g_pid) return;
  StopPythonSampler();
  FlushActivity(true);
  WriteAddressCounts();
  WritePythonStackCounts();
  WriteClockPair();  // a second pair: how far the two clocks drifted over the run
  if (std::getenv("STREAMLAB_RECORD_LAUNCHES"))
    std::fprintf(stderr, "streamlab record: %" PRIu64 " API activity records\n", ApiRecordCount());
  g_finished = true;
  if (g_subscriber) cuptiUnsubscribe(g_subscriber);
  StopLog();
}

// On a fatal signal: what was recorded is written before the signal goes on (fatal_signals.h).
void SaveOnFatalSignal() {
  if (getpid() == g_pid && !g_finished) {
    DrainCalls(true);
    FlushActivity(false);
    DrainCalls(true);
  }
}

void OnForkChild() {
  g_finished = true;
  DisableLog();
}

// NVTX ranges reach CUPTI only when NVTX loads CUPTI as its injection; point it there
// (unless the user chose another) before the program's first NVTX call.
void RouteNvtxToCupti() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) && info.dli_fname)
    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

}  // namespace
}  // namespace streamlab::recorder

// Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH).
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace streamlab::recorder;
  static bool started = false;
  if (started) return 1;
  started = true;
  g_pid = getpid();
  const char* dir = std::getenv("STREAMLAB_RECORD_DIR");
  if (!dir || !*dir) return 1;
  if (const char* v = std::getenv("STREAMLAB_RECORD_MIN_OTHER_NS")) g_other_min_ns = std::strtoull(v, nullptr, 10);
  if (const char* v = std::getenv("STREAMLAB_RECORD_RESUME_US")) g_resume_ns = std::strtoull(v, nullptr, 10) * 1000;
  const char* empty = std::getenv("STREAMLAB_RECORD_EMPTY_CALLBACKS");
  g_empty_callbacks = empty && std::strcmp(empty, "1") == 0;
  const char* repeat = std::getenv("STREAMLAB_RECORD_RANGE_REPEAT");
  g_range_repeat = repeat && std::strcmp(repeat, "1") == 0;
  char path[4096];
  std::snprintf(path, sizeof(path), "%s/raw.%d.jsonl", dir, static_cast<int>(g_pid));
  // How often the log is written while the program runs (0: only at exit); diagnosis only.
  int flush_ms = 100;
  if (const char* v = std::getenv("STREAMLAB_RECORD_FLUSH_MS")) flush_ms = std::atoi(v);
  if (!StartLog(path, flush_ms)) {
    std::fprintf(stderr, "streamlab record: cannot write %s\n", path);
    return 1;
  }
  WriteMeta(static_cast<int>(g_pid));
  WriteClockPair();
  WriteSettings();
  // Diagnosis (bench/record_overhead.sh): STREAMLAB_RECORD_ADDRESSES=0 leaves arguments unread.
  const char* addresses = std::getenv("STREAMLAB_RECORD_ADDRESSES");
  g_addresses_supported = !(addresses && std::strcmp(addresses, "0") == 0) && StartLaunchMemory();
  const char* range = std::getenv("STREAMLAB_RECORD_RANGE");
  const char* delay_ms = std::getenv("STREAMLAB_RECORD_DELAY_MS");
  g_timed = delay_ms && *delay_ms;
  bool capture_range = g_timed || (range && std::strcmp(range, "cudaProfilerApi") == 0);
  if (cuptiSubscribe(&g_subscriber, OnCallback, nullptr) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "streamlab record: CUPTI is in use by another tool; recording GPU activity only\n");
    g_subscriber = nullptr;
  } else {
    if (capture_range) {
      g_capture.store(Capture::kWaiting);
      EnableCalls(CUPTI_CB_DOMAIN_RUNTIME_API, nullptr, WaitingRuntimeCalls());
      EnableCalls(CUPTI_CB_DOMAIN_DRIVER_API, nullptr, WaitingDriverCalls());
    } else {
      EnableCalls(CUPTI_CB_DOMAIN_RUNTIME_API, std::getenv("STREAMLAB_RECORD_RUNTIME"), RuntimeCalls());
      EnableCalls(CUPTI_CB_DOMAIN_DRIVER_API, std::getenv("STREAMLAB_RECORD_DRIVER"), DriverCalls());
    }
    cuptiEnableDomain(1, g_subscriber, CUPTI_CB_DOMAIN_NVTX);
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED);
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    RouteNvtxToCupti();
  }
  // Diagnosis only (bench/README.md): STREAMLAB_RECORD_ACTIVITY=0 records calls without GPU times.
  const char* activity = std::getenv("STREAMLAB_RECORD_ACTIVITY");
  if (!activity || std::strcmp(activity, "0") != 0) StartActivity(!capture_range, flush_ms > 0 ? 200 : 0);
  if (g_timed) {
    const char* duration_ms = std::getenv("STREAMLAB_RECORD_DURATION_MS");
    uint64_t duration = duration_ms ? std::strtoull(duration_ms, nullptr, 10) : 0;
    if (!StartTimedRange(std::strtoull(delay_ms, nullptr, 10), duration, kTimedGraceMs,
                          {StartTimedCapture, StopTimedCapture, EndTimedActivity})) {
      std::fprintf(stderr, "streamlab record: cannot start the --delay timer; recording from now\n");
      StartCapture();
    }
  }
  // A Python program's stacks: looked up now, when CPython has loaded the CUDA library.
  g_python_stacks = PythonStacksAvailable();
  if (g_python_stacks) AddBeforeDrain(WritePythonStacks);
  if (g_python_stacks) StartPythonSampler(Now);
  pthread_atfork(nullptr, nullptr, OnForkChild);
  InstallFatalSignalHandlers(SaveOnFatalSignal);
  std::atexit(Finish);
  return 1;
}
