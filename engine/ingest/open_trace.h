// Opening any trace file by its content, not its name: a StreamLab trace, a recorder log or a
// folder of them (converted), or a torch.profiler (Kineto) trace (imported).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/trace/trace.h"

namespace streamlab {

// A StreamLab trace, a recorder log (converted) or a torch.profiler trace (imported). Throws
// InputError if it is none of those.
Trace LoadTraceFile(const std::string& path);
// Which files ReadTraceIfOne takes as traces.
enum class TraceFiles { kAny, kForeignOnly /* recorder logs and torch.profiler traces */ };
// The trace in `path` (a folder of recorder logs, a log, a torch.profiler trace or, with
// kAny, a StreamLab trace), reading the file once; nullopt if it is none of those (a
// scenario file, a lab id). Throws InputError for a trace that is malformed or too large.
std::optional<Trace> ReadTraceIfOne(const std::string& path, TraceFiles which = TraceFiles::kAny);
// True if the text is a StreamLab trace, a recorder log or a torch.profiler trace.
bool IsTraceContent(std::string_view text);

}  // namespace streamlab
