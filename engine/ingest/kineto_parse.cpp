// The streaming reader of torch.profiler traces (kineto_parse.h): the JSON scanner reads the
// trace once, building only what the importer reads and checking the rest as it skips it.
#include "engine/ingest/kineto_parse.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "engine/util/json_scan.h"

namespace streamlab {
namespace {

// A few names, looked up by length first: most keys differ in length from most names, and this
// runs for every key of every event.
bool OneOf(const std::string& key, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names)
    if (name.size() == key.size() && name == key) return true;
  return false;
}

bool KeptEventKey(const std::string& key) { return OneOf(key, {"ph", "cat", "name", "ts", "dur", "pid", "tid", "args"}); }

// The args kineto_import.cpp reads; the rest (input shapes, call stacks, ...) are skipped.
bool KeptArgKey(const std::string& key) {
  return OneOf(key, {"correlation", "device", "stream", "grid", "block", "registers per thread", "shared memory",
                     "bytes", "cuda_sync_kind", "wait_on_cuda_event_id", "wait_on_cuda_event_record_corr_id",
                     "wait_on_stream"});
}

// One element of traceEvents, holding only the keys and args the importer reads.
Json ReadEvent(JsonScanner& in) {
  Json event = Json::object();
  in.Members([&](std::string& key) {
    if (!KeptEventKey(key)) return in.Skip();
    if (key == "args" && in.Peek() == '{') {
      Json args = Json::object();
      in.Members([&](std::string& arg) {
        if (!KeptArgKey(arg)) return in.Skip();
        Json value = in.Value();
        args[arg] = std::move(value);
      });
      event[key] = std::move(args);
      return;
    }
    Json value = in.Value();
    event[key] = std::move(value);
  });
  return event;
}

}  // namespace

std::string KinetoCategory(std::string category) {
  std::transform(category.begin(), category.end(), category.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::map<std::string, std::string> old_names{{"runtime", "cuda_runtime"}, {"driver", "cuda_driver"},
                                                             {"memcpy", "gpu_memcpy"}, {"memset", "gpu_memset"},
                                                             {"operator", "cpu_op"}};
  auto it = old_names.find(category);
  return it == old_names.end() ? category : it->second;
}

KinetoDocument ParseKinetoJson(std::string_view text, const std::string& source, const KinetoEventSink& sink,
                               const KinetoReadProgress& progress) {
  KinetoDocument doc;
  JsonScanner in(text, source);
  if (in.Peek() != '{') {  // not a trace at all: kept whole, for the importer to say so
    doc.root = in.Document();
    return doc;
  }
  doc.root = Json::object();
  in.Members([&](std::string& key) {
    if (key != "traceEvents" || in.Peek() != '[') {
      Json value = in.Value();
      doc.root[key] = std::move(value);
      return;
    }
    doc.root[key] = Json::array();
    in.Elements([&] {
      size_t index = doc.events_in_file++;
      if (progress && index % 4096 == 0) progress(in.Offset());
      if (in.Peek() != '{') return in.Skip();
      Json event = ReadEvent(in);
      auto ph = event.find("ph");
      if (ph != event.end() && ph->is_string() && ph->get_ref<const std::string&>() == "X") sink(event, index);
    });
  });
  in.Finish();
  return doc;
}

}  // namespace streamlab
