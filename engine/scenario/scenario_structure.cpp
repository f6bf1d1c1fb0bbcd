// Cross-op rules the per-op checks in scenario.cpp cannot see.
// Threads: a per-thread default stream is used only by its own thread, and every other
// stream or event (the legacy default stream aside) by one thread only - so the order in
// which threads happen to call never changes what a record captures.
// Collectives: a group's parts are consecutive ops of one thread (one ncclGroupStart/End),
// agree on kind and size, and sit on distinct devices (one rank per GPU). A recorded
// program's parts come from several processes: spread out, on many threads, size unknown.
// Processes: a recorded program's threads and streams name one of its processes.
// Graphs: a graph_launch op is followed by its nodes (ops with graph = its index). Capture
// starts on the launch stream; another stream joins only by waiting on an event recorded
// inside the graph, and must be joined back into the launch stream before the graph ends
// (otherwise cudaStreamEndCapture fails with cudaErrorStreamCaptureUnjoined). A recorded
// replay's nodes follow the program's cudaGraphLaunch call (an api_call naming the launch
// stream) and run on the streams CUDA picked; graph_after names their graph's edges.
#include "engine/scenario/scenario_structure.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "engine/util/errors.h"

namespace streamlab {
namespace {

std::string At(size_t i) { return "ops[" + std::to_string(i) + "]"; }

void ValidateThreads(const Scenario& s) {
  std::map<std::pair<int, int>, int> per_thread_default;  // (device, thread) -> stream
  for (size_t i = 0; i < s.streams.size(); ++i) {
    const StreamDesc& st = s.streams[i];
    if (st.kind != StreamKind::kPerThreadDefault) continue;
    if (!per_thread_default.emplace(std::make_pair(st.device, st.thread), static_cast<int>(i)).second)
      throw InputError("streams[" + std::to_string(i) + "]: thread " + std::to_string(st.thread) +
                       " already has a per-thread default stream on device " + std::to_string(st.device));
  }
  std::vector<int> stream_thread(s.streams.size(), -1), event_thread(s.events.size(), -1);
  auto claim = [&](std::vector<int>& owner, int index, int thread, size_t op, const std::string& what) {
    if (index < 0) return;
    if (owner[index] >= 0 && owner[index] != thread)
      throw InputError(At(op) + ": " + what + " is used by host threads " + std::to_string(owner[index]) +
                       " and " + std::to_string(thread) + "; give each thread its own");
    owner[index] = thread;
  };
  // A recorded program may share a stream between threads (PyTorch's autograd thread uses
  // the main thread's streams); only a scenario that is to be run needs one owner each.
  if (s.recorded) return;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    for (int st : {op.stream, op.other_stream}) {
      if (st < 0) continue;
      const StreamDesc& d = s.streams[st];
      if (d.kind == StreamKind::kLegacyDefault) continue;  // shared by every thread, as in CUDA
      if (d.kind == StreamKind::kPerThreadDefault && d.thread != op.thread)
        throw InputError(At(i) + ": " + d.name + " is the per-thread default stream of thread " +
                         std::to_string(d.thread) + ", not of thread " + std::to_string(op.thread));
      claim(stream_thread, st, op.thread, i, "stream " + d.name);
    }
    if (op.event >= 0) claim(event_thread, op.event, op.thread, i, "event " + s.events[op.event].name);
  }
}

bool IsGraphNodeKind(OpKind kind) {
  return kind == OpKind::kKernel || kind == OpKind::kRecord || kind == OpKind::kWaitEvent ||
         kind == OpKind::kWaitStream;
}

// Checks the nodes [first, end) of the graph launched by op `launch`.
void ValidateGraph(const Scenario& s, size_t launch, size_t first, size_t end) {
  const Op& l = s.ops[launch];
  std::set<int> captured{l.stream};
  std::map<int, int> recorded_on;        // event -> stream of its latest record in the graph
  std::map<int, size_t> last_work;       // stream -> index of its latest kernel / wait
  std::map<int, size_t> joined_after;    // stream -> the launch stream waited for it up to here
  for (size_t i = first; i < end; ++i) {
    const Op& op = s.ops[i];
    if (!IsGraphNodeKind(op.kind))
      throw InputError(At(i) + ": a graph node must be a kernel, record, wait_event or wait_stream");
    if (op.thread != l.thread) throw InputError(At(i) + ": a graph node runs on its launch's thread");
    const StreamDesc& st = s.streams[op.stream];
    if (st.kind != StreamKind::kCreated)
      throw InputError(At(i) + ": a default stream cannot be captured into a graph");
    if (st.device != s.streams[l.stream].device)
      throw InputError(At(i) + ": a graph's nodes are on the launch stream's device");
    int joins_from = -1;  // the stream whose work this op makes `op.stream` wait for
    if (op.kind == OpKind::kWaitEvent) {
      auto it = recorded_on.find(op.event);
      if (it == recorded_on.end())
        throw InputError(At(i) + ": a graph node may only wait on an event recorded inside the graph");
      joins_from = it->second;
    } else if (op.kind == OpKind::kWaitStream) {
      if (!captured.count(op.other_stream))
        throw InputError(At(i) + ": wait_stream inside a graph needs a stream already in the graph");
      joins_from = op.other_stream;
    }
    if (joins_from >= 0) captured.insert(op.stream);
    if (!captured.count(op.stream))
      throw InputError(At(i) + ": " + st.name + " joins graph " + At(launch) +
                       " only by waiting on an event recorded inside it");
    if (op.kind == OpKind::kRecord) recorded_on[op.event] = op.stream;
    else last_work[op.stream] = i;
    if (joins_from >= 0 && op.stream == l.stream) joined_after[joins_from] = i;
  }
  for (const auto& [stream, last] : last_work) {
    if (stream == l.stream) continue;
    auto j = joined_after.find(stream);
    if (j == joined_after.end() || j->second < last)
      throw InputError(At(launch) + ": " + s.streams[stream].name +
                       "'s last work is not joined back into " + s.streams[l.stream].name +
                       " (record an event after it and wait on it from the launch stream)");
  }
}

void ValidateGraphs(const Scenario& s) {
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.graph >= 0) {
      // A recorded replay's launch is the program's cudaGraphLaunch call, kept as an api_call
      // with the stream it was launched into.
      bool recorded_launch = op.graph < static_cast<int>(i) && s.recorded && s.ops[op.graph].kind == OpKind::kApiCall &&
                             s.ops[op.graph].other_stream >= 0;
      if (op.graph >= static_cast<int>(i) || (s.ops[op.graph].kind != OpKind::kGraphLaunch && !recorded_launch))
        throw InputError(At(i) + ".graph: must be the index of an earlier graph_launch op");
      for (int before : op.graph_after)
        if (before <= op.graph || before >= static_cast<int>(i) || s.ops[before].graph != op.graph)
          throw InputError(At(i) + ".graph_after: must name earlier nodes of the same graph launch");
      // Contiguous: the op before is the launch itself or another node of the same graph.
      if (op.graph != static_cast<int>(i) - 1 && s.ops[i - 1].graph != op.graph)
        throw InputError(At(i) + ": a graph's nodes must directly follow its launch");
    }
    if (op.graph < 0 && !op.graph_after.empty()) throw InputError(At(i) + ".graph_after: only a graph node has one");
    if (op.kind != OpKind::kGraphLaunch) continue;
    if (op.graph >= 0) throw InputError(At(i) + ": a graph cannot launch a graph");
    size_t end = static_cast<size_t>(GraphNodesEnd(s, static_cast<int>(i)));
    if (end == i + 1) throw InputError(At(i) + ": a graph needs at least one node after its launch");
    ValidateGraph(s, i, i + 1, end);
  }
}

void ValidateCollectives(const Scenario& s) {
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCollective) {
      if (op.collective_first >= 0) throw InputError(At(i) + ".collective_first: only a collective has one");
      continue;
    }
    int first = op.collective_first;
    if (first < 0 || first > static_cast<int>(i) || s.ops[first].kind != OpKind::kCollective ||
        s.ops[first].collective_first != first)
      throw InputError(At(i) + ".collective_first: must be the index of this collective's first part");
    if (first != static_cast<int>(i) && s.ops[i - 1].collective_first != first && !s.recorded)
      throw InputError(At(i) + ": a collective's parts must be consecutive ops");
    if (op.graph >= 0) throw InputError(At(i) + ": a collective cannot be a graph node here");
    const Op& head = s.ops[first];
    if (op.collective != head.collective || op.bytes != head.bytes || (op.thread != head.thread && !s.recorded))
      throw InputError(At(i) + ": every part of a collective has the same kind, size and host thread");
    if (static_cast<int>(i) != first) continue;
    std::vector<int> parts = CollectiveParts(s, first);
    if (parts.size() < 2) throw InputError(At(i) + ": a collective needs parts on at least two devices");
    if (op.bytes % (4 * parts.size()) != 0)
      throw InputError(At(i) + ".bytes: must be a multiple of 4 x the number of GPUs (whole floats per rank)");
    std::set<int> devices;
    for (int p : parts)
      if (!devices.insert(s.streams[s.ops[p].stream].device).second)
        throw InputError(At(p) + ": two parts of one collective on the same device");
  }
}

void ValidateProcesses(const Scenario& s) {
  int processes = static_cast<int>(s.processes.size());
  if (processes == 0 && s.thread_process.empty()) {
    for (size_t i = 0; i < s.streams.size(); ++i)
      if (s.streams[i].process != 0) throw InputError("streams[" + std::to_string(i) + "].process: there is one process");
    return;
  }
  if (!s.recorded) throw InputError("processes: only a recorded program has several processes");
  if (processes > 64) throw InputError("processes: at most 64");
  for (size_t t = 0; t < s.thread_process.size(); ++t)
    if (s.thread_process[t] < 0 || s.thread_process[t] >= std::max(processes, 1))
      throw InputError("thread_process[" + std::to_string(t) + "]: no such process");
  for (size_t i = 0; i < s.streams.size(); ++i)
    if (s.streams[i].process < 0 || s.streams[i].process >= std::max(processes, 1))
      throw InputError("streams[" + std::to_string(i) + "].process: no such process");
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.stream >= 0 && op.stream < static_cast<int>(s.streams.size()) &&
        s.streams[op.stream].process != ProcessOfThread(s, op.thread))
      throw InputError(At(i) + ": its thread and its stream belong to different processes");
  }
}

}  // namespace

void ValidateThreadsAndGraphs(const Scenario& s) {
  ValidateProcesses(s);
  ValidateThreads(s);
  ValidateGraphs(s);
  ValidateCollectives(s);
}

}  // namespace streamlab
