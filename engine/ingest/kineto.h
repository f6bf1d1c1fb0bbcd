// A torch.profiler (Kineto) Chrome trace, read as a Recording so that the recorder's
// converter turns it into the same Scenario + Trace (backend "kineto"). Kineto logs API
// calls without their arguments: a kernel's or copy's stream comes from its GPU record, a
// wait's stream and event from its cuda_sync record, and which cudaEventRecord a wait
// captured (and on which stream) is inferred from host order and timing. Every inference
// is written into the op it concerns, and findings that rest on it repeat it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ingest/recording.h"
#include "engine/util/json_reader.h"
#include "engine/util/mapped_file.h"

namespace streamlab {

// A cuda_sync record (profiled with enable_cuda_sync_events): what a wait or sync was on.
struct KinetoSync {
  std::string kind;  // "Stream Wait Event", "Event Sync", "Stream Sync", "Context Sync"
  int64_t stream = -1;          // the stream that waits (or is synchronised)
  int64_t event_id = -1;        // CUPTI's id of the event waited on
  int64_t record_corr = -1;     // the record's correlation id, when Kineto knows it
  int64_t wait_on_stream = -1;  // the record's stream, when Kineto knows it
};

// True if the text is a Chrome trace: a top-level object with a "traceEvents" member, before
// any "kind": "streamlab.trace" (read only that far; a malformed text is false if it breaks
// before that key).
// All such files go to the Kineto reader, which reads torch.profiler's and says what any
// other one is (StreamLab's own Chrome export, an AMD or CPU-only profile, ...).
bool LooksLikeChromeTrace(std::string_view text);
// Parse (kineto_parse.h) + convert: the Trace of a Kineto file's text. Throws InputError
// naming "path: traceEvents[i].field: what" for anything malformed. The text is freed once it
// is read (move it in): a 700 MB trace's text need not be held while its events are converted.
Trace TraceFromKineto(std::string text, const std::string& path);
// The same from the mapped file, whose pages are handed back as they are read: a 700 MB
// trace's text is never all in memory at once.
Trace TraceFromKineto(MappedFile file, const std::string& path);

// kineto_infer.cpp: gives each wait and event sync the record it captured (by host order:
// the thread's latest cudaEventRecord before it) and that record a stream (Kineto's own
// field when set, else from timing), writing what was inferred into both calls.
// `syncs` is indexed like recording.calls (null where a call has no cuda_sync record).
void InferEventRecords(Recording& recording, const std::vector<const KinetoSync*>& syncs);

// Handles the importer gives streams and events (Kineto has only CUPTI's ids).
uint64_t KinetoStreamHandle(int64_t stream_id);
uint64_t KinetoEventHandle(int64_t event_id);
// The stream an inferred record is put on when the trace cannot say which it was.
constexpr int64_t kUnknownStreamId = 1'000'000'000;
// CUPTI's id of the legacy default stream (seen on drivers 575-580).
constexpr int64_t kLegacyStreamId = 7;
// How streams and events are named in a Kineto import ("legacy default", "stream 13", "e3").
std::string KinetoStreamName(int64_t stream_id);
std::string KinetoEventName(int64_t event_id);

}  // namespace streamlab
