// `streamlab-cli show trace.json`: the text Gantt of a saved trace.
#include <iostream>

#include "app/cli/commands.h"
#include "engine/trace/text_gantt.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"

namespace streamlab {

int CmdShow(const std::string& path, int width) {
  Trace trace = LoadTraceFile(path);
  std::cout << RenderTextGantt(trace, width);
  return kExitOk;
}

}  // namespace streamlab
