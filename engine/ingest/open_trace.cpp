// Opening any trace file by what it holds: a folder of recorder logs, a log, a torch.profiler
// trace (mapped, not copied), or a StreamLab trace.
#include "engine/ingest/open_trace.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "engine/ingest/kineto.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "engine/util/mapped_file.h"

namespace streamlab {

// Telling a trace from a scenario reads the document only as far as its top-level "kind"
// (TraceToJson writes it first): it must not read a 150 MB trace that LoadTraceFile then
// reads again.
bool IsTraceContent(std::string_view text) {
  return LooksLikeRecording(text) || LooksLikeChromeTrace(text) || IsStreamLabTraceText(text);
}

namespace {

// A StreamLab trace is read from the mapped file as a torch.profiler trace is, up to the same
// size (a recording of 540 k ops, 64 greedy tokens of a 0.5 B model generated 24 times, is 441
// MiB); anything else that large is not a trace.
void RefuseLargeNonTrace(const std::string& path, std::string_view text) {
  if (text.size() > kMaxTextFileBytes && !IsStreamLabTraceText(text))
    throw InputError(path + ": file larger than " + std::to_string(kMaxTextFileBytes >> 20) +
                     " MiB (and not a trace: a StreamLab trace, a torch.profiler trace or a recorder log may be larger)");
}

Trace LoadRecordingFolder(const std::string& path) {
  size_t logs = 0;
  std::string problem;
  std::vector<Recording> recordings = ReadRecordingFolder(path, &logs, &problem);
  if (recordings.empty())
    throw InputError(path + ": " + (problem.empty() ? "no recorder logs (raw.*.jsonl) in this folder" : problem));
  return TraceFromRecordings(std::move(recordings));
}

}  // namespace

std::optional<Trace> ReadTraceIfOne(const std::string& path, TraceFiles which) {
  std::error_code ec;
  // A folder of recorder logs (record --raw-dir): every process's log, on one timeline.
  if (std::filesystem::is_directory(path, ec)) return LoadRecordingFolder(path);
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  // A recorder log (streamlab-cli record --raw-dir) is converted on the way in, read line by
  // line: a long run's log may be larger than any limit on a whole file.
  if (LooksLikeRecording(ReadFileStart(path, 64))) return TraceFromRecording(ReadRecordingFile(path));
  // So is a torch.profiler (Kineto) Chrome trace, up to 1 GiB: mapped, not copied, and handed
  // back as it is read.
  MappedFile file(path, kMaxKinetoFileBytes);
  std::string_view text = file.text();
  if (LooksLikeChromeTrace(text)) return TraceFromKineto(std::move(file), path);
  if (which == TraceFiles::kForeignOnly) return std::nullopt;
  RefuseLargeNonTrace(path, text);
  if (!IsTraceContent(text)) return std::nullopt;
  Trace trace = TraceFromJsonText(text, path);
  // A recording saved before StreamLab said its streams' priorities says them now (from its streams).
  bool said = std::any_of(trace.notes.begin(), trace.notes.end(), [](const TraceNote& n) { return n.key == "priorities"; });
  if (trace.scenario.recorded && !said)
    if (TraceNote note = PriorityNote(trace.scenario); !note.key.empty()) trace.notes.push_back(std::move(note));
  return trace;
}

Trace LoadTraceFile(const std::string& path) {
  if (std::optional<Trace> trace = ReadTraceIfOne(path)) return std::move(*trace);
  // Not a trace (or no such file): reading it again, only to say what it is instead.
  return TraceFromJson(ParseJson(ReadTextFile(path), path), path);
}

}  // namespace streamlab
