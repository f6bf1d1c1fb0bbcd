// `streamlab-cli import kineto.json --out trace.json`: a torch.profiler (Kineto) trace, or
// a recorder's raw log, converted to a StreamLab trace that every view and `explain` read.
#include <fstream>
#include <iostream>

#include "app/cli/commands.h"
#include "engine/ingest/kineto.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"

namespace streamlab {

int CmdImport(const std::string& path, const std::string& out_path) {
  std::optional<Trace> read = ReadTraceIfOne(path, TraceFiles::kForeignOnly);
  if (!read) {
    ReadFileStart(path, 1);  // a missing or unreadable file: say that rather than what follows
    throw InputError(path + ": neither a torch.profiler (Kineto) trace nor a StreamLab recorder log");
  }
  Trace trace = std::move(*read);
  std::ofstream out(out_path);
  out << DumpJson(TraceToJson(trace)) << "\n";
  if (!out) throw RunError("cannot write " + out_path);
  size_t inferred = 0;
  for (const OpRecord& r : trace.ops) inferred += r.inferred.empty() ? 0 : 1;
  std::cerr << "streamlab-cli import: " << trace.ops.size() << " ops from " << path << " (" << trace.backend << ", "
            << inferred << " with inferred links) written to " << out_path << " (streamlab-cli explain " << out_path
            << ")\n";
  return kExitOk;
}

}  // namespace streamlab
