// Reading a torch.profiler (Kineto) Chrome trace's text with a streaming parser (json_scan.h): each
// complete ("X") event is handed to the importer as soon as it has been read, holding only
// ph, cat, name, ts, dur, pid, tid and the args the importer uses, and freed after; flow,
// instant and metadata events are dropped as they are read. Every other top-level key is kept
// whole. Building the whole document tree of a 54 MB trace took 450 MB and half the import's
// time (docs/evidence/kineto-corpus.md).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/util/json_reader.h"

namespace streamlab {

struct KinetoDocument {
  Json root;                  // every top-level key; "traceEvents" is left an empty array
  size_t events_in_file = 0;  // every element of the file's traceEvents
};

// Gets each complete event, in file order, with its index in the file's traceEvents.
using KinetoEventSink = std::function<void(const Json& event, size_t index)>;

// Told, now and then, how far the text has been read (a mapped file hands that part back).
using KinetoReadProgress = std::function<void(size_t read_up_to)>;

// Throws InputError "source:line:column: malformed JSON: ..." on a syntax error, and
// "source: JSON nested deeper than 64 levels" like ParseJson; the sink's exceptions pass through.
// An error's line and column are counted from the start of the text, read again.
KinetoDocument ParseKinetoJson(std::string_view text, const std::string& source, const KinetoEventSink& sink,
                               const KinetoReadProgress& progress = {});

// Kineto's category, lower-cased, with torch 1.x's names mapped to today's ("Runtime" ->
// "cuda_runtime", "Kernel" -> "kernel", "Memcpy" -> "gpu_memcpy", "Operator" -> "cpu_op", ...).
std::string KinetoCategory(std::string category);

}  // namespace streamlab
