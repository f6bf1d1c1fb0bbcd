// File formats: scenario, trace and profile JSON round trips, and located errors.
#include <filesystem>
#include <functional>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/sim/device_profile.h"
#include "engine/util/errors.h"
#include "engine/util/plain_file.h"
#include "engine/scenario/scenario_json.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioJson, EveryLabVariantRoundTrips) {
  for (const Lab& lab : AllLabs()) {
    for (const std::string& v : lab.variants) {
      Scenario s = lab.build(ResolveLabArgs(lab, v, {}));
      Json j = ScenarioToJson(s);
      Scenario back = ScenarioFromJson(j, "mem");
      EXPECT_EQ(ScenarioToJson(back), j) << lab.id << "/" << v;
    }
  }
}

TEST(ScenarioJson, MalformedJsonNamesLineAndColumn) {
  std::string msg = ErrorOf([] { ParseJson("{\n  \"a\": 1,\n  oops\n}", "x.json"); });
  EXPECT_NE(msg.find("x.json:3:"), std::string::npos) << msg;
}

TEST(ScenarioJson, StructuralErrorsNameThePath) {
  Json j = ScenarioToJson(FindLab("w2-event-chain").build(ResolveLabArgs(FindLab("w2-event-chain"), "", {})));
  j["ops"][2]["stream"] = "nope";
  std::string msg = ErrorOf([&] { ScenarioFromJson(j, "x.json"); });
  EXPECT_NE(msg.find("ops[2].stream"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nope"), std::string::npos) << msg;

  j = ScenarioToJson(FindLab("w2-event-chain").build(ResolveLabArgs(FindLab("w2-event-chain"), "", {})));
  j["schema"] = 99;
  msg = ErrorOf([&] { ScenarioFromJson(j, "x.json"); });
  EXPECT_NE(msg.find("schema"), std::string::npos) << msg;

  j["schema"] = 1;
  j["ops"][0]["kernel"]["grid"] = "four";
  msg = ErrorOf([&] { ScenarioFromJson(j, "x.json"); });
  EXPECT_NE(msg.find("ops[0].kernel.grid"), std::string::npos) << msg;
}

TEST(ScenarioJson, AbsurdSizesAreRejected) {
  Json j = Json::parse(R"({"kind":"streamlab.scenario","schema":1,
    "buffers":[{"name":"b","kind":"device","bytes":10000000000000}]})");
  EXPECT_NE(ErrorOf([&] { ScenarioFromJson(j, "x"); }).find("bytes"), std::string::npos);
  j = Json::parse(R"({"kind":"streamlab.scenario","schema":1,"streams":[{"name":"s"}],
    "ops":[{"op":"kernel","stream":"s","kernel":{"grid":100000000}}]})");
  EXPECT_NE(ErrorOf([&] { ScenarioFromJson(j, "x"); }).find("grid"), std::string::npos);
  std::string deep(200, '[');
  EXPECT_NE(ErrorOf([&] { ParseJson(deep, "x"); }).find("nested"), std::string::npos);
}

TEST(TraceJson, RoundTripKeepsEveryField) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  Trace t = testing::Simulate(lab.build(ResolveLabArgs(lab, "legacy", {})));
  t.lab = lab.id;
  t.variant = "legacy";
  t.params = {{"kernel_us", 1000}};
  t.notes = {TraceNote("n1"), ForProcess(Note("cupti_dropped", {{"n", "3"}}), "rank1")};
  t.checks = {{"buf", "1", "2", false}};
  Json j = TraceToJson(t);
  EXPECT_EQ(j["notes"][1], "rank1: CUPTI dropped 3 activity records: some GPU work is missing");
  Trace back = TraceFromJson(j, "mem");
  EXPECT_EQ(TraceToJson(back), j);
  EXPECT_EQ(back.notes[0].key, "");
  EXPECT_EQ(back.notes[1].key, "cupti_dropped");
  EXPECT_EQ(back.notes[1].vars.at("n"), "3");
  EXPECT_EQ(back.notes[1].process, "rank1");
  ASSERT_FALSE(back.ops[0].blocks.empty());
  EXPECT_EQ(back.ops[0].blocks[0].sm, t.ops[0].blocks[0].sm);
}

// A trace is told from a scenario by its top-level "kind", read without building the document
// (where it comes, how deep, whether the file parses at all).
TEST(TraceJson, TraceContentIsToldByTheTopLevelKind) {
  const Lab& lab = FindLab("w2-event-chain");
  Scenario scenario = lab.build(ResolveLabArgs(lab, "", {}));
  EXPECT_TRUE(IsTraceContent(TraceToJson(testing::Simulate(scenario)).dump()));
  EXPECT_FALSE(IsTraceContent(ScenarioToJson(scenario).dump()));
  EXPECT_TRUE(IsTraceContent(R"({"a":[1,{"kind":"x"}],"b":{"c":2},"kind":"streamlab.trace","z":[)"));  // found before the error
  EXPECT_FALSE(IsTraceContent(R"({"a":{"kind":"streamlab.trace"}})"));  // not at the top level
  EXPECT_FALSE(IsTraceContent(R"({"kind":["streamlab.trace"]})"));
  EXPECT_FALSE(IsTraceContent(R"({"x":1,)"));
  EXPECT_FALSE(IsTraceContent(std::string(100, '[') + R"("kind")" + std::string(100, ']')));
}

// A recorded kernel's mangled name declares its length in bytes: "_Z4Sp\xef\xbb\xbf" cuts a UTF-8
// sequence in two (a fuzzer's input). Written out, the broken bytes become U+FFFD, not an
// exception that ended `record`, `import` and `explain --json` ("run failed").
TEST(TraceJson, ANameCutInsideAUtf8SequenceIsWrittenWithAReplacement) {
  EXPECT_EQ(DumpJson(Json("Sp\xef\xbb")), "\"Sp\xef\xbf\xbd\"");
  EXPECT_EQ(DumpJson(Json{{"a", 1}}, 1), "{\n \"a\": 1\n}");
  Trace t = LoadTraceFile(testing::SourcePath("tests/fuzz/corpus/recording/name_cut_in_utf8.jsonl"));
  std::string text = DumpJson(TraceToJson(t));
  EXPECT_NE(text.find("\"Sp\xef\xbf\xbd\""), std::string::npos);
  EXPECT_EQ(TraceFromJsonText(text, "again").ops.size(), t.ops.size());
}

TEST(TraceJson, RejectsInconsistentTraces) {
  const Lab& lab = FindLab("w1-fifo-vs-streams");
  Json j = TraceToJson(testing::Simulate(lab.build(ResolveLabArgs(lab, "", {}))));
  Json bad = j;
  bad["ops"].erase(0);
  EXPECT_NE(ErrorOf([&] { TraceFromJson(bad, "t"); }).find("records"), std::string::npos);
  bad = j;
  bad["ops"][0]["end"] = -5;
  EXPECT_NE(ErrorOf([&] { TraceFromJson(bad, "t"); }).find("ops[0].end"), std::string::npos);
  // Times a damaged file can hold that no run has: refused, not summed into an overflow.
  bad = j;
  bad["ops"][0]["end"] = int64_t{7'590'700'108'848'722'580};
  EXPECT_NE(ErrorOf([&] { TraceFromJson(bad, "t"); }).find("ops[0].end: more than a day"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { TraceFromJsonText(bad.dump(), "t"); }).find("ops[0].end: more than a day"), std::string::npos);
  bad = j;
  bad["ops"][0]["submit"] = -kLongestTraceNs - 1;
  EXPECT_NE(ErrorOf([&] { TraceFromJson(bad, "t"); }).find("ops[0].submit"), std::string::npos);
  // GPU times on an op that runs on no stream (a host call): no lane to draw them on.
  size_t host_op = 0;
  while (j["scenario"]["ops"][host_op].contains("stream")) ++host_op;
  bad = j;
  bad["ops"][host_op]["start"] = 10;
  bad["ops"][host_op]["end"] = 20;
  for (const std::string& error : {ErrorOf([&] { TraceFromJson(bad, "t"); }), ErrorOf([&] { TraceFromJsonText(bad.dump(), "t"); })})
    EXPECT_NE(error.find("ops[" + std::to_string(host_op) + "].start: GPU times for an op that runs on no stream"),
              std::string::npos) << error;
  bad = j;
  bad["ranges"] = Json::parse(R"([[0, 0, 86400000000001, "r"]])");
  EXPECT_NE(ErrorOf([&] { TraceFromJson(bad, "t"); }).find("ranges"), std::string::npos);
  bad = j;
  bad["kind"] = "something.else";
  EXPECT_FALSE(ErrorOf([&] { TraceFromJson(bad, "t"); }).empty());
  // A note's key and values: one entry per note, each {} or {"key", "vars": {name: text}}.
  j["notes"] = {"a", "b"};
  for (const char* keys : {R"([{}])", R"([{}, 3])", R"([{}, {"key": "x"}])", R"([{}, {"key": "x", "vars": {"n": 1}}])",
                           R"([{}, {"key": 2, "vars": {}}])", R"({"a": {}})"}) {
    bad = j;
    bad["note_keys"] = Json::parse(keys);
    EXPECT_NE(ErrorOf([&] { TraceFromJson(bad, "t"); }).find("note_keys"), std::string::npos) << keys;
  }
  j["note_keys"] = Json::parse(R"([{}, {"key": "a_later_key", "vars": {"n": "1"}}])");
  EXPECT_EQ(TraceFromJson(j, "t").notes[1].key, "a_later_key");  // shown as its English text
}

// The reader of a trace file's text builds no tree: it must read every trace as the tree reader
// does, whatever the order of its keys, and refuse what that refuses.
TEST(TraceJson, TheTextReaderReadsWhatTheTreeReaderReads) {
  int traces = 0;
  for (const char* dir : {"tests/fixtures/gpu", "tests/fixtures/gpu-facts", "tests/fixtures/torch",
                          "tests/fixtures/fidelity/h100"}) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(STREAMLAB_SOURCE_DIR) + "/" + dir)) {
      if (!IsJsonFileName(entry.path().string())) continue;
      std::string text = ReadTextFile(entry.path().string());
      if (!IsTraceContent(text)) continue;
      Json tree = TraceToJson(TraceFromJson(ParseJson(text, "t"), "t"));
      ASSERT_EQ(TraceToJson(TraceFromJsonText(text, "t")), tree) << entry.path();
      ++traces;
    }
  }
  EXPECT_GT(traces, 50);

  // Keys in another order than TraceToJson's (the scenario, and its ops, before the records),
  // and a repeated key, of which the last counts.
  const Lab& lab = FindLab("w2-event-chain");
  Trace t = testing::Simulate(lab.build(ResolveLabArgs(lab, "", {})));
  t.ranges = {{0, "step", 10, 20}};
  Json j = TraceToJson(t);
  Json scenario = j["scenario"];
  Json scenario_ops = scenario["ops"];
  scenario.erase("ops");
  std::string text = R"({"ops": 7, "scenario": {"ops": )" + scenario_ops.dump() + "," + scenario.dump().substr(1);
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.key() != "scenario") text += ", \"" + it.key() + "\": " + it.value().dump();
  text += "}";
  EXPECT_EQ(TraceToJson(TraceFromJsonText(text, "t")), j);
  // An earlier "ops" or "ranges" that could not be converted does not count either: the
  // scenario's own ops where the records belong, say (fuzz_trace found the text reader refusing
  // this while the tree reader read it).
  text = R"({"ops": )" + scenario_ops.dump() + R"(, "ranges": [[0, "x"]], )" + j.dump().substr(1);
  EXPECT_EQ(TraceToJson(TraceFromJsonText(text, "t")), j);
  EXPECT_EQ(TraceToJson(TraceFromJson(ParseJson(text, "t"), "t")), j);

  // What the tree reader refuses, so does the text reader, naming the same place.
  std::vector<std::pair<Json, std::string>> bad;
  auto with = [&](const std::function<void(Json&)>& change, const std::string& says) {
    Json b = j;
    change(b);
    bad.emplace_back(b, says);
  };
  with([](Json& b) { b["ops"].erase(0); }, "records");
  with([](Json& b) { b["ops"][1]["end"] = -5; }, "ops[1].end");
  with([](Json& b) { b["ops"][1] = 3; }, "ops[1]: expected an object");
  with([](Json& b) { b["ops"] = "x"; }, "ops: expected an array");
  with([](Json& b) { b["ranges"] = {{0, "x"}}; }, "ranges");
  with([](Json& b) { b["scenario"]["ops"][2]["stream"] = "nowhere"; }, "ops[2].stream");
  with([](Json& b) { b["scenario"]["ops"] = {1}; }, "ops[0]: expected an object");
  with([](Json& b) { b["scenario"]["ops"] = 1; }, "ops: expected an array");
  with([](Json& b) { b["scenario"] = 1; }, "scenario");
  with([](Json& b) { b.erase("scenario"); }, "scenario: missing");
  with([](Json& b) { b["kind"] = "streamlab.scenario"; }, "kind");
  for (const auto& entry : bad) {
    const Json& b = entry.first;  // (a lambda may not capture a structured binding in clang 14)
    const std::string& says = entry.second;
    std::string tree = ErrorOf([&] { TraceFromJson(b, "t"); });
    std::string from_text = ErrorOf([&] { TraceFromJsonText(b.dump(), "t"); });
    EXPECT_NE(tree.find(says), std::string::npos) << tree;
    EXPECT_NE(from_text.find(says), std::string::npos) << from_text;
  }
}

TEST(ProfileJson, RoundTripAndValidation) {
  DeviceProfile p;
  p.sm_count = 108;
  p.h2d_pinned_gbps = 25.0;
  DeviceProfile back = ProfileFromJson(ProfileToJson(p), "p");
  EXPECT_EQ(back.sm_count, 108);
  EXPECT_DOUBLE_EQ(back.h2d_pinned_gbps, 25.0);
  EXPECT_FALSE(ErrorOf([] { ProfileFromJson(Json::parse(R"({"sm_count": 0})"), "p"); }).empty());
  EXPECT_FALSE(ErrorOf([] { ProfileFromJson(Json::parse(R"({"pageable_gbps": -1})"), "p"); }).empty());
}

}  // namespace
}  // namespace streamlab
