// A recorded program (streamlab-cli record): the recorder's JSON-lines log, parsed, and
// turned into the Scenario + Trace the labs use, so every view and the analyzer work on it.
// Streams keep their real kind (legacy default, per-thread default, blocking / non-blocking,
// priority); each wait names the record it captured from the call's own arguments; the
// program's kernels are foreign kernels with measured times.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ingest/call_roles.h"
#include "engine/ingest/kernel_names.h"
#include "engine/trace/trace.h"

namespace streamlab {

// What an importer inferred rather than read (Kineto), in English and Chinese: one text is
// shared by a wait and the record it was matched to.
struct Inference {
  std::string en, zh;
  // The call is one of a capture range's slow first launches (OpRecord::slow_range_start).
  bool slow_range_start = false;
};

// One logged API call. A long run logs hundreds of thousands, so its fields are packed and
// the rare texts are kept apart.
struct RecordedCall {
  int thread = 0;
  int domain = 0;    // 0 runtime, 1 driver, 2 NVTX
  std::string function;
  CallRole role = CallRole::kOther;  // launch, record, wait_event, ... (call_roles.h)
  uint64_t begin = 0, end = 0, correlation = 0;
  uint64_t stream = 0, event = 0, out = 0, size = 0, parent = 0;
  uint64_t exec = 0;  // an instantiated graph: the one a graph_launch ran, or an edit changed
  int64_t stream_id = -1;  // CUPTI's id of `stream`, -1 = not resolved
  int flags = 0, priority = 0, value = 0, status = 0;
  int device = -1;          // the device of the context the call was made in; -1 = not logged
  bool per_thread = false;  // a _ptsz call
  bool more_args = false;   // a launch had more addresses among its arguments than were logged
  uint32_t python_stack = 0;  // the Python stack the recorder read at the call (Recording::python_stacks), 0 = none
  uint32_t own_ns = 0;        // the recorder's own time on the thread just before the call (outside calls)
  uint32_t own_in_ns = 0;     // ... inside the call, where it measured it (reading a launch's arguments)
  std::string text;         // NVTX range name
  // Addresses the call was handed: a launch's arguments that point into device memory; a
  // copy's destination then source; a memset's destination.
  std::vector<uint64_t> args;
  // A launch's: where each of `args` lay in its argument block (bytes); empty when the log
  // does not say (recordings before 2026-11-29).
  std::vector<uint16_t> arg_offsets;
  // Set by importers whose source does not say everything: what was inferred rather than
  // recorded; carried into the op's OpRecord. Null = nothing.
  std::shared_ptr<const Inference> inferred;
};

// A kernel's or a PyTorch op's name, which a long run repeats thousands of times (a demangled
// PyTorch kernel name can be a kilobyte): readers give every record of one name the same text
// (Intern).
class SharedName {
 public:
  SharedName() = default;
  SharedName& operator=(std::string text) {
    text_ = std::make_shared<const std::string>(std::move(text));
    return *this;
  }
  operator const std::string&() const { return text_ ? *text_ : Empty(); }
  // The pool's copy of `text`, added to it if new.
  static SharedName Intern(std::map<std::string, SharedName, std::less<>>& pool, std::string_view text) {
    auto it = pool.find(text);
    if (it == pool.end()) {
      SharedName name;
      name = std::string(text);
      it = pool.emplace(std::string(text), std::move(name)).first;
    }
    return it->second;
  }

 private:
  static const std::string& Empty() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};
using NamePool = std::map<std::string, SharedName, std::less<>>;

// A range mark an importer read from its source (a torch.profiler trace's PyTorch ops and
// annotations): a push opens a range named `text`, a pop closes the thread's innermost one. A
// long trace has several times more of them than API calls, so they are kept apart, compact.
struct RecordedMark {
  int thread = 0;
  bool push = false;
  uint64_t at = 0;
  SharedName text;  // a push's name (shared by every range of that name), "" for a pop
  bool frame = false;  // a recorded Python frame around a call (python_traceback.h)
};

struct RecordedActivity {
  std::string type;  // kernel, memcpy, memset
  uint64_t correlation = 0;
  int device = 0;
  int64_t stream_id = 0;
  uint64_t begin = 0, end = 0;
  SharedName name;             // kernel (mangled)
  int64_t grid = 1, block = 1; // total blocks, threads per block
  int registers = 0, shared_bytes = 0;
  uint64_t bytes = 0;
  int copy_kind = 0, src_kind = 0, dst_kind = 0;  // CUPTI's memcpy / memory kinds
  uint64_t graph_node = 0;     // replayed from a CUDA graph: the (instantiated) node; 0 = not
};

struct RecordedDevice {
  int id = 0;
  std::string name;
  int sms = 0, warps_per_sm = 0, blocks_per_sm = 0, regs_per_sm = 0, smem_per_sm = 0;
  std::string uuid;  // the physical GPU, the same in every process ("" = not logged)
};

// One reading of CUPTI's clock and the host's CLOCK_MONOTONIC at (about) the same moment;
// `err` = how far apart the two readings may be.
struct ClockPair {
  uint64_t cupti = 0, host = 0, err = 0;
};

struct Recording {
  int pid = 0;
  int rank = -1;                  // RANK of a distributed job's process, -1 = not set
  std::vector<ClockPair> clocks;  // at the start and at the end (several processes' logs)
  std::vector<RecordedCall> calls;
  std::vector<RecordedMark> marks;  // an importer's ranges, in time order per thread (a
                                    // recorder log's NVTX calls are calls, domain 2)
  std::vector<RecordedActivity> activity;
  std::vector<RecordedDevice> devices;
  // The Python stacks read at calls, by id: range names, outermost first (python_traceback.h);
  // how many calls got one, went without for the recorder's time budget, and what reading cost.
  std::map<uint32_t, std::vector<std::string>> python_stacks;
  uint64_t python_stacks_taken = 0, python_stacks_over_budget = 0, python_stack_cost_ns = 0;
  // The main thread's stack sampled while it was outside CUDA (kernels/recorder/python_sampler.h),
  // in the order taken, and the sampler's totals (written at exit; period 0 = no totals).
  struct PythonSample {
    int thread = 0;
    uint64_t at = 0;
    uint32_t stack = 0;
  };
  std::vector<PythonSample> python_samples;
  struct SamplerTotals {
    uint64_t taken = 0, reads = 0, cost_ns = 0, period_us = 0, after_us = 0;
    uint64_t faults = 0;   // reads that faulted (dropped)
    bool stopped = false;  // and sampling stopped for them
  } sampler;
  std::map<int, long> os_thread;  // recorder thread index -> OS thread id
  uint64_t dropped = 0;           // activity records CUPTI dropped
  uint64_t untimed = 0;           // GPU records CUPTI could not time (start and end 0): left out
  uint64_t cupti_overhead_ns = 0; // CUPTI's own overhead records (STREAMLAB_RECORD_OVERHEAD=1)
  // Kernel arguments: -1 = the log does not say (older recorder, Kineto), 0 = this driver
  // could not read them, 1 = read; how many launches were read, and how many could not be.
  int addresses = -1;
  uint64_t launches_read = 0, launches_unread = 0;
  // Where it came from: "record" (the recorder's log) or "kineto" (a torch.profiler trace).
  std::string source = "record";
  // Streams with no create call in the log are taken as non-blocking (PyTorch creates its
  // side streams that way; a Kineto trace has no create calls with flags).
  bool default_non_blocking = false;
  std::map<int64_t, std::string> stream_names;  // CUPTI stream id -> name, where known
  std::map<uint64_t, std::string> event_names;  // event handle -> name, where known
  std::vector<TraceNote> notes;                 // what the source could not say
  bool read_partly = false;                     // the log was longer than was read
  std::string driver;                           // driver version, where known
  // The process's own settings (recorded_settings.h) as it saw them when it initialised CUDA;
  // env_known false: the log has no such line (an older recorder, a Kineto trace).
  std::map<std::string, std::string> env;
  bool env_known = false;
};

// The process's own settings from its recording's "env" line into `settings` (known = the
// recording says them); a note that says them, or that they are not known (empty for a run
// that was not recorded).
void ApplyRecordedSettings(const Recording& recording, RunSettings& settings);
TraceNote SettingsNote(const RunSettings& settings, bool recorded);
// The streams created with a priority other than the default, and what that does (an empty
// note, no key, when there are none).
TraceNote PriorityNote(const Scenario& scenario);
// A stream the program did not ask for: the recording has Python stacks, and its creating call's
// stack has no stream API in it (PyTorch's torch/cuda/streams.py, CuPy), or it was made on a
// thread Python never ran on (`python_threads`: ThreadsWithPythonFrames). A C++ program's
// streams, and a call the recorder read no stack at on a Python thread, are the program's.
bool StreamMadeInsideLibrary(const Recording& recording, const RecordedCall& create, const std::set<int>& python_threads);
std::set<int> ThreadsWithPythonFrames(const Recording& recording);

// What a recording's race check rests on: whether the kernels' arguments were read, how many
// launches were, and whether any pointed into memory the recorder saw allocated.
std::vector<TraceNote> MemoryNotes(const Recording& recording);
// How many calls the recorder read the program's Python stack at, and how many it could not.
std::vector<TraceNote> PythonStackNotes(const Recording& recording);
// What recording (or torch.profiler) is estimated to have added to the host's time: the cost
// per call that submitted GPU work measured on the GPU machines (bench/README.md), times the
// trace's `submitted` such calls, against its `span` (from the first GPU work submitted).
std::vector<TraceNote> HostCostNotes(const Recording& recording, size_t submitted, TimeNs span);
// What an op of a capture range was inferred to hold: its first launch, CUPTI switching
// activity on; a wait whose event was recorded before the range, what it waited for.
std::shared_ptr<const Inference> FirstLaunchOfRange();
std::shared_ptr<const Inference> BesideFirstLaunchOfRange();
std::shared_ptr<const Inference> WaitBeforeRange();
// Of a capture range's calls (in time order), each thread's first kernel or graph launch when
// it took long; RangeStartCost: what such a launch, or another thread's slow launch made
// meanwhile (which waited for it), is inferred to hold, else the call's own inference.
using SlowLaunches = std::map<const RecordedCall*, std::pair<uint64_t, uint64_t>>;
SlowLaunches SlowFirstLaunches(const std::vector<const RecordedCall*>& calls);
std::shared_ptr<const Inference> RangeStartCost(const RecordedCall& call, const SlowLaunches& firsts);
// Where a run too long for one scenario was cut (its first `ops`, `kept` of its `total`
// time, `calls_left_out` later calls), and how to study another part of it.
TraceNote CutNote(const Recording& recording, size_t ops, TimeNs kept, TimeNs total, size_t calls_left_out);

// True if the text starts like a recorder log.
bool LooksLikeRecording(std::string_view text);
// The most lines of a recorder's log that are read: a trace holds far fewer ops than that.
inline constexpr size_t kMaxRecordingLines = 4'000'000;
// Throws InputError naming "path:line: what" for anything malformed. A log longer than
// `max_lines` is read up to there, with a note (read_partly).
Recording ParseRecording(std::istream& in, const std::string& path, size_t max_lines = kMaxRecordingLines);
Recording ParseRecording(const std::string& text, const std::string& path);
// A log file, read line by line (a long run's log can be larger than memory would like).
Recording ReadRecordingFile(const std::string& path);
// Every log in a folder (`record --raw-dir`: raw.<pid>.jsonl, one per process). A damaged log
// is skipped and its error kept in `problem`; `logs` = how many logs there were.
std::vector<Recording> ReadRecordingFolder(const std::string& dir, size_t* logs, std::string* problem);
// The Scenario + Trace of the recorded program (backend "record"). Throws InputError if
// the log holds no CUDA work at all. A run that would take more than `max_ops` ops is
// converted up to the call that would not fit, and the first note says where it was cut.
Trace TraceFromRecording(const Recording& recording, uint64_t* time_zero = nullptr,
                         size_t max_ops = kMaxScenarioOps);
// Several processes' recordings (one log per rank of a torchrun job) as one trace: each log's
// clock mapped onto the host's CLOCK_MONOTONIC through the clock pairs it logged (the error
// is in the notes), a lane group per process, and the NCCL kernels of different GPUs matched
// into collectives in the order each GPU ran them. One recording: TraceFromRecording.
Trace TraceFromRecordings(std::vector<Recording> recordings);

// Blocks of this kernel that fit on one SM at once (threads, warps, registers, shared
// memory against the device's limits); 0 when the device is unknown. An estimate: it
// ignores the register and shared-memory allocation details of each architecture.
int EstimateBlocksPerSm(const RecordedDevice& device, int threads_per_block, int registers,
                        int shared_bytes);

}  // namespace streamlab
