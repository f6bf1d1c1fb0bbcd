// Builds small recorder logs (the JSON lines kernels/recorder writes) call by call, so a test
// can set up each ordering of a recorded program on its own: kernels handed addresses, copies,
// records, waits, syncs, stream-ordered allocations, and CUDA graphs captured and replayed.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

#include "engine/ingest/recording.h"

namespace streamlab::testing {

// A log of one thread on three non-blocking streams (handles 77, 88 and 99, CUPTI ids 13, 14
// and 15). Any other stream number is a stream CUDA picked for a graph's node: its id is itself.
class Log {
 public:
  // `pid`: the process; a merged run's logs also need Clock.
  explicit Log(int pid = 7) {
    text_ = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":" + std::to_string(pid) +
            ",\"start\":0}\n";
    Call("cudaStreamCreateWithFlags", "stream_create", ",\"stream\":77,\"sid\":13,\"flags\":1");
    Call("cudaStreamCreateWithFlags", "stream_create", ",\"stream\":88,\"sid\":14,\"flags\":1");
    Call("cudaStreamCreateWithFlags", "stream_create", ",\"stream\":99,\"sid\":15,\"flags\":1");
  }
  // A kernel on `stream` (77 or 88) handed `ptrs` ("[4096]"), running for `ns` from its launch.
  // `name`: the kernel's (mangled) name; kernels of one name are one kernel to the analysis.
  Log& Kernel(int stream, const std::string& ptrs, int ns = 10000, const std::string& name = "_Z1kPf") {
    int corr = Call("cudaLaunchKernel", "launch", ",\"stream\":" + std::to_string(stream) + ",\"ptrs\":" + ptrs);
    Activity("kernel", corr, stream, ns,
             ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"" + name + "\"");
    return *this;
  }
  // A kernel handed `ptrs` read at byte offsets `at` ("[0,8]") of its argument block, as the
  // recorder logs them since 2026-11-29. `name`: as the activity gives it (a demangled name is
  // kept as is).
  Log& KernelAt(int stream, const std::string& ptrs, const std::string& at, const std::string& name) {
    int corr = Call("cudaLaunchKernel", "launch", ",\"stream\":" + std::to_string(stream) + ",\"ptrs\":" + ptrs + ",\"ptr_at\":" + at);
    Activity("kernel", corr, stream, 10000,
             ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"" + name + "\"");
    return *this;
  }
  // A kernel handed more than a record's 8 addresses: the rest come first, in a launch_args
  // record, as the recorder writes them. `crowded`: it had more than the recorder keeps.
  Log& KernelHandedMany(int stream, const std::string& first8, const std::string& rest, bool crowded = false) {
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"launch arguments\",\"role\":\"launch_args\",\"dom\":0,\"b\":" +
             std::to_string(now_) + ",\"e\":" + std::to_string(now_) + ",\"corr\":" + std::to_string(corr_ + 1) +
             ",\"ptrs\":" + rest + "}\n";
    int corr = Call("cudaLaunchKernel", "launch", ",\"stream\":" + std::to_string(stream) + ",\"ptrs\":" + first8 +
                                                      (crowded ? ",\"ptrs_more\":1" : ""));
    Activity("kernel", corr, stream, 10000,
             ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"_Z1kPf\"");
    return *this;
  }
  Log& Memset(int stream, uint64_t dst) {
    int corr = Call("cudaMemsetAsync", "memset_async",
                    ",\"stream\":" + std::to_string(stream) + ",\"size\":4096,\"dst\":" + std::to_string(dst));
    Activity("memset", corr, stream, 2000, ",\"bytes\":4096");
    return *this;
  }
  Log& Record(int stream, int event) {
    Call("cudaEventRecord", "record", Where(stream) + ",\"event\":" + std::to_string(event));
    return *this;
  }
  Log& Wait(int stream, int event) {
    Call("cudaStreamWaitEvent", "wait_event", Where(stream) + ",\"event\":" + std::to_string(event));
    return *this;
  }
  Log& Query(int event, bool ready) {
    Call("cudaEventQuery", "query_event", ",\"event\":" + std::to_string(event) + (ready ? ",\"value\":1" : ""));
    return *this;
  }
  Log& SyncStream(int stream) {
    Call("cudaStreamSynchronize", "sync_stream", Where(stream), 20000);
    return *this;
  }
  // cudaMallocAsync on `stream` returning `at` (`bytes` long), and cudaFreeAsync of `at`.
  Log& MallocAsync(int stream, uint64_t at, uint64_t bytes) {
    Call("cudaMallocAsync", "malloc_async", Where(stream) + ",\"out\":" + std::to_string(at) + ",\"size\":" +
                                                std::to_string(bytes));
    return *this;
  }
  Log& FreeAsync(int stream, uint64_t at) {
    Call("cudaFreeAsync", "free_async", Where(stream) + ",\"out\":" + std::to_string(at));
    return *this;
  }
  // A blocking stream (cudaStreamCreate): the legacy default stream (handle 0) and it wait
  // for each other's work.
  Log& CreateBlocking(int stream) {
    Call("cudaStreamCreate", "stream_create", Where(stream) + ",\"flags\":0");
    return *this;
  }
  // [SECTION] CUDA graphs: a capture on `stream` builds nodes (numbered by the test) and runs
  // nothing; Instantiate copies each node (the copy is numbered node + 1000, as CUDA numbers
  // an instantiated graph's nodes apart); Replay runs the copies.
  Log& BeginCapture(int stream) {
    Call("cudaStreamBeginCapture", "begin_capture", Where(stream));
    return *this;
  }
  Log& EndCapture(int stream) {
    Call("cudaStreamEndCapture", "end_capture", Where(stream));
    return *this;
  }
  // A launch on a capturing stream: node `node`, handed `ptrs`.
  Log& CapturedKernel(int stream, const std::string& ptrs, uint64_t node) {
    GraphNode(corr_ + 1, node);
    Call("cudaLaunchKernel", "launch", ",\"stream\":" + std::to_string(stream) + ",\"ptrs\":" + ptrs);
    return *this;
  }
  Log& CapturedMemset(int stream, uint64_t dst, uint64_t node) {
    GraphNode(corr_ + 1, node);
    Call("cudaMemsetAsync", "memset_async",
         ",\"stream\":" + std::to_string(stream) + ",\"size\":4096,\"dst\":" + std::to_string(dst));
    return *this;
  }
  // `copy`: what the instance's node numbers add (a second instance of one graph needs its own).
  Log& Instantiate(std::initializer_list<uint64_t> nodes, uint64_t copy = 1000) {
    now_ += 100;  // inside cudaGraphInstantiate, after whatever came before it
    for (uint64_t n : nodes)
      text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph node cloned\",\"role\":\"graph_node_clone\",\"dom\":0,\"b\":" +
               std::to_string(now_) + ",\"e\":" + std::to_string(now_) + ",\"corr\":0,\"out\":" + std::to_string(n + copy) +
               ",\"parent\":" + std::to_string(n) + "}\n";
    now_ += 100;
    return *this;
  }
  // cudaGraphLaunch of instance `exec` (made with `copy`) on `stream`; each node's copy runs
  // on the stream given with it (a kernel of 10 us, one after the other in the list's order,
  // 1 us apart).
  struct Ran {
    uint64_t node;
    int stream;
    bool memset = false;
  };
  Log& Replay(int stream, std::initializer_list<Ran> nodes, uint64_t exec = 0, uint64_t copy = 1000) {
    int corr = Call("cudaGraphLaunch", "graph_launch", Where(stream) + (exec ? ",\"exec\":" + std::to_string(exec) : ""));
    long at = now_;
    for (const Ran& r : nodes) {
      std::string kind = r.memset ? "memset" : "kernel";
      std::string more = r.memset ? ",\"bytes\":4096" : ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"_Z1kPf\"";
      text_ += "{\"t\":\"" + kind + "\",\"corr\":" + std::to_string(corr) + ",\"dev\":0,\"sid\":" + std::to_string(Sid(r.stream)) +
               ",\"b\":" + std::to_string(at) + ",\"e\":" + std::to_string(at + 10000) + more +
               ",\"graph\":1,\"node\":" + std::to_string(r.node + copy) + "}\n";
      at += 11000;
    }
    now_ = at;
    return *this;
  }
  // [SECTION] graphs changed after they were made: a node's parameters set again, for one
  // instance `exec` (cudaGraphExec*SetParams) or for the graph (0: instances made later).
  Log& SetKernel(uint64_t node, const std::string& ptrs, uint64_t exec = 0) {
    int corr = Call(exec ? "cudaGraphExecKernelNodeSetParams" : "cudaGraphKernelNodeSetParams", "graph_edit", "");
    Params(corr, node, ",\"ptrs\":" + ptrs, exec);
    return *this;
  }
  Log& SetMemset(uint64_t node, uint64_t dst, uint64_t exec = 0) {
    int corr = Call(exec ? "cudaGraphExecMemsetNodeSetParams" : "cudaGraphMemsetNodeSetParams", "graph_edit", "");
    Params(corr, node, ",\"value\":2,\"dst\":" + std::to_string(dst), exec);
    return *this;
  }
  Log& RemovedEdge(uint64_t from, uint64_t to) {
    Edge(Call("cudaGraphRemoveDependencies", "graph_edit", ""), from, to, true);
    return *this;
  }
  // A call that changed instance `exec` in a way the recorder does not read (cudaGraphExecUpdate),
  // or, `harmless`, one that changes nothing the race check uses (cudaGraphNodeSetEnabled).
  Log& InstanceEdit(const std::string& fn, uint64_t exec, bool harmless = false) {
    int corr = Call(fn, "graph_edit", "");
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph instance changed\",\"role\":\"graph_exec_edit\",\"dom\":1,\"b\":" +
             std::to_string(Inside()) + ",\"e\":" + std::to_string(Inside()) + ",\"corr\":" + std::to_string(corr) +
             ",\"exec\":" + std::to_string(exec) + (harmless ? ",\"flags\":1" : "") + "}\n";
    return *this;
  }
  // cudaGraphExecUpdate of instance `exec` from another graph as the recorder logs it: a
  // graph_node_update per pair CUPTI names (the instance's node, as its replays carry it; the
  // other graph's node whose parameters it takes), then the instance edit of the driver call.
  // `failed`: the call returned an error (cudaErrorGraphExecUpdateFailure), and the recorder
  // logged no instance edit under it.
  Log& ExecUpdate(uint64_t exec, std::initializer_list<std::pair<uint64_t, uint64_t>> pairs, bool failed = false) {
    int corr = Call("cudaGraphExecUpdate", "graph_edit", failed ? ",\"status\":910" : "");
    for (const auto& [instance_node, source] : pairs)
      text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph node updated\",\"role\":\"graph_node_update\",\"dom\":0,\"b\":" +
               std::to_string(Inside()) + ",\"e\":" + std::to_string(Inside()) + ",\"corr\":" + std::to_string(corr) +
               ",\"out\":" + std::to_string(instance_node) + ",\"parent\":" + std::to_string(source) +
               ",\"exec\":" + std::to_string(exec) + "}\n";
    if (failed) return *this;
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph instance changed\",\"role\":\"graph_exec_edit\",\"dom\":1,\"b\":" +
             std::to_string(Inside()) + ",\"e\":" + std::to_string(Inside()) + ",\"corr\":" + std::to_string(corr) +
             ",\"exec\":" + std::to_string(exec) + "}\n";
    return *this;
  }
  // A call that may change a graph after its capture (role graph_edit), with nothing read under it.
  Log& GraphEdit(const std::string& fn) {
    Call(fn, "graph_edit", "");
    return *this;
  }
  // [SECTION] graphs built by hand: the program's call (role graph_build), then what the
  // recorder read from the driver call under it (the node, its parameters, its edges).
  // `more`: its addresses past the record's 8 (a launch_args record naming the node).
  Log& BuiltKernel(uint64_t node, const std::string& ptrs, std::initializer_list<uint64_t> after, bool unread = false,
                   const std::string& more = "") {
    int corr = Call("cudaGraphAddKernelNode", "graph_build", "");
    if (!more.empty())
      text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"launch arguments\",\"role\":\"launch_args\",\"dom\":1,\"b\":" +
               std::to_string(now_) + ",\"e\":" + std::to_string(now_) + ",\"corr\":" + std::to_string(corr) +
               ",\"out\":" + std::to_string(node) + ",\"ptrs\":" + more + "}\n";
    Built(corr, node, ",\"ptrs\":" + ptrs + (unread ? ",\"flags\":1" : ""), after);
    return *this;
  }
  Log& BuiltMemset(uint64_t node, uint64_t dst, std::initializer_list<uint64_t> after) {
    int corr = Call("cudaGraphAddMemsetNode", "graph_build", "");
    Built(corr, node, ",\"value\":2,\"dst\":" + std::to_string(dst), after);
    return *this;
  }
  Log& BuiltEdge(uint64_t from, uint64_t to) {
    Edge(Call("cudaGraphAddDependencies", "graph_build", ""), from, to);
    return *this;
  }
  // A building call whose driver call the recorder did not read: nothing follows it.
  Log& UnreadBuild(const std::string& fn) {
    Call(fn, "graph_build", "");
    return *this;
  }
  // cudaProfilerStart as the recorder logs it under --capture-range: only what follows is the trace.
  Log& RangeStart() {
    Call("cudaProfilerStart", "capture_start", "", 0);
    return *this;
  }
  Log& Pause(int ns) {
    now_ += ns;
    return *this;
  }
  // A reading of CUPTI's clock and the host's (a merged run aligns its processes by them).
  Log& Clock(uint64_t cupti, uint64_t host) {
    text_ += "{\"t\":\"clock\",\"cupti\":" + std::to_string(cupti) + ",\"host\":" + std::to_string(host) + ",\"err\":30}\n";
    return *this;
  }
  // The recorder's closing count; without it the log is an older recorder's.
  Log& Addresses(int read) {
    text_ += "{\"t\":\"addresses\",\"supported\":1,\"read\":" + std::to_string(read) + ",\"unread\":0}\n";
    return *this;
  }
  // Any line the recorder writes, as is (an "env" line, a module load's record).
  Log& Line(const std::string& json) {
    text_ += json + "\n";
    return *this;
  }
  // A record CUDA's callback writes inside the last call (module_load, context_created).
  Log& InsideLastCall(const std::string& role) {
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"" + role + "\",\"role\":\"" + role + "\",\"dom\":0,\"b\":" +
             std::to_string(now_ - 600) + ",\"e\":" + std::to_string(now_ - 600) + ",\"corr\":" + std::to_string(corr_) + "}\n";
    return *this;
  }
  // A call that took `ns` (a context's creation inside cudaFree(0), a slow launch).
  Log& SlowCall(const std::string& fn, int ns) {
    Call(fn, "other", "", ns);
    return *this;
  }
  // Any call as the recorder logs it: `more` holds its other fields (",\"stream\":77").
  Log& AnyCall(const std::string& fn, const std::string& role, const std::string& more, int ns) {
    Call(fn, role, more, ns);
    return *this;
  }
  long Now() const { return now_; }
  Log& Skip(long ns) {  // past lines written by hand (Line) with times from Now()
    now_ += ns;
    return *this;
  }
  Trace Convert() const { return TraceFromRecording(ParseRecording(text_, "races.jsonl")); }
  const std::string& text() const { return text_; }

 private:
  static int Sid(int stream) { return stream == 77 ? 13 : stream == 88 ? 14 : stream == 99 ? 15 : stream; }
  static std::string Where(int stream) {
    return ",\"stream\":" + std::to_string(stream) + ",\"sid\":" + std::to_string(Sid(stream));
  }
  void GraphNode(int corr, uint64_t node) {
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph node created\",\"role\":\"graph_node\",\"dom\":0,\"b\":" +
             std::to_string(now_) + ",\"e\":" + std::to_string(now_) + ",\"corr\":" + std::to_string(corr) +
             ",\"out\":" + std::to_string(node) + "}\n";
  }
  void Built(int corr, uint64_t node, const std::string& params, std::initializer_list<uint64_t> after) {
    GraphNode(corr, node);
    Params(corr, node, params, 0);
    for (uint64_t before : after) Edge(corr, before, node);
  }
  void Params(int corr, uint64_t node, const std::string& params, uint64_t exec) {
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph node built\",\"role\":\"graph_node_params\",\"dom\":1,\"b\":" +
             std::to_string(Inside()) + ",\"e\":" + std::to_string(Inside()) + ",\"corr\":" + std::to_string(corr) +
             ",\"out\":" + std::to_string(node) + (exec ? ",\"exec\":" + std::to_string(exec) : "") + params + "}\n";
  }
  void Edge(int corr, uint64_t from, uint64_t to, bool removed = false) {
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"graph edge added\",\"role\":\"graph_edge\",\"dom\":1,\"b\":" +
             std::to_string(Inside()) + ",\"e\":" + std::to_string(Inside()) + ",\"corr\":" + std::to_string(corr) +
             ",\"parent\":" + std::to_string(from) + ",\"out\":" + std::to_string(to) + (removed ? ",\"flags\":1" : "") +
             "}\n";
  }
  // A time inside the call just made (what the recorder read under it is logged before it ends).
  long Inside() const { return now_ - 501; }
  int Call(const std::string& fn, const std::string& role, const std::string& more, int ns = 1000) {
    int corr = ++corr_;
    text_ += "{\"t\":\"call\",\"tid\":0,\"fn\":\"" + fn + "\",\"role\":\"" + role + "\",\"dom\":0,\"b\":" +
             std::to_string(now_) + ",\"e\":" + std::to_string(now_ + ns) + ",\"corr\":" + std::to_string(corr) +
             more + "}\n";
    now_ += ns + 500;
    return corr;
  }
  // GPU work starts right after its call and runs `ns` (streams do not wait for each other
  // here unless the log orders them: the test's orderings come from the calls).
  void Activity(const std::string& type, int corr, int stream, int ns, const std::string& more) {
    text_ += "{\"t\":\"" + type + "\",\"corr\":" + std::to_string(corr) + ",\"dev\":0,\"sid\":" +
             std::to_string(Sid(stream)) + ",\"b\":" + std::to_string(now_) + ",\"e\":" +
             std::to_string(now_ + ns) + more + "}\n";
  }
  std::string text_;
  int corr_ = 0;
  long now_ = 1000;
};

}  // namespace streamlab::testing
