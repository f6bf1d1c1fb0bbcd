// The streaming reader of torch.profiler traces (kineto_parse.h): a SAX handler that builds
// a document tree of only what the importer reads, deciding each value's fate as it is read,
// so that nothing it drops is ever built.
#include "engine/trace/kineto_parse.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <utility>

#include "engine/util/errors.h"

namespace streamlab {
namespace {

constexpr size_t kMaxDepth = 64;  // as ParseJson

// Where a container sits, which decides what is kept inside it.
enum class Where { kKeep, kRoot, kEvents, kEvent, kArgs };

bool KeptEventKey(const std::string& key) {
  static const std::set<std::string> keys{"ph", "cat", "name", "ts", "dur", "pid", "tid", "args"};
  return keys.count(key) > 0;
}

// The args kineto_import.cpp reads; the rest (input shapes, call stacks, ...) are dropped.
bool KeptArgKey(const std::string& key) {
  static const std::set<std::string> keys{"correlation", "device", "stream", "grid", "block", "registers per thread",
                                          "shared memory", "bytes", "cuda_sync_kind", "wait_on_cuda_event_id",
                                          "wait_on_cuda_event_record_corr_id", "wait_on_stream"};
  return keys.count(key) > 0;
}

class FilteringBuilder : public nlohmann::json_sax<Json> {
 public:
  FilteringBuilder(KinetoDocument& doc, const KinetoEventSink& sink) : doc_(doc), sink_(sink) {}

  bool null() override { return Scalar(Json(nullptr)); }
  bool boolean(bool v) override { return Scalar(Json(v)); }
  bool number_integer(number_integer_t v) override { return Scalar(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Scalar(Json(v)); }
  bool string(string_t& v) override { return Scalar(Json(std::move(v))); }
  bool binary(binary_t&) override { return Scalar(Json(nullptr)); }  // JSON text has none
  bool start_object(std::size_t) override { return Open(Json::object()); }
  bool start_array(std::size_t) override { return Open(Json::array()); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }

  bool key(string_t& key) override {
    if (skip_depth_ > 0) return true;
    Where where = open_.back().where;
    if ((where == Where::kEvent && !KeptEventKey(key)) || (where == Where::kArgs && !KeptArgKey(key))) {
      skip_next_ = true;
    } else {
      key_ = std::move(key);
    }
    return true;
  }

  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
    error_byte_ = byte;
    error_ = e.what();
    return false;
  }

  size_t error_byte_ = 0;
  std::string error_;
  bool too_deep_ = false;

 private:
  struct Container {
    Json* value;
    Where where;
  };

  // Whether a value about to be read is dropped: inside a dropped value, after a key that is
  // not kept, or a traceEvents element that is not an object.
  bool Drop(bool is_object) {
    if (skip_depth_ > 0) return true;
    if (skip_next_) {
      skip_next_ = false;
      return true;
    }
    if (!open_.empty() && open_.back().where == Where::kEvents) {
      ++doc_.events_in_file;
      return !is_object;
    }
    return false;
  }

  // Puts a value into the innermost open container (or makes it the root).
  Json* Place(Json&& value) {
    if (open_.empty()) {
      doc_.root = std::move(value);
      return &doc_.root;
    }
    Json& parent = *open_.back().value;
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    Json& slot = parent[key_];
    slot = std::move(value);
    return &slot;
  }

  bool Scalar(Json&& value) {
    if (!Drop(false)) Place(std::move(value));
    return true;
  }

  bool Open(Json&& container) {
    if (open_.size() + static_cast<size_t>(skip_depth_) >= kMaxDepth) {
      too_deep_ = true;
      return false;
    }
    bool is_object = container.is_object();
    if (Drop(is_object)) {
      ++skip_depth_;
      return true;
    }
    Where where = Where::kKeep;
    if (open_.empty()) {
      where = is_object ? Where::kRoot : Where::kKeep;
    } else {
      Where parent = open_.back().where;
      if (parent == Where::kRoot && key_ == "traceEvents" && !is_object) where = Where::kEvents;
      if (parent == Where::kEvents) where = Where::kEvent;
      if (parent == Where::kEvent && key_ == "args" && is_object) where = Where::kArgs;
    }
    open_.push_back({Place(std::move(container)), where});
    return true;
  }

  bool Close() {
    if (skip_depth_ > 0) {
      --skip_depth_;
      return true;
    }
    Container closed = open_.back();
    open_.pop_back();
    if (closed.where == Where::kEvent) FinishEvent(*closed.value);
    return true;
  }

  // An event read whole goes to the sink if it is complete ("X"), and is freed either way.
  void FinishEvent(const Json& event) {
    auto ph = event.find("ph");
    if (ph != event.end() && ph->is_string() && ph->get_ref<const std::string&>() == "X")
      sink_(event, doc_.events_in_file - 1);
    open_.back().value->clear();
  }

  KinetoDocument& doc_;
  const KinetoEventSink& sink_;
  std::vector<Container> open_;
  std::string key_;
  int skip_depth_ = 0;
  bool skip_next_ = false;
};

}  // namespace

std::string KinetoCategory(std::string category) {
  std::transform(category.begin(), category.end(), category.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::map<std::string, std::string> old_names{{"runtime", "cuda_runtime"}, {"driver", "cuda_driver"},
                                                             {"memcpy", "gpu_memcpy"}, {"memset", "gpu_memset"},
                                                             {"operator", "cpu_op"}};
  auto it = old_names.find(category);
  return it == old_names.end() ? category : it->second;
}

KinetoDocument ParseKinetoJson(const std::string& text, const std::string& source, const KinetoEventSink& sink) {
  KinetoDocument doc;
  FilteringBuilder builder(doc, sink);
  bool ok = false;
  try {
    ok = Json::sax_parse(text, &builder);
  } catch (const Json::exception& e) {
    throw InputError(source + ": malformed JSON: " + e.what());
  }
  if (builder.too_deep_) throw InputError(source + ": JSON nested deeper than 64 levels");
  if (!ok) ThrowJsonSyntaxError(text, source, builder.error_byte_, builder.error_);
  return doc;
}

}  // namespace streamlab
