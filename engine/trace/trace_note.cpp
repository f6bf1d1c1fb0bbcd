// StreamLab's notes about a trace, in English: each key's template. The Chinese templates
// are "note.<key>" in assets/analyzer.json; tests hold both to the same {vars}.
#include "engine/trace/trace_note.h"

#include <stdexcept>
#include <vector>

#include "engine/util/format.h"

namespace streamlab {

const std::map<std::string, std::string>& EnglishNoteTemplates() {
  static const std::map<std::string, std::string> templates{
      // What a recording or an import holds, and what it cannot say.
      {"recorded", "recorded with CUPTI: {calls} API calls logged, {kernels} kernels, {copies} copies and memsets"},
      {"imported", "imported from a torch.profiler (Kineto) trace: {calls} API calls logged, {kernels} kernels, "
                   "{copies} copies and memsets"},
      {"cupti_clock", "host calls and GPU activity share CUPTI's clock; records and waits are placed where stream "
                      "order puts them (they have no GPU timestamp)"},
      {"priorities", "streams created with a priority (lower is higher; the default is 0): {list}. When SMs "
                     "free up, the GPU starts a higher-priority stream's pending blocks first; it does not stop "
                     "blocks already running, so a long kernel in the way still delays it"},
      {"settings_own", "the program's own environment when it initialised CUDA: {list}"},
      {"settings_default", "the program ran with CUDA's default settings (no CUDA_DEVICE_MAX_CONNECTIONS, "
                           "CUDA_MODULE_LOADING or CUDA_LAUNCH_BLOCKING in its environment)"},
      {"settings_unknown", "the trace does not say the program's environment settings (a torch.profiler trace, or "
                           "a recording made before StreamLab kept them): CUDA's defaults, 8 hardware queues per GPU "
                           "and lazy loading, are assumed, and findings that rest on them say so"},
      {"no_memory_access", "which memory each kernel reads and writes is not recorded: data races are not checked"},
      {"python_stacks", "the program's Python stack was read at {n} calls that held the host (syncs, copies, "
                        "allocations, and any call of 500 us or more) or came after 1 ms or more outside CUDA, {cost} "
                        "in all: a finding about such a call names the program's function and the line that made "
                        "the call"},
      {"python_stacks_no_total", "the program's Python stack was read at {n} calls that held the host (syncs, "
                                 "copies, allocations, and any call of 500 us or more) or came after 1 ms or more "
                                 "outside CUDA: a finding about such a call "
                                 "names the program's function and the line that made the call. What reading them "
                                 "cost is not logged: the program did not exit normally"},
      {"python_stacks_budget", "{n} such calls have no Python stack: reading stacks may take at most 1% of the run"},
      {"python_samples", "while the main thread was outside CUDA for {after} or more, its Python stack was sampled every "
                         "{period} from another thread ({n} samples, {cost} of that thread's time, not the program's): "
                         "where the host spent its own time is placed at the functions sampled there, an estimate "
                         "as good as the samples (a stretch shorter than {period} may have none)"},
      {"python_samples_faulted", "{n} of the sampler's reads of the main thread's stack faulted (its frames changed "
                                 "under the read): they were dropped, and the program went on as if not read"},
      {"python_samples_stopped", "the sampler stopped after {n} faulted reads: the run after the last one has no samples"},
      {"addresses_recorded", "the device addresses among each kernel's arguments ({n} launches or graph kernel nodes read), and each copy's "
                             "and memset's ends, are recorded: ops on two streams handed the same address with nothing "
                             "ordering them are reported as possible data races. A kernel's argument does not say "
                             "whether the kernel reads or writes there, or how many bytes, so such a race is inferred; "
                             "memory reached another way (an offset into a buffer that no copy or memset covered, a "
                             "pointer kept in memory) is not compared. A node replayed from a CUDA graph is compared "
                             "with the addresses of the call that captured or added it, or last set its parameters for "
                             "that instance, ordered by the graph's edges as its capture or the program built them"},
      {"replays_unchecked", "{n} ops replayed from CUDA graphs have no recorded arguments (a node inside a child "
                            "graph, a kernel node whose arguments could not be read, or a graph captured before the "
                            "capture range by an older StreamLab recorder): they are not checked for races"},
      {"replays_edited", "{n} ops replayed from CUDA graphs ran after {call} changed their graph or its instance in a "
                         "way the recording does not follow (or built a graph so): their arguments and edges may differ "
                         "from what was recorded, so they are not checked for races"},
      {"addresses_unread", "{n} kernel launches were recorded without their arguments (no driver launch seen inside "
                           "them): races involving those kernels are not checked"},
      {"addresses_more", "{n} launches were handed more than 256 device addresses (the recorder keeps 256 per launch): "
                         "races on the others are not checked"},
      {"addresses_none_found", "no kernel was handed an address inside device memory the recorder saw allocated "
                               "(it follows cudaMalloc, cuMemAlloc, stream-ordered, managed and pitched allocations "
                               "and cuMemMap): either the kernels take no pointers, or the program allocates another "
                               "way and their races are not checked"},
      {"addresses_unsupported", "this driver cannot give a kernel's parameter sizes (cuFuncGetParamInfo needs a CUDA "
                                "12.4 driver or later): kernels' addresses are not recorded, so only copies and memsets "
                                "are checked for races"},
      {"clock_not_measured", "the host/GPU clock error is not measured here: CUPTI stamps both sides with one clock"},
      {"capture_range", "recorded only between cudaProfilerStart and cudaProfilerStop (--capture-range "
                        "cudaProfilerApi): {us} us; what the program did before and after is not in this trace"},
      {"timed_range", "recorded only from {after} after the program initialised CUDA, for {us} us (record --delay, "
                      "--duration); what the program did before and after is not in this trace, and work in flight "
                      "when the window opened or closed may be cut"},
      {"cupti_overhead", "CUPTI reported {us} us of its own overhead (buffer flushes, instrumentation)"},
      {"cupti_dropped", "CUPTI dropped {n} activity records: some GPU work is missing"},
      {"cupti_untimed", "{n} GPU records (kernels, copies, memsets) came without timestamps (CUPTI could not "
                        "collect them): their calls are kept, their GPU work is not in the chart"},
      {"host_threads", "{n} host threads called CUDA (one host lane each)"},
      {"recording_cost", "recording lengthens each call that submits GPU work: by {per_call} us on the H100 and H200 "
                         "hosts measured (bench/README.md; tiny ops at the low end, a launch-bound BERT step's "
                         "launches at the high end), so this trace's {n} such calls hold an estimated "
                         "{low} to {high} of the recorder's own time ({low_share} to {high_share}% of its {span}). Where the "
                         "host set the pace the program runs about that much faster unrecorded; an estimate from "
                         "those machines, not measured in this run"},
      {"profiler_cost_cuda", "torch.profiler lengthens each call that submits GPU work: by {per_call} us with CUDA "
                             "activity only on the H100 hosts measured (bench/README.md), so this trace's {n} such "
                             "calls hold an estimated {low} to {high} of the profiler's own time ({low_share} to "
                             "{high_share}% of its {span}). Where the host set the pace the program runs about that "
                             "much faster unprofiled; an estimate from those machines, not measured in this run"},
      {"profiler_cost_cpu", "torch.profiler with PyTorch's ops profiled lengthens each op that submits GPU work: by "
                            "about {per_call} us on the H100 host measured (bench/README.md; more with stacks or shapes "
                            "recorded), so this trace's {n} such calls hold an estimated {low} or more of the "
                            "profiler's own time ({low_share}% or more of its {span}). Where the host set the pace "
                            "the program runs about that much faster unprofiled; an estimate from that machine, not "
                            "measured in this run"},
      {"unplaced_activity", "{n} GPU records (kernels, copies, memsets) have no API call in the trace (launched "
                            "before it began, by a call that was not logged, or filtered out): they are left out, "
                            "and a wait behind one of them shows as unexplained"},
      {"log_lines_limit", "the recorder's log is longer than {max} lines: only those were read"},
      // A run too long for one trace (TraceFromRecording's cut).
      {"cut.record", "only the first {ops} ops are in this trace, as many as fit: the run's first {kept} of {total}; "
                     "its {calls} later calls and their GPU work are left out. To study a later part, record only "
                     "those steps (record --capture-range cudaProfilerApi, with torch.cuda.profiler.start() and "
                     "stop() around them), or a window of time (record --delay S --duration S)"},
      {"cut.record_partly", "only the first {ops} ops are in this trace, as many as fit: the run's first {kept} of at "
                            "least {total}; its at least {calls} later calls and their GPU work are left out. To "
                            "study a later part, record only those steps (record --capture-range cudaProfilerApi, "
                            "with torch.cuda.profiler.start() and stop() around them), or a window of time "
                            "(record --delay S --duration S)"},
      {"cut.kineto", "only the first {ops} ops are in this trace, as many as fit: the run's first {kept} of {total}; "
                     "its {calls} later calls and their GPU work are left out. To study a later part, profile fewer "
                     "steps (torch.profiler's schedule(wait=..., warmup=..., active=...))"},
      // torch.profiler (Kineto) traces.
      {"kineto_no_args", "Kineto logs API calls without their arguments: each kernel's and copy's stream comes from "
                         "its GPU record, each wait's stream and event from its cuda_sync record; which "
                         "cudaEventRecord a wait captured, and on which stream, is inferred from host order and "
                         "timing, and every finding that rests on such an inference says so"},
      {"kineto_stream_kinds", "CUPTI stream 7 is taken as the legacy default stream (its number on the drivers we "
                              "recorded), and other streams as non-blocking, as PyTorch creates them; the trace does "
                              "not say either"},
      {"kineto_stack", "the trace holds the program's Python frames (with_stack=True): a finding about a host call "
                       "names the function of the program that made it, its caller, and the PyTorch ops around "
                       "the call. Not the line: torch.profiler gives a frame the line where it first saw it (a "
                       "function's first line), not the line of the call"},
      {"kineto_no_stack", "the trace holds no Python frames: profile with torch.profiler.profile(..., "
                          "with_stack=True) and a finding about a host call names the function of the program that "
                          "made it"},
      {"kineto_missing_sync", "some waits or stream syncs have no cuda_sync record (profile with "
                              "torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)): they are shown "
                              "as plain API calls"},
      // Several processes (record --raw-dir of a torchrun job).
      {"process_clock", "its clock pair read to within {error} ns, drift {drift} ppm over the run"},
      {"process_clock_unpaired", "its clock pair read to within {error} ns, no second pair (the process did not "
                                 "exit normally)"},
      {"processes_timeline", "the {n} processes are put on one timeline through the host's CLOCK_MONOTONIC: times of "
                             "different processes may disagree by up to {error} ns (their CUPTI clocks themselves "
                             "differed by {offset} ns)"},
      {"process_failed", "left out: {process}: {error}"},
      {"process_idle", "left out: {process} used CUDA but ran no GPU work"},
      {"collectives_matched", "{n} NCCL collectives matched across the processes by their order on each GPU (the "
                              "k-th all-reduce kernel of each GPU is one all-reduce); their sizes are not recorded"},
      {"collectives_matched_gpus", "{n} NCCL collectives matched across GPUs by their order on each GPU"},
      // streamlab-cli record: the program and how it ended.
      {"program.exited", "program: {command} (exited with status {status})"},
      {"program.killed", "program: {command} (was killed by signal {signal})"},
      {"program.ended", "program: {command} (ended)"},
      // A lab run in PyTorch (run --backend torch).
      {"torch_run", "run in PyTorch: the program StreamLab wrote for this lab, recorded with CUPTI; each op is found "
                    "by its NVTX range, and its host call spans the CUDA calls PyTorch made in it"},
      {"torch_graphs", "graph replays: each replayed kernel is the node CUPTI says it ran, captured in the op's own "
                       "range; a graph's records and waits are placed where the graph's order puts them"},
      {"torch_collectives", "collectives: torchrun ran one process per GPU, and each op is found in its GPU's "
                            "process; ProcessGroupNCCL ran each collective on a stream of its own, which waited for "
                            "the op's stream and which the op's stream then waited for, so the collective is drawn on "
                            "the op's stream; the lab's host thread ran once per process, so host calls of different "
                            "GPUs can overlap on its lane"},
      {"torch_no_ready", "when each kernel became ready is not recorded: ready is shown at its start"},
      {"torch_differs", "PyTorch differs from the lab: {what}"},
      {"torch_stream_split", "PyTorch ran {op} and {other} on two different streams, though the lab puts both on "
                             "{stream}; the chart draws the lab's streams"},
      {"torch_stream_merged", "PyTorch ran {op} and {other} on one stream, though the lab puts them on {stream} and "
                              "{other_stream}; the chart draws the lab's streams"},
      {"torch_calls_grouped", "one Python call made several ops' CUDA calls, some from another thread (autograd's "
                              "engine thread runs backward()): each of those ops is the next call of its kind made "
                              "while the call ran"},
      // What-if (engine/whatif/).
      {"whatif_predicted", "predicted on the simulator: the recording replayed with {fixes} fix(es) made ({list}); "
                           "kernels keep their measured times"},
      // Lab runs (simulator, CUDA executor).
      {"profile_range", "simulated with {profile}, whose host costs, allocations and pageable copies moved between "
                        "machine starts of this GPU ({from}): at their ends this run's GPU time is {fast} to {slow} "
                        "(here {point}), most of the spread from {figures}"},
      {"buffer_not_saved", "buffer {buffer}: the program did not save its contents, so they are not checked"},
      {"repeat_median", "repeat {n}: kept the median run ({median}); spread {fastest} .. {slowest}"},
      {"clock_alignment", "GPU {gpu} clock alignment: events->globaltimer +/-{events} ns, globaltimer->host "
                          "+/-{host} ns"},
      {"nccl", "{version} (NCCL_NVLS_ENABLE={nvls}): a collective part's start is when its stream reached it (its "
               "ready event); NCCL's kernels read no in-kernel timer"},
  };
  return templates;
}

TraceNote Note(const std::string& key, NoteVars vars) {
  auto it = EnglishNoteTemplates().find(key);
  if (it == EnglishNoteTemplates().end()) throw std::logic_error("no note template \"" + key + "\"");
  TraceNote note;
  note.text = FillTemplate(it->second, vars);
  note.key = key;
  note.vars = std::move(vars);
  return note;
}

TraceNote ForProcess(TraceNote note, const std::string& process) {
  note.text = process + ": " + note.text;
  note.process = process;
  return note;
}

namespace {

// A template as its fixed pieces and the values between them: literals[i] comes before
// vars[i], and the last literal ends the sentence.
struct TemplateParts {
  std::string key;
  std::vector<std::string> literals;
  std::vector<std::string> vars;
};

const std::vector<TemplateParts>& AllTemplateParts() {
  static const std::vector<TemplateParts> all = [] {
    std::vector<TemplateParts> out;
    for (const auto& [key, tpl] : EnglishNoteTemplates()) {
      TemplateParts p{key, {""}, {}};
      for (size_t i = 0; i < tpl.size(); ++i) {
        size_t close = tpl[i] == '{' ? tpl.find('}', i) : std::string::npos;
        if (close == std::string::npos) {
          p.literals.back() += tpl[i];
          continue;
        }
        p.vars.push_back(tpl.substr(i + 1, close - i - 1));
        p.literals.emplace_back();
        i = close;
      }
      out.push_back(std::move(p));
    }
    return out;
  }();
  return all;
}

// Each value the shortest that lets the next fixed piece follow (one pass, no backtracking:
// a value holding the piece after it is not recognised, and the note stays free text).
bool SplitByParts(const TemplateParts& p, const std::string& text, NoteVars& vars) {
  const std::vector<std::string>& lit = p.literals;
  if (p.vars.empty()) return text == lit.front();
  if (text.size() < lit.front().size() + lit.back().size() || text.compare(0, lit.front().size(), lit.front()) != 0)
    return false;
  size_t end = text.size() - lit.back().size();
  if (text.compare(end, std::string::npos, lit.back()) != 0) return false;
  size_t at = lit.front().size();
  for (size_t i = 0; i < p.vars.size(); ++i) {
    size_t next = i + 1 < p.vars.size() ? text.find(lit[i + 1], at + 1) : end;
    if (next == std::string::npos || next <= at || next + (i + 1 < p.vars.size() ? lit[i + 1].size() : 0) > end)
      return false;
    vars[p.vars[i]] = text.substr(at, next - at);
    at = next + lit[i + 1].size();
  }
  return true;
}

// The keyed note whose sentence is exactly `text`, if there is one.
bool MatchTemplate(const std::string& text, TraceNote& note) {
  for (const TemplateParts& p : AllTemplateParts()) {
    NoteVars vars;
    if (!SplitByParts(p, text, vars)) continue;
    TraceNote keyed = Note(p.key, vars);
    if (keyed.text != text) continue;  // a value that repeats in its sentence read differently
    note = std::move(keyed);
    return true;
  }
  return false;
}

}  // namespace

TraceNote NoteFromText(const std::string& text) {
  constexpr size_t kLongestProcess = 80;  // process names are short ("rank 0 (pid 1895)")
  TraceNote note;
  if (MatchTemplate(text, note)) return note;
  for (size_t colon = text.find(": "); colon != std::string::npos && colon <= kLongestProcess;
       colon = text.find(": ", colon + 1))
    if (MatchTemplate(text.substr(colon + 2), note)) return ForProcess(std::move(note), text.substr(0, colon));
  return TraceNote(text);
}

void AddNoteFromText(std::vector<TraceNote>& notes, const std::string& text) {
  size_t clock = text.find("; its clock pair read to within ");
  size_t colon = text.find(": ");
  if (clock == std::string::npos || colon == std::string::npos || colon > clock) {
    notes.push_back(NoteFromText(text));
    return;
  }
  notes.push_back(NoteFromText(text.substr(0, clock)));
  notes.push_back(NoteFromText(text.substr(0, colon + 2) + text.substr(clock + 2)));
}

bool IsCutNote(const TraceNote& note) { return note.key.rfind("cut.", 0) == 0; }

}  // namespace streamlab
