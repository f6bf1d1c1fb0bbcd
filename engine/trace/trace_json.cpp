// Trace JSON: metadata, the embedded scenario, one record per op, buffer checks.
#include "engine/trace/trace_json.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <utility>

#include "engine/util/errors.h"
#include "engine/util/json_scan.h"
#include "engine/scenario/scenario_json.h"

namespace streamlab {
namespace {
constexpr const char* kKind = "streamlab.trace";
constexpr size_t kMaxBlocksPerTrace = 2'000'000;

// "notes" holds each note's English sentence, so that any reader can show them;
// "note_keys" (one per note, {} for a free sentence) lets StreamLab say them in Chinese.
Json NoteTexts(const std::vector<TraceNote>& notes) {
  Json texts = Json::array();
  for (const TraceNote& n : notes) texts.push_back(n.text);
  return texts;
}

Json NoteKeys(const std::vector<TraceNote>& notes) {
  Json keys = Json::array();
  for (const TraceNote& n : notes) {
    Json k = Json::object();
    if (!n.key.empty()) {
      k["key"] = n.key;
      k["vars"] = n.vars;
      if (!n.process.empty()) k["process"] = n.process;
    }
    keys.push_back(k);
  }
  return keys;
}

void ReadNoteKeys(const Json& keys, const JsonReader& root, std::vector<TraceNote>& notes) {
  const char* expected = "expected one {\"key\", \"vars\": {name: text}, \"process\"} or {} per note";
  if (!keys.is_array() || keys.size() != notes.size()) root.FailAt("note_keys", expected);
  for (size_t i = 0; i < notes.size(); ++i) {
    const Json& k = keys[i];
    if (!k.is_object()) root.FailAt("note_keys", expected);
    if (k.empty()) continue;
    if (!k.contains("key") || !k["key"].is_string() || !k.contains("vars") || !k["vars"].is_object() ||
        (k.contains("process") && !k["process"].is_string()))
      root.FailAt("note_keys", expected);
    for (auto it = k["vars"].begin(); it != k["vars"].end(); ++it) {
      if (!it.value().is_string()) root.FailAt("note_keys", expected);
      notes[i].vars[it.key()] = it.value().get<std::string>();
    }
    notes[i].key = k["key"].get<std::string>();
    notes[i].process = k.value("process", "");
  }
}

}  // namespace

Json TraceToJson(const Trace& t) {
  Json ops = Json::array();
  for (const OpRecord& r : t.ops) {
    Json j{{"op", r.op}, {"submit", r.submit}, {"return", r.ret}};
    if (r.gpu) {
      j["ready"] = r.ready;
      j["start"] = r.start;
      j["end"] = r.end;
    }
    if (!r.note.empty()) j["note"] = r.note;
    if (!r.inferred.empty()) j["inferred"] = r.inferred;
    if (!r.inferred_zh.empty()) j["inferred_zh"] = r.inferred_zh;
    if (r.graph_replay) j["graph_replay"] = true;
    if (r.slow_range_start) j["slow_range_start"] = true;
    if (r.loaded_module) j["loaded_module"] = true;
    if (r.created_context) j["created_context"] = true;
    if (r.recorder_before > 0) j["recorder_before_ns"] = r.recorder_before;
    if (r.recorder_inside > 0) j["recorder_inside_ns"] = r.recorder_inside;
    if (!r.captured_in.empty()) j["captured_in"] = r.captured_in;
    if (!r.blocks.empty()) {
      // Compact: [block, sm, start, end] rows.
      Json rows = Json::array();
      for (const BlockRecord& b : r.blocks) rows.push_back({b.block, b.sm, b.start, b.end});
      j["blocks"] = rows;
    }
    ops.push_back(j);
  }
  Json checks = Json::array();
  for (const BufferCheck& c : t.checks)
    checks.push_back(
        {{"buffer", c.buffer}, {"expected", c.expected}, {"actual", c.actual}, {"ok", c.ok}});
  Json out{{"kind", kKind},
              {"schema", Trace::kSchemaVersion},
              {"time_unit", "ns"},
              {"backend", t.backend},
              {"device_name", t.device_name},
              {"driver", t.driver},
              {"captured_at", t.captured_at},
              {"profile", t.profile},
              {"clock_error_ns", t.clock_error},
              {"sm_count", t.sm_count},
              {"lab", t.lab},
              {"variant", t.variant},
              {"params", t.params},
              {"notes", NoteTexts(t.notes)},
              {"scenario", ScenarioToJson(t.scenario)},
              {"ops", ops},
              {"checks", checks}};
  if (std::any_of(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return !n.key.empty(); }))
    out["note_keys"] = NoteKeys(t.notes);
  if (t.recorded_from) out["recorded_from_ns"] = *t.recorded_from;
  if (!t.ranges.empty()) {
    // Compact: [thread, begin, end, name] rows.
    Json rows = Json::array();
    for (const HostRange& r : t.ranges) rows.push_back({r.thread, r.begin, r.end, r.name});
    out["ranges"] = rows;
  }
  return out;
}

namespace {

// Everything of a trace but its ranges, scenario, op records and checks.
void ReadTraceHeader(const JsonReader& root, Trace& t) {
  const Json& json = root.value();
  std::string kind = root.String("kind");
  if (kind != kKind) root.FailAt("kind", "expected \"" + std::string(kKind) + "\", got \"" + kind + "\"");
  int64_t schema = root.Int("schema");
  if (schema != Trace::kSchemaVersion)
    root.FailAt("schema", "version " + std::to_string(schema) + " is not supported");
  t.backend = root.String("backend", "");
  t.device_name = root.String("device_name", "");
  t.driver = root.String("driver", "");
  t.captured_at = root.String("captured_at", "");
  t.profile = root.String("profile", "");
  t.clock_error = root.Int("clock_error_ns", 0);
  if (root.Has("recorded_from_ns")) t.recorded_from = root.Int("recorded_from_ns");
  t.sm_count = static_cast<int>(std::clamp<int64_t>(root.Int("sm_count", 0), 0, 4096));
  t.lab = root.String("lab", "");
  t.variant = root.String("variant", "");
  if (root.Has("params")) {
    const Json& params = json["params"];
    if (!params.is_object()) root.FailAt("params", "expected an object");
    for (auto it = params.begin(); it != params.end(); ++it) {
      if (!it.value().is_number()) root.FailAt("params", "values must be numbers");
      t.params[it.key()] = it.value().get<double>();
    }
  }
  if (root.Has("notes")) {
    const Json& notes = json["notes"];
    if (!notes.is_array()) root.FailAt("notes", "expected an array of strings");
    for (const Json& n : notes) {
      if (!n.is_string()) root.FailAt("notes", "expected an array of strings");
      // A trace saved before notes had keys: its notes are recognised by their sentences.
      if (json.contains("note_keys")) t.notes.push_back(n.get<std::string>());
      else AddNoteFromText(t.notes, n.get<std::string>());
    }
  }
  if (root.Has("note_keys")) ReadNoteKeys(json["note_keys"], root, t.notes);
}

HostRange RangeFromJson(const Json& row, const std::string& source) {
  if (!row.is_array() || row.size() != 4 || !row[0].is_number_integer() || !row[1].is_number_integer() ||
      !row[2].is_number_integer() || !row[3].is_string() || row[2].get<TimeNs>() < row[1].get<TimeNs>() ||
      !WithinTraceSpan(row[1].get<TimeNs>()) || !WithinTraceSpan(row[2].get<TimeNs>()))
    throw InputError(source + ": ranges: expected [thread, begin, end >= begin, name] rows, times within a day of 0");
  return {row[0].get<int>(), row[3].get<std::string>(), row[1].get<TimeNs>(), row[2].get<TimeNs>()};
}

void ReadRanges(const JsonReader& root, Trace& t) {
  if (!root.Has("ranges")) return;
  const Json& rows = root.value()["ranges"];
  if (!rows.is_array()) root.FailAt("ranges", "expected an array of [thread, begin, end, name]");
  for (const Json& row : rows) t.ranges.push_back(RangeFromJson(row, root.source()));
}

// A time of a record: any integer a trace can hold (see kLongestTraceNs).
TimeNs TimeAt(const JsonReader& r, const char* key) {
  TimeNs t = r.Int(key);
  if (!WithinTraceSpan(t)) r.FailAt(key, "more than a day from the trace's time 0");
  return t;
}

// One op's record; `blocks_total` counts block records over the whole trace.
OpRecord OpRecordFromJson(const JsonReader& r, size_t& blocks_total) {
  OpRecord rec;
  rec.op = static_cast<int>(r.Int("op"));  // must be i: checked with the count (FinishTrace)
  rec.submit = TimeAt(r, "submit");
  rec.ret = TimeAt(r, "return");
  if (rec.ret < rec.submit) r.FailAt("return", "earlier than submit");
  rec.gpu = r.Has("start");
  if (rec.gpu) {
    rec.start = TimeAt(r, "start");
    rec.ready = r.Has("ready") ? TimeAt(r, "ready") : rec.start;
    rec.end = TimeAt(r, "end");
    if (rec.end < rec.start) r.FailAt("end", "earlier than start");
  }
  rec.note = r.String("note", "");
  rec.inferred = r.String("inferred", "");
  rec.inferred_zh = r.String("inferred_zh", "");
  rec.graph_replay = r.Bool("graph_replay", false);
  rec.slow_range_start = r.Bool("slow_range_start", false);
  rec.loaded_module = r.Bool("loaded_module", false);
  rec.created_context = r.Bool("created_context", false);
  rec.recorder_before = r.Int("recorder_before_ns", 0);
  if (rec.recorder_before < 0 || !WithinTraceSpan(rec.recorder_before)) r.FailAt("recorder_before_ns", "out of range");
  rec.recorder_inside = r.Int("recorder_inside_ns", 0);
  if (rec.recorder_inside < 0 || !WithinTraceSpan(rec.recorder_inside)) r.FailAt("recorder_inside_ns", "out of range");
  rec.captured_in = r.String("captured_in", "");
  if (r.Has("blocks")) {
    const Json& rows = r.value()["blocks"];
    if (!rows.is_array()) r.FailAt("blocks", "expected an array");
    blocks_total += rows.size();
    if (blocks_total > kMaxBlocksPerTrace) r.FailAt("blocks", "too many block records");
    for (const Json& row : rows) {
      if (!row.is_array() || row.size() != 4 ||
          !std::all_of(row.begin(), row.end(), [](const Json& v) { return v.is_number_integer(); }) ||
          !WithinTraceSpan(row[2].get<TimeNs>()) || !WithinTraceSpan(row[3].get<TimeNs>()))
        r.FailAt("blocks", "expected rows of 4 integers [block, sm, start, end], times within a day of 0");
      rec.blocks.push_back({row[0].get<int>(), row[1].get<int>(), row[2].get<TimeNs>(), row[3].get<TimeNs>()});
    }
  }
  return rec;
}

void CheckRecordCount(const JsonReader& root, size_t records, const Scenario& scenario) {
  if (records != scenario.ops.size())
    root.FailAt("ops", "has " + std::to_string(records) + " records for " + std::to_string(scenario.ops.size()) +
                           " scenario ops");
}

// What is checked once the scenario and the records are read and counted (CheckRecordCount):
// each record is its op's, in order, and only an op on a stream has GPU times (the views
// draw them on its stream's lane); then the buffer checks.
void FinishTrace(const JsonReader& root, Trace& t) {
  const std::vector<StreamDesc>& streams = t.scenario.streams;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    std::string at = root.source() + ": ops[" + std::to_string(i) + "]";
    if (t.ops[i].op != static_cast<int>(i)) throw InputError(at + ".op: expected " + std::to_string(i));
    int stream = t.scenario.ops[i].stream;
    if (t.ops[i].gpu && (stream < 0 || stream >= static_cast<int>(streams.size())))
      throw InputError(at + ".start: GPU times for an op that runs on no stream");
  }
  for (const JsonReader& r : root.Array("checks"))
    t.checks.push_back(
        {r.String("buffer"), r.String("expected", ""), r.String("actual", ""), r.Bool("ok", true)});
}

// Reads the elements of an array of objects from `in`, each as a reader whose path is
// "name[i]", one at a time.
void EachObject(JsonScanner& in, const std::string& source, const char* name,
                const std::function<void(const JsonReader&)>& each) {
  size_t i = 0;
  in.Elements([&] {
    Json value = in.Value();
    std::string at = name + ("[" + std::to_string(i) + "]");
    if (!value.is_object()) throw InputError(source + ": " + at + ": expected an object");
    each(JsonReader(value, source, at));
    ++i;
  });
}

// An array of a trace's top level converted as it is read. Its key may be repeated, and the tree
// reader keeps only the last value: so an error in converting one is held, and thrown only if
// no later array of that key replaces it (Throw, once the whole text is read). The rest of a
// failed array is still read, as JSON.
struct ConvertedArray {
  size_t count = 0;  // elements of the last array
  std::optional<std::string> error;

  void Read(JsonScanner& in, const std::function<void(const Json&, size_t)>& convert) {
    count = 0, error.reset();
    in.Elements([&] {
      Json value = in.Value();
      if (!error) {
        try {
          convert(value, count);
        } catch (const InputError& e) {
          error = e.what();
        }
      }
      ++count;
    });
  }
  void Throw() const {
    if (error) throw InputError(*error);
  }
};

}  // namespace

Trace TraceFromJson(const Json& json, const std::string& source) {
  if (!json.is_object()) throw InputError(source + ": expected a JSON object at the top level");
  JsonReader root(json, source, "");
  Trace t;
  ReadTraceHeader(root, t);
  ReadRanges(root, t);
  if (!root.Has("scenario")) root.FailAt("scenario", "missing");
  t.scenario = ScenarioFromJson(json["scenario"], source + " (scenario)");
  size_t blocks_total = 0;
  std::vector<JsonReader> ops = root.Array("ops");
  CheckRecordCount(root, ops.size(), t.scenario);
  for (const JsonReader& r : ops) t.ops.push_back(OpRecordFromJson(r, blocks_total));
  FinishTrace(root, t);
  return t;
}

Trace TraceFromJsonText(std::string_view text, const std::string& source) {
  JsonScanner in(text, source);
  if (in.Peek() != '{') return TraceFromJson(in.Document(), source);  // to say what it is instead
  // The top level is kept as a tree but for its three long arrays: the op records and the
  // ranges are converted as they are read, and the scenario's ops are read from the text
  // afterwards (they name streams that the scenario lists after them), one at a time.
  Json rest = Json::object();
  Trace t;
  size_t blocks_total = 0;
  std::optional<size_t> scenario_ops;  // where the scenario's "ops" array starts in the text
  ConvertedArray records, ranges;
  in.Members([&](std::string& key) {
    if (key == "ops" && in.Peek() == '[') {
      t.ops.clear(), blocks_total = 0, rest.erase(key);  // a repeated key: the last one counts
      records.Read(in, [&](const Json& value, size_t i) {
        std::string at = "ops[" + std::to_string(i) + "]";
        if (!value.is_object()) throw InputError(source + ": " + at + ": expected an object");
        t.ops.push_back(OpRecordFromJson(JsonReader(value, source, at), blocks_total));
      });
    } else if (key == "ranges" && in.Peek() == '[') {
      t.ranges.clear(), rest.erase(key);
      ranges.Read(in, [&](const Json& value, size_t) { t.ranges.push_back(RangeFromJson(value, source)); });
    } else if (key == "scenario" && in.Peek() == '{') {
      Json scenario = Json::object();
      scenario_ops.reset();
      in.Members([&](std::string& field) {
        if (field == "ops" && in.Peek() == '[') {
          scenario_ops = in.Offset();
          scenario.erase(field);
          return in.Skip();
        }
        if (field == "ops") scenario_ops.reset();  // repeated, and not an array this time
        Json value = in.Value();
        scenario[field] = std::move(value);
      });
      rest[key] = std::move(scenario);
    } else {
      Json value = in.Value();
      rest[key] = std::move(value);
    }
  });
  in.Finish();
  JsonReader root(rest, source, "");
  ReadTraceHeader(root, t);
  ranges.Throw();
  ReadRanges(root, t);  // only a "ranges" that is not an array is left in `rest`: it says so
  if (!root.Has("scenario")) root.FailAt("scenario", "missing");
  const Json& scenario = rest["scenario"];
  const std::string scenario_source = source + " (scenario)";
  t.scenario = ScenarioFromJsonAndOps(scenario, scenario_source, [&](const auto& each) {
    if (!scenario_ops) {  // none, or not an array: read from the tree, which says what is wrong
      for (const JsonReader& r : JsonReader(scenario, scenario_source, "").Array("ops")) each(r);
      return;
    }
    JsonScanner again(std::string_view(text).substr(*scenario_ops), source);
    EachObject(again, scenario_source, "ops", each);
  });
  if (rest.contains("ops")) (void)root.Array("ops");  // not an array: says so
  CheckRecordCount(root, records.count, t.scenario);
  records.Throw();
  FinishTrace(root, t);
  return t;
}

// Telling a trace from a scenario reads the document only as far as its top-level "kind"
// (TraceToJson writes it first): it must not read a 150 MB trace that is then read again.
bool IsStreamLabTraceText(std::string_view text) {
  bool trace = false;
  ReadTopLevelMembers(text, [&](const std::string& key, JsonScanner& in) {
    if (key != "kind" || in.Peek() != '"') {
      in.Skip();
      return true;
    }
    trace = in.Value() == kKind;
    return false;
  });
  return trace;
}

}  // namespace streamlab
