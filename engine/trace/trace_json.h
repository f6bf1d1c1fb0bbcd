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
// True if the text is a StreamLab trace (its top-level "kind"), read no further than that.
bool IsStreamLabTraceText(std::string_view text);

}  // namespace streamlab
