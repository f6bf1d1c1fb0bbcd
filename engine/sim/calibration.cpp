// Calibration scenarios and the fit of each profile figure from their traces. Every figure
// is read the way the simulator applies it (sim_executor.cpp, sim_gpu.cpp), so that a run
// of these scenarios on the simulator gives back the profile it ran with.
#include "engine/sim/calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "engine/util/errors.h"

namespace streamlab {
namespace {

constexpr uint64_t kMB = 1 << 20;

CalibrationRun Calls() {
  // Steps shaped like a program's: short kernels on two streams ordered by events, which the
  // GPU keeps up with, so each call's cost is what a program pays (a launch onto a busy,
  // backed-up queue is cheaper, and no lab is like that).
  CalibrationRun r{"calls", {}, {}};
  ScenarioBuilder b("calibrate-calls");
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2"), s3 = b.CreateStream("s3");
  Event e1 = b.CreateEvent("e1"), e2 = b.CreateEvent("e2");
  for (int i = 0; i < 12; ++i) {
    std::string n = std::to_string(i);
    r.roles["launch"].push_back(s1.Launch("a" + n, Spin(Us(5), 1)));
    r.roles["record"].push_back(s1.Record(e1));
    r.roles["wait"].push_back(s2.Wait(e1));
    r.roles["launch"].push_back(s2.Launch("b" + n, Spin(Us(5), 1)));
    r.roles["record"].push_back(s2.Record(e2));
    r.roles["wait"].push_back(s1.Wait(e2));
  }
  // The sync waits for a last kernel still running: how long after the GPU's end it returns.
  s1.Launch("tail", Spin(Us(300), 1));
  s1.Record(e1);
  for (int i = 0; i < 10; ++i) r.roles["query"].push_back(b.host().Query(e1));
  r.roles["sync"].push_back(b.host().SyncDevice());
  for (int i = 0; i < 5; ++i) r.roles["set_device"].push_back(b.host().SetDevice(0));
  // The GPU's turnaround: short kernels queued behind a long one on one stream.
  s3.Launch("hold", Spin(Ms(1), 1));
  for (int i = 0; i < 20; ++i) r.roles["queued"].push_back(s3.Launch("q" + std::to_string(i), Spin(Us(5), 1)));
  b.host().SyncDevice();
  r.scenario = b.Build();
  return r;
}

CalibrationRun Latency() {
  CalibrationRun r{"latency", {}, {}};
  ScenarioBuilder b("calibrate-latency");
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2");
  Event e = b.CreateEvent("e");
  for (int i = 0; i < 8; ++i) {
    // A kernel released by another stream's event: its start after the event's kernel ends.
    r.roles["cross_from"].push_back(s1.Launch("long", Spin(Us(200), 1)));
    s1.Record(e);
    s2.Wait(e);
    r.roles["cross_to"].push_back(s2.Launch("released", Spin(Us(5), 1)));
    b.host().SyncDevice();
    // A launch onto an idle GPU: its start after the call returned.
    r.roles["idle_launch"].push_back(s1.Launch("idle", Spin(Us(5), 1)));
    b.host().SyncDevice();
  }
  r.scenario = b.Build();
  return r;
}

CalibrationRun Copies() {
  CalibrationRun r{"copies", {}, {}};
  ScenarioBuilder b("calibrate-copies");
  Stream s = b.CreateStream("s");
  Buffer pinned = b.PinnedBuffer("pinned", 64 * kMB);
  Buffer a = b.DeviceBuffer("a", 256 * kMB), c = b.DeviceBuffer("c", 256 * kMB);
  Buffer small_host = b.PinnedBuffer("small_host", 4096), small_dev = b.DeviceBuffer("small_dev", 4096);
  for (int i = 0; i < 3; ++i) {
    // A fresh pageable buffer each time, as a program copies a new host tensor: staging it
    // also faults its pages in, which a second copy of the same buffer would not show.
    Buffer pageable = b.PageableBuffer("pageable" + std::to_string(i), 64 * kMB);
    Buffer pageable_out = b.PageableBuffer("pageable_out" + std::to_string(i), 64 * kMB);
    auto timed = [&](const char* role, int op) {
      r.roles[role].push_back(op);
      s.Synchronize();
    };
    timed("small", s.Copy("small", small_dev, small_host, 4096));
    timed("h2d", s.Copy("h2d", a, pinned, 64 * kMB));
    timed("d2h", s.Copy("d2h", pinned, a, 64 * kMB));
    timed("d2d", s.Copy("d2d", c, a, 256 * kMB));
    timed("pageable", s.Copy("pageable", a, pageable, 64 * kMB));
    timed("pageable_d2h", s.Copy("pageable_d2h", pageable_out, a, 64 * kMB));
    timed("memset", s.Memset("memset", a, 256 * kMB));
    r.roles["memset_call"].push_back(b.host().Memset("memset_call", small_dev, 4096));
    b.host().SyncDevice();
  }
  r.scenario = b.Build();
  return r;
}

CalibrationRun Allocations() {
  // Every cudaMalloc before any cudaMallocHost: a 64 MB allocation made right after one took the
  // H100s and H200s of 2026-11-27 175-295 us, against 36-122 us after another cudaMalloc (the
  // figures per machine start are in bench/malloc_after_free.cu). A lab allocates before it pins
  // anything, as most programs' set-up does.
  CalibrationRun r{"allocations", {}, {}};
  ScenarioBuilder b("calibrate-allocations");
  std::vector<Buffer> made;
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    made.push_back(b.DeviceBuffer("d64_" + n, 64 * kMB));
    r.roles["malloc64"].push_back(b.host().Malloc(made.back()));
    made.push_back(b.DeviceBuffer("d256_" + n, 256 * kMB));
    r.roles["malloc256"].push_back(b.host().Malloc(made.back()));
  }
  for (Buffer buffer : made) r.roles["free"].push_back(b.host().Free(buffer));
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    Buffer p8 = b.PinnedBuffer("p8_" + n, 8 * kMB), p64 = b.PinnedBuffer("p64_" + n, 64 * kMB);
    r.roles["malloc_host8"].push_back(b.host().MallocHost(p8));
    r.roles["malloc_host64"].push_back(b.host().MallocHost(p64));
  }
  r.scenario = b.Build();
  return r;
}

CalibrationRun ModuleLoads() {
  // Lazy loading and no warm-up: the first launch of each function loads its module.
  CalibrationRun r{"module_loads", {}, {}};
  ScenarioBuilder b("calibrate-module-loads");
  b.settings().warmup = false;
  b.settings().lazy_loading = true;
  Stream s = b.CreateStream("s");
  for (int slot = 4; slot < 8; ++slot) {
    r.roles["first"].push_back(s.Launch("first" + std::to_string(slot), Spin(Us(5), 1, 128, slot)));
    b.host().SyncDevice();
    r.roles["again"].push_back(s.Launch("again" + std::to_string(slot), Spin(Us(5), 1, 128, slot)));
    b.host().SyncDevice();
  }
  r.scenario = b.Build();
  return r;
}

CalibrationRun Graphs() {
  CalibrationRun r{"graphs", {}, {}};
  ScenarioBuilder b("calibrate-graphs");
  Stream s = b.CreateStream("s");
  for (int i = 0; i < 3; ++i)
    for (int nodes : {4, 16}) {
      int launch = b.BeginGraph(s, "graph" + std::to_string(nodes));
      for (int k = 0; k < nodes; ++k) s.Launch("node" + std::to_string(k), Spin(Us(5), 1));
      b.EndGraph();
      r.roles["graph" + std::to_string(nodes)].push_back(launch);
      b.host().SyncDevice();
    }
  // Launches queued behind a long kernel: one launch's last node to the next one's first.
  s.Launch("hold", Spin(Us(300), 1));
  for (int i = 0; i < 6; ++i) {
    r.roles["chained"].push_back(b.BeginGraph(s, "chained"));
    for (int k = 0; k < 4; ++k) s.Launch("node" + std::to_string(k), Spin(Us(5), 1));
    b.EndGraph();
  }
  b.host().SyncDevice();
  r.scenario = b.Build();
  return r;
}

CalibrationRun Threads() {
  // Eight host threads, each launching one kernel: when each thread's first call comes.
  CalibrationRun r{"threads", {}, {}};
  ScenarioBuilder b("calibrate-threads");
  for (int t = 0; t < 8; ++t) {
    b.OnThread(t);
    Stream s = b.PerThreadDefaultStream(0, t);
    r.roles["first_call"].push_back(s.Launch("t" + std::to_string(t), Spin(Us(5), 1)));
    s.Synchronize();
  }
  r.scenario = b.Build();
  return r;
}

CalibrationRun Kernels(int sm_count) {
  // How many blocks fit on an SM (waves of 1024-thread and of 32-thread blocks), and the
  // per-block cost of each non-spin kernel kind.
  CalibrationRun r{"kernels", {}, {}};
  ScenarioBuilder b("calibrate-kernels");
  Stream s = b.CreateStream("s"), s2 = b.CreateStream("s2");
  Buffer counter = b.DeviceBuffer("counter", 4096);
  auto timed = [&](const char* role, int op) {
    r.roles[role].push_back(op);
    b.host().SyncDevice();
  };
  timed("wide", s.Launch("wide", Spin(Us(200), 2 * sm_count, 1024)));
  timed("many", s.Launch("many", Spin(Us(100), 64 * sm_count, 32)));
  timed("compute", s.Launch("compute", Compute(200000, 1)));
  timed("memory", s.Launch("memory", MemoryStream(16 * kMB, sm_count)));
  timed("shared", s.Launch("shared", SharedMemoryTiles(43000, 4)));
  // Two kernels adding to the same addresses, as in w2-myth-check (contended atomics).
  r.roles["atomic"].push_back(s.Launch("atomic1", Atomics(20000, 4), {}, {counter}));
  r.roles["atomic"].push_back(s2.Launch("atomic2", Atomics(20000, 4), {}, {counter}));
  b.host().SyncDevice();
  r.scenario = b.Build();
  return r;
}

CalibrationRun PeerCopies() {
  CalibrationRun r{"peer", {}, {}};
  ScenarioBuilder b("calibrate-peer", 2);
  Stream s = b.CreateStream("s");
  Buffer a = b.DeviceBuffer("a", 256 * kMB, 0), c = b.DeviceBuffer("c", 256 * kMB, 1);
  for (int i = 0; i < 3; ++i) {
    r.roles["peer"].push_back(s.PeerCopy("peer", c, a, 256 * kMB));
    s.Synchronize();
  }
  r.scenario = b.Build();
  return r;
}

double Median(std::vector<double> v) {
  if (v.empty()) throw RunError("calibration: nothing measured");
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Reads the traces, role by role.
class Fit {
 public:
  Fit(const std::vector<CalibrationRun>& runs, const std::vector<Trace>& traces) : runs_(runs), traces_(traces) {}

  bool Has(const std::string& run) const { return Find(run) >= 0; }

  // The median over a role's ops of f(trace, op index).
  template <typename F>
  double Median(const std::string& run, const std::string& role, F f) const {
    int i = Find(run);
    if (i < 0) throw RunError("calibration: no run " + run);
    std::vector<double> values;
    for (int op : runs_[i].roles.at(role)) values.push_back(static_cast<double>(f(traces_[i], op)));
    return streamlab::Median(values);
  }
  // What an op costs the host thread: from its call to the thread's next call. The
  // simulator advances a thread's clock by this much per call, so this - not the time inside
  // the call alone - is the figure (it includes the timing event a run records per op).
  double HostTime(const std::string& run, const std::string& role) const {
    return Median(run, role, [](const Trace& t, int op) { return NextCall(t, op) - t.ops[op].submit; });
  }
  double Duration(const std::string& run, const std::string& role) const {
    return Median(run, role, [](const Trace& t, int op) { return t.ops[op].end - t.ops[op].start; });
  }
  // When the thread that made call `op` made its next one (the call's return if none).
  static TimeNs NextCall(const Trace& t, int op) {
    for (size_t i = static_cast<size_t>(op) + 1; i < t.ops.size(); ++i)
      if (t.scenario.ops[i].thread == t.scenario.ops[op].thread && t.scenario.ops[i].graph < 0) return t.ops[i].submit;
    return t.ops[op].ret;
  }
  const Trace& TraceOf(const std::string& run) const { return traces_[Find(run)]; }
  const CalibrationRun& RunOf(const std::string& run) const { return runs_[Find(run)]; }

 private:
  int Find(const std::string& run) const {
    for (size_t i = 0; i < runs_.size() && i < traces_.size(); ++i)
      if (runs_[i].name == run) return static_cast<int>(i);
    return -1;
  }
  const std::vector<CalibrationRun>& runs_;
  const std::vector<Trace>& traces_;
};

// The median spacing of consecutive nodes of one graph launch (each graph is a chain):
// the device resolves those edges itself, faster than two launches on a stream.
double GraphNodeGap(const Trace& t) {
  std::vector<double> gaps;
  for (size_t i = 1; i < t.ops.size(); ++i) {
    const Op &op = t.scenario.ops[i], &before = t.scenario.ops[i - 1];
    if (op.graph >= 0 && before.graph == op.graph && t.ops[i].gpu && t.ops[i - 1].gpu)
      gaps.push_back(static_cast<double>(t.ops[i].start - t.ops[i - 1].end));
  }
  return Median(gaps);
}

// The median gap from one launch's last node to the next launch's first, over `launches`
// (queued back to back on one stream).
double GraphLaunchGap(const Trace& t, const std::vector<int>& launches) {
  auto nodes = [&](int launch, bool first) {
    TimeNs edge = first ? std::numeric_limits<TimeNs>::max() : 0;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.scenario.ops[i].graph == launch && t.ops[i].gpu)
        edge = first ? std::min(edge, t.ops[i].start) : std::max(edge, t.ops[i].end);
    return edge;
  };
  std::vector<double> gaps;
  for (size_t k = 1; k < launches.size(); ++k)
    gaps.push_back(static_cast<double>(nodes(launches[k], true) - nodes(launches[k - 1], false)));
  return Median(gaps);
}

}  // namespace

std::vector<CalibrationRun> CalibrationRuns(int sm_count, int devices) {
  std::vector<CalibrationRun> runs = {Calls(), Latency(), Copies(), Allocations(), ModuleLoads(), Graphs(),
                                      Threads(), Kernels(sm_count)};
  if (devices >= 2) runs.push_back(PeerCopies());
  return runs;
}

Calibration FitProfile(const std::vector<CalibrationRun>& runs, const std::vector<Trace>& traces,
                       const DeviceProfile& base) {
  if (runs.size() != traces.size()) throw RunError("calibration: one trace per run expected");
  Fit fit(runs, traces);
  Calibration c;
  c.profile = base;
  DeviceProfile& p = c.profile;
  auto ns = [](double v) { return static_cast<TimeNs>(std::llround(std::max(0.0, v))); };
  auto note = [&](const char* field, double value, double was, const char* how) {
    c.figures.push_back({field, value, was, how});
  };
  auto set_ns = [&](const char* field, TimeNs& target, double value, const char* how) {
    note(field, static_cast<double>(ns(value)), static_cast<double>(target), how);
    target = ns(value);
  };
  auto set_gbps = [&](const char* field, double& target, double bytes, double duration, const char* how) {
    double value = bytes / std::max(1.0, duration - static_cast<double>(p.copy_fixed));
    note(field, value, target, how);
    target = value;
  };

  // Host calls, the GPU's turnaround and the sync wake-up.
  const Trace& calls = fit.TraceOf("calls");
  p.sm_count = calls.sm_count > 0 ? calls.sm_count : p.sm_count;
  note("sm_count", p.sm_count, base.sm_count, "the device's SM count");
  set_ns("launch_host_ns", p.launch_host, fit.HostTime("calls", "launch"), "host cost of a kernel launch (call to next call)");
  set_ns("record_host_ns", p.record_host, fit.HostTime("calls", "record"), "host cost of cudaEventRecord (call to next call)");
  set_ns("wait_host_ns", p.wait_host, fit.HostTime("calls", "wait"), "host cost of cudaStreamWaitEvent (call to next call)");
  set_ns("query_host_ns", p.query_host, fit.HostTime("calls", "query"), "host cost of cudaEventQuery (call to next call)");
  set_ns("set_device_host_ns", p.set_device_host, fit.HostTime("calls", "set_device"), "host cost of cudaSetDevice (call to next call)");
  {
    const std::vector<int>& k = fit.RunOf("calls").roles.at("queued");
    std::vector<double> gaps;
    for (size_t i = 1; i < k.size(); ++i) gaps.push_back(static_cast<double>(calls.ops[k[i]].start - calls.ops[k[i - 1]].end));
    set_ns("same_stream_gap_ns", p.same_stream_gap, Median(gaps), "gap between queued kernels on one stream");
    int sync = fit.RunOf("calls").roles.at("sync").front();
    TimeNs last_end = 0;
    for (int i = 0; i < sync; ++i)
      if (calls.ops[i].gpu) last_end = std::max(last_end, calls.ops[i].end);
    set_ns("sync_wake_ns", p.sync_wake, static_cast<double>(Fit::NextCall(calls, sync) - last_end),
           "the host's next call after a sync, from the GPU's last end");
  }
  const Trace& latency = fit.TraceOf("latency");
  {
    const CalibrationRun& run = fit.RunOf("latency");
    std::vector<double> gaps;
    for (size_t i = 0; i < run.roles.at("cross_to").size(); ++i)
      gaps.push_back(static_cast<double>(latency.ops[run.roles.at("cross_to")[i]].start -
                                         latency.ops[run.roles.at("cross_from")[i]].end));
    set_ns("cross_stream_gap_ns", p.cross_stream_gap, Median(gaps), "start of a kernel released by another stream's event");
    set_ns("submit_latency_ns", p.submit_latency,
           fit.Median("latency", "idle_launch", [](const Trace& t, int op) { return t.ops[op].start - Fit::NextCall(t, op); }),
           "start of a launch onto an idle GPU after the host moved on");
  }

  // Copy engines and memsets.
  set_ns("copy_fixed_ns", p.copy_fixed, fit.Duration("copies", "small"), "duration of a 4 KB copy");
  set_gbps("h2d_pinned_gbps", p.h2d_pinned_gbps, 64.0 * kMB, fit.Duration("copies", "h2d"), "64 MB pinned host to device");
  set_gbps("d2h_pinned_gbps", p.d2h_pinned_gbps, 64.0 * kMB, fit.Duration("copies", "d2h"), "64 MB device to pinned host");
  set_gbps("d2d_gbps", p.d2d_gbps, 256.0 * kMB, fit.Duration("copies", "d2d"), "256 MB device to device");
  set_gbps("pageable_gbps", p.pageable_gbps, 64.0 * kMB, fit.Duration("copies", "pageable"), "64 MB pageable host to device");
  set_gbps("pageable_d2h_gbps", p.pageable_d2h_gbps, 64.0 * kMB, fit.Duration("copies", "pageable_d2h"),
           "64 MB device to pageable host");
  set_gbps("memset_gbps", p.memset_gbps, 256.0 * kMB, fit.Duration("copies", "memset"), "256 MB cudaMemsetAsync");
  set_ns("memset_host_ns", p.memset_host, fit.HostTime("copies", "memset_call"), "host cost of cudaMemset (call to next call)");

  // Allocations: a fixed cost plus a cost per MB, from two sizes.
  double m64 = fit.HostTime("allocations", "malloc64"), m256 = fit.HostTime("allocations", "malloc256");
  double per_mb = std::max(0.0, (m256 - m64) / 192);
  set_ns("malloc_per_mb_ns", p.malloc_per_mb, per_mb, "cudaMalloc: 256 MB against 64 MB");
  set_ns("malloc_base_ns", p.malloc_base, m64 - 64 * per_mb, "cudaMalloc: the rest of 64 MB's time");
  // (On an idle GPU the simulator's blocking call costs a status check, then its own work.)
  set_ns("free_host_ns", p.free_host, fit.HostTime("allocations", "free") - static_cast<double>(p.query_host),
         "cudaFree on an idle GPU, less a status check");
  double h8 = fit.HostTime("allocations", "malloc_host8"), h64 = fit.HostTime("allocations", "malloc_host64");
  double host_per_mb = std::max(0.0, (h64 - h8) / 56);
  set_ns("malloc_host_per_mb_ns", p.malloc_host_per_mb, host_per_mb, "cudaMallocHost: 64 MB against 8 MB");
  set_ns("malloc_host_base_ns", p.malloc_host_base, h8 - 8 * host_per_mb, "cudaMallocHost: the rest of 8 MB's time");

  // Lazy module loading: the first launch's extra host time, and how much later than an
  // ordinary launch its kernel starts (the simulator's load runs after the call's host
  // part, then the kernel follows it on its stream).
  double first = fit.HostTime("module_loads", "first"), again = fit.HostTime("module_loads", "again");
  set_ns("module_load_host_ns", p.module_load_host, first - again, "first launch of a function against a second one");
  double late = fit.Median("module_loads", "first", [](const Trace& t, int op) { return t.ops[op].start - Fit::NextCall(t, op); });
  set_ns("module_load_ns", p.module_load,
         late - static_cast<double>(p.submit_latency) + static_cast<double>(p.launch_host) -
             static_cast<double>(p.same_stream_gap),
         "first launch's start after its call, against an idle-GPU launch");

  // Graph launches: a fixed cost plus a cost per node, from two sizes.
  double g4 = fit.HostTime("graphs", "graph4"), g16 = fit.HostTime("graphs", "graph16");
  double per_node = std::max(0.0, (g16 - g4) / 12);
  set_ns("graph_node_host_ns", p.graph_node_host, per_node, "cudaGraphLaunch: 16 nodes against 4");
  set_ns("graph_launch_host_ns", p.graph_launch_host, g4 - 4 * per_node, "cudaGraphLaunch: the rest of 4 nodes' time");
  set_ns("graph_node_gap_ns", p.graph_node_gap, GraphNodeGap(fit.TraceOf("graphs")),
         "a graph node's start after the node before it ended");
  set_ns("graph_launch_gap_ns", p.graph_launch_gap, GraphLaunchGap(fit.TraceOf("graphs"), fit.RunOf("graphs").roles.at("chained")),
         "a queued graph launch's first node after the launch before it ended");

  // Host threads: the median spacing of their first calls, in time order (they start in
  // any order on a GPU machine).
  {
    const Trace& t = fit.TraceOf("threads");
    std::vector<double> starts, gaps;
    for (int op : fit.RunOf("threads").roles.at("first_call")) starts.push_back(static_cast<double>(t.ops[op].submit));
    std::sort(starts.begin(), starts.end());
    for (size_t i = 1; i < starts.size(); ++i) gaps.push_back(starts[i] - starts[i - 1]);
    set_ns("thread_spawn_ns", p.thread_spawn, Median(gaps), "spacing of eight host threads' first calls");
  }

  // What fits on an SM, from the number of waves, and the non-spin kernels' costs.
  double wide_waves = std::max(1.0, std::round(fit.Duration("kernels", "wide") / 200e3));
  p.max_threads_per_sm = 1024 * std::max(1, static_cast<int>(std::lround(2.0 / wide_waves)));
  note("max_threads_per_sm", p.max_threads_per_sm, base.max_threads_per_sm, "waves of 2 x SMs blocks of 1024 threads");
  double many_waves = std::max(1.0, std::round(fit.Duration("kernels", "many") / 100e3));
  p.max_blocks_per_sm = std::clamp(static_cast<int>(std::ceil(64.0 / many_waves)), 1, 64);
  note("max_blocks_per_sm", p.max_blocks_per_sm, base.max_blocks_per_sm, "waves of 64 x SMs blocks of 32 threads");
  auto per_unit = [&](const char* field, double& target, const char* role, double units, const char* how) {
    double value = fit.Duration("kernels", role) / units;
    note(field, value, target, how);
    target = value;
  };
  per_unit("compute_ns_per_fma", p.compute_ns_per_fma, "compute", 200000, "200 000 dependent FMAs per thread");
  per_unit("shared_ns_per_iter", p.shared_ns_per_iter, "shared", 43000, "43 000 shared-memory iterations");
  per_unit("atomic_ns", p.atomic_ns, "atomic", 20000, "two kernels' 20 000 contended atomics per thread");
  {
    double value = 16.0 * kMB / fit.Duration("kernels", "memory");
    note("sm_memory_gbps", value, p.sm_memory_gbps, "16 MB streamed by each SM's block");
    p.sm_memory_gbps = value;
  }
  if (fit.Has("peer")) set_gbps("peer_gbps", p.peer_gbps, 256.0 * kMB, fit.Duration("peer", "peer"), "256 MB between two GPUs");
  else c.kept.push_back("peer_gbps (one GPU)");
  c.kept.push_back("malloc_host_syncs_device");
  c.kept.push_back("priority_greatest, priority_least");
  return c;
}

}  // namespace streamlab
