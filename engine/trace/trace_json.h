// Trace <-> JSON (schema 1). A trace file embeds its scenario, so every view and the
// analyzer can work from the file alone, e.g. a trace captured on a GPU server.
#pragma once

#include <string>

#include "engine/util/json_reader.h"
#include "engine/trace/trace.h"

namespace streamlab {

Json TraceToJson(const Trace& trace);
Trace TraceFromJson(const Json& json, const std::string& source);
// A StreamLab trace, or a recorder log (converted). Throws InputError if it is neither.
Trace LoadTraceFile(const std::string& path);
// True if the text is a StreamLab trace or a recorder log (by content, not by name).
bool IsTraceContent(const std::string& text);

}  // namespace streamlab
