// Notes a recording's trace carries: what its race check rests on (what the recorder read of
// the kernels' arguments, and when that cannot support "no race found"), where a run too long
// for one trace was cut, and what a capture range's first calls are inferred to hold.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/ingest/recording.h"
#include "engine/trace/host_cost.h"
#include "engine/trace/trace_note.h"
#include "engine/util/format.h"

namespace streamlab {

std::vector<TraceNote> MemoryNotes(const Recording& r) {
  if (r.addresses < 0) return {Note("no_memory_access")};
  if (r.addresses == 0) return {Note("addresses_unsupported")};
  // Kernel nodes of graphs built by hand were read too (graph_node_params, value 0 = a kernel).
  auto kernel_node = [](const RecordedCall& c) { return c.role == CallRole::kGraphNodeParams && c.value == 0; };
  uint64_t nodes_read = std::count_if(r.calls.begin(), r.calls.end(), [&](const RecordedCall& c) {
    return kernel_node(c) && !(c.flags & 1);
  });
  uint64_t read = r.launches_read + nodes_read;
  std::vector<TraceNote> notes{Note("addresses_recorded", {{"n", std::to_string(read)}})};
  if (r.launches_unread) notes.push_back(Note("addresses_unread", {{"n", std::to_string(r.launches_unread)}}));
  // The recorder keeps 256 distinct addresses per launch; a launch handed more says so.
  uint64_t crowded = std::count_if(r.calls.begin(), r.calls.end(), [](const RecordedCall& c) { return c.more_args; });
  if (crowded) notes.push_back(Note("addresses_more", {{"n", std::to_string(crowded)}}));
  // Arguments were read but none pointed into memory the recorder saw made: the program
  // allocates in a way it does not follow, and finding no race would mean nothing.
  bool any_kernel_address = std::any_of(r.calls.begin(), r.calls.end(), [&](const RecordedCall& c) {
    return (c.role == CallRole::kLaunch || kernel_node(c)) && !c.args.empty();
  });
  if (read && !any_kernel_address) notes.push_back(Note("addresses_none_found"));
  return notes;
}

std::vector<TraceNote> PythonStackNotes(const Recording& r) {
  std::vector<TraceNote> notes;
  if (r.python_stacks_taken > 0) {
    notes.push_back(Note("python_stacks", {{"n", std::to_string(r.python_stacks_taken)},
                                           {"cost", FormatDuration(static_cast<TimeNs>(r.python_stack_cost_ns))}}));
  } else {
    // The totals are written at exit: a program that crashed has its stacks but not them.
    auto with_stack = std::count_if(r.calls.begin(), r.calls.end(), [](const RecordedCall& c) { return c.python_stack != 0; });
    if (with_stack > 0) notes.push_back(Note("python_stacks_no_total", {{"n", std::to_string(with_stack)}}));
  }
  if (r.python_stacks_over_budget > 0)
    notes.push_back(Note("python_stacks_budget", {{"n", std::to_string(r.python_stacks_over_budget)}}));
  if (r.sampler.period_us > 0 && (r.sampler.taken > 0 || r.sampler.faults > 0)) {
    notes.push_back(Note("python_samples", {{"n", std::to_string(r.sampler.taken)},
                                            {"period", FormatDuration(static_cast<TimeNs>(r.sampler.period_us * 1000))},
                                            {"after", FormatDuration(static_cast<TimeNs>(r.sampler.after_us * 1000))},
                                            {"cost", FormatDuration(static_cast<TimeNs>(r.sampler.cost_ns))}}));
  }
  if (r.sampler.faults > 0)
    notes.push_back(Note(r.sampler.stopped ? "python_samples_stopped" : "python_samples_faulted", {{"n", std::to_string(r.sampler.faults)}}));
  return notes;
}

std::vector<TraceNote> HostCostNotes(const Recording& r, size_t submitted, TimeNs span) {
  if (submitted == 0 || span <= 0) return {};
  bool kineto = r.source == "kineto";
  // A Kineto trace with PyTorch's ops profiled holds their ranges (CUDA activity alone has none).
  bool cpu_ops = kineto && std::any_of(r.marks.begin(), r.marks.end(), [](const RecordedMark& m) { return !m.frame; });
  double low = kineto ? (cpu_ops ? kProfilerCpuNs : kProfilerCudaLowNs) : kRecordLowNs;
  double high = kineto ? (cpu_ops ? kProfilerCpuNs : kProfilerCudaHighNs) : kRecordHighNs;
  auto low_ns = static_cast<TimeNs>(low * static_cast<double>(submitted));
  auto high_ns = static_cast<TimeNs>(high * static_cast<double>(submitted));
  auto percent = [&](TimeNs t) {
    double p = 100.0 * static_cast<double>(t) / static_cast<double>(span);
    char text[16];
    std::snprintf(text, sizeof text, p < 1 ? "%.2g" : p < 10 ? "%.1f" : "%.0f", p);
    return std::string(text);
  };
  const char* key = !kineto ? "recording_cost" : cpu_ops ? "profiler_cost_cpu" : "profiler_cost_cuda";
  auto us = [](double ns) {
    char text[16];
    std::snprintf(text, sizeof text, "%.1f", ns / 1000);
    return std::string(text);
  };
  return {Note(key, {{"per_call", low == high ? us(low) : us(low) + "-" + us(high)},
                     {"n", std::to_string(submitted)},
                     {"low", FormatDuration(low_ns)},
                     {"high", FormatDuration(high_ns)},
                     {"span", FormatDuration(span)},
                     {"low_share", percent(low_ns)},
                     {"high_share", percent(high_ns)}})};
}

// Measured: on two H200s (DDP, warm kernels, NCCL's threads running) each rank's first launch
// after cudaProfilerStart took 3.4-5.6 ms, and on an H100 a warm launch beside another
// launching thread 3.9-6.2 ms; with one thread and warm kernels it took 0.06-0.12 ms. A
// kernel's first launch in the process takes milliseconds with no recorder at all (H100:
// PyTorch's first sum 17-25 ms, 3-7 ms with CUDA_MODULE_LOADING=EAGER). Both fit a slow first
// launch, and the log cannot tell them apart.
std::shared_ptr<const Inference> FirstLaunchOfRange() {
  static const auto text = std::make_shared<const Inference>(Inference{
      "this first launch of the capture range took long: CUPTI switching GPU activity recording on as the "
      "range began can hold it (the recorder's cost, measured up to 6.2 ms when other threads were launching), "
      "and so can the program's own first launch of this kernel (module loading and first-call set-up: "
      "17-25 ms for PyTorch's first sum on an H100, with no recorder); the recording cannot tell which",
      "这是录制范围内的第一次 launch，耗时很长：范围开始时 CUPTI 开启 GPU 活动记录可能拖住它（录制器的开销，"
      "在其他线程也在 launch 时测得最多 6.2 ms），程序自己第一次 launch 这个内核也可能（加载模块和首次调用的"
      "准备：H100 上不录制时 PyTorch 的第一次 sum 需要 17-25 ms）；录制无法区分是哪一种",
      true});
  return text;
}

std::shared_ptr<const Inference> BesideFirstLaunchOfRange() {
  static const auto text = std::make_shared<const Inference>(Inference{
      "it ran beside another thread's slow first launch of the capture range; CUDA calls of different threads "
      "share the driver's locks, so it probably waited for that launch (whose cause is inferred there: CUPTI "
      "switching GPU activity recording on, or a kernel's first launch)",
      "它与另一个线程在录制范围内耗时很长的第一次 launch 同时进行；不同线程的 CUDA 调用共享驱动的锁，所以它"
      "很可能在等那次 launch（其原因在那里推断：CUPTI 开启 GPU 活动记录，或内核的第一次 launch）",
      true});
  return text;
}

namespace {
// A launch longer than this (launches take microseconds) at a range's start is a slow one.
constexpr uint64_t kSlowLaunchNs = 500000;
bool SlowLaunch(const RecordedCall& c) {
  return (c.role == CallRole::kLaunch || c.role == CallRole::kGraphLaunch) && c.end - c.begin > kSlowLaunchNs;
}
}  // namespace

SlowLaunches SlowFirstLaunches(const std::vector<const RecordedCall*>& calls) {
  SlowLaunches firsts;
  std::set<int> launched;  // recorder threads
  for (const RecordedCall* c : calls)
    if ((c->role == CallRole::kLaunch || c->role == CallRole::kGraphLaunch) && launched.insert(c->thread).second && SlowLaunch(*c))
      firsts[c] = {c->begin, c->end};
  return firsts;
}

std::shared_ptr<const Inference> RangeStartCost(const RecordedCall& c, const SlowLaunches& firsts) {
  if (firsts.count(&c)) return FirstLaunchOfRange();
  if (SlowLaunch(c))
    for (const auto& [first, span] : firsts)
      if (first->thread != c.thread && c.begin < span.second && c.end > span.first) return BesideFirstLaunchOfRange();
  return c.inferred;
}

std::shared_ptr<const Inference> WaitBeforeRange() {
  static const auto text = std::make_shared<const Inference>(
      Inference{"its event was recorded before the capture range began (or never): what it waited for "
                "is not in this recording",
                "它等待的事件在录制范围开始之前记录（或从未记录）：等待的内容不在本次录制中"});
  return text;
}

TraceNote CutNote(const Recording& r, size_t ops, TimeNs kept, TimeNs total, size_t calls_left_out) {
  // The advice depends on the source; a log read only in part (ParseRecording's line limit)
  // went on past what was read, so its totals are "at least".
  return Note(r.source == "kineto" ? "cut.kineto" : r.read_partly ? "cut.record_partly" : "cut.record",
              {{"ops", std::to_string(ops)},
               {"kept", FormatDuration(kept)},
               {"total", FormatDuration(total)},
               {"calls", std::to_string(calls_left_out)}});
}

}  // namespace streamlab
