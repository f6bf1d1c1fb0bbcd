// Trace <-> JSON (schema 1). A trace file embeds its scenario, so every view and the
// analyzer can work from the file alone, e.g. a trace captured on a GPU server.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/util/json_reader.h"
#include "engine/trace/trace.h"

namespace streamlab {

Json TraceToJson(const Trace& trace);
Trace TraceFromJson(const Json& json, const std::string& source);
// The same from a trace file's text, without building its tree: a 227 MB trace's tree took
// 1 GB. The op records and ranges are converted as they are read and the scenario's ops one at
// a time; errors are the same as TraceFromJson's (the first of several may differ).
Trace TraceFromJsonText(std::string_view text, const std::string& source);
// A StreamLab trace, or a recorder log (converted). Throws InputError if it is neither.
Trace LoadTraceFile(const std::string& path);
// Which files ReadTraceIfOne takes as traces.
enum class TraceFiles { kAny, kForeignOnly /* recorder logs and torch.profiler traces */ };
// The trace in `path` (a folder of recorder logs, a log, a torch.profiler trace or, with
// kAny, a StreamLab trace), reading the file once; nullopt if it is none of those (a
// scenario file, a lab id). Throws InputError for a trace that is malformed or too large.
std::optional<Trace> ReadTraceIfOne(const std::string& path, TraceFiles which = TraceFiles::kAny);
// True if the text is a StreamLab trace or a recorder log (by content, not by name).
bool IsTraceContent(std::string_view text);

}  // namespace streamlab
