// The streaming reader of torch.profiler traces: what it hands the importer (complete
// events, with only the fields the importer reads, and their index in the file), what it
// keeps (every other top-level key), and that errors read as the whole-document reader's did.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/ingest/kineto.h"
#include "engine/ingest/kineto_parse.h"
#include "engine/util/errors.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

std::string ErrorOf(const std::string& text) {
  return testing::InputErrorOf([&] { TraceFromKineto(text, "k.json"); });
}

const char* kLaunch =
    R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":5}})";
const char* kKernel =
    R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":"stream 7","ts":20,"dur":8,"args":{"device":0,"stream":7,"correlation":5,"grid":[1,1,1],"block":[32,1,1]}})";

TEST(KinetoParse, OnlyCompleteEventsReachTheImporterWithTheFieldsItReads) {
  std::string text = R"({"schemaVersion":1,"traceEvents":[
    {"ph":"s","id":1,"pid":1,"tid":1,"ts":12,"cat":"ac2g","name":"flow"},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":9,"dur":30,
     "args":{"Input Dims":[[[64,64]],[[64,64]]],"Call stack":"a;b;c","External id":3}},
    {"ph":"i","s":"t","pid":1,"tid":1,"ts":11,"name":"instant"},
    7,
    )" + std::string(kKernel) + R"(
  ],"deviceProperties":[{"id":0,"name":"G"}],"traceName":"t"})";
  std::vector<std::pair<size_t, std::string>> seen;
  KinetoDocument doc = ParseKinetoJson(text, "k.json", [&](const Json& e, size_t i) { seen.emplace_back(i, e.dump()); });
  EXPECT_EQ(doc.events_in_file, 5u);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, 1u);
  EXPECT_EQ(seen[1].first, 4u);
  // Args the importer does not read (shapes, stacks) are not built.
  EXPECT_EQ(seen[0].second.find("Input Dims"), std::string::npos) << seen[0].second;
  EXPECT_EQ(seen[0].second.find("Call stack"), std::string::npos) << seen[0].second;
  EXPECT_NE(seen[0].second.find("aten::mm"), std::string::npos) << seen[0].second;
  EXPECT_NE(seen[1].second.find("\"grid\":[1,1,1]"), std::string::npos) << seen[1].second;
  // Every other top-level key is kept; traceEvents is left empty.
  EXPECT_EQ(doc.root["traceEvents"], Json::array());
  EXPECT_EQ(doc.root["deviceProperties"][0]["name"], "G");
  EXPECT_EQ(doc.root["traceName"], "t");
}

TEST(KinetoParse, DevicesListedAfterTheEventsStillNameTheGpu) {
  std::string text = std::string(R"({"traceEvents":[)") + kLaunch + "," + kKernel +
                     R"(],"deviceProperties":[{"id":0,"name":"NVIDIA H200","numSms":132}]})";
  Trace t = TraceFromKineto(text, "k.json");
  EXPECT_EQ(t.device_name, "NVIDIA H200");
}

TEST(KinetoParse, AnErrorNamesTheEventByItsIndexInTheFile) {
  // Dropped flow and instant events still count: the student finds the event at index 3.
  std::string text = R"({"traceEvents":[{"ph":"f","id":1},{"ph":"i","name":"x"},)" + std::string(kLaunch) +
                     R"(,{"ph":"X","cat":"kernel","ts":"late"}]})";
  EXPECT_NE(ErrorOf(text).find("k.json: traceEvents[3].ts: expected a number of microseconds"), std::string::npos)
      << ErrorOf(text);
}

TEST(KinetoParse, WhatTheFileIsIsSaidBeforeAMalformedEvent) {
  // The events are read before otherData; the export is still named, not its first odd event.
  std::string text = R"({"traceEvents":[{"ph":"X","cat":"kernel","ts":1,"args":{"grid":"all"}}],
                         "otherData":{"clock_error_ns":40}})";
  EXPECT_NE(ErrorOf(text).find("StreamLab's own Chrome export"), std::string::npos) << ErrorOf(text);
  EXPECT_NE(ErrorOf(R"({"traceEvents":{"ph":"X"}})").find("no \"traceEvents\" array"), std::string::npos);
}

TEST(KinetoParse, SyntaxErrorsAndDeepNestingReadAsBefore) {
  std::string broken = "{\"traceEvents\":[\n" + std::string(kLaunch) + ",\n{\"ph\":\"X\" \"cat\":1}]}";
  EXPECT_NE(ErrorOf(broken).find("k.json:3:"), std::string::npos) << ErrorOf(broken);
  EXPECT_NE(ErrorOf(broken).find("malformed JSON"), std::string::npos) << ErrorOf(broken);
  EXPECT_NE(ErrorOf("{\"traceEvents\":[").find("malformed JSON"), std::string::npos);
  // Nesting is limited even inside values that are skipped, as ParseJson limits it.
  std::string deep = "{\"traceEvents\":[{\"ph\":\"X\",\"args\":{\"Input Dims\":" + std::string(70, '[') +
                     std::string(70, ']') + "}}]}";
  EXPECT_NE(ErrorOf(deep).find("nested deeper than 64 levels"), std::string::npos) << ErrorOf(deep);
  std::string fine = "{\"traceEvents\":[" + std::string(kLaunch) + "," + kKernel + ",{\"ph\":\"M\",\"args\":" +
                     std::string(60, '[') + std::string(60, ']') + "}]}";
  EXPECT_EQ(ErrorOf(fine), "no error");
}

TEST(KinetoParse, AnEventADayAfterTheFirstIsRefused) {
  // Found by fuzzing: a kernel 445 million seconds late overflowed the idle-time arithmetic.
  std::string late = std::string(R"({"traceEvents":[)") + kLaunch +
                     R"(,{"ph":"X","cat":"kernel","name":"k","ts":90000000000,"dur":8,"args":{"stream":7,"correlation":5}}]})";
  EXPECT_NE(ErrorOf(late).find("traceEvents[1]: ends more than a day after the trace's first event"), std::string::npos)
      << ErrorOf(late);
  // Absolute timestamps (microseconds since 1970, as torch 1.x wrote them) are fine.
  std::string absolute = R"({"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,
    "ts":1695835535000000,"dur":5,"args":{"correlation":5}},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,
    "ts":1695835535000020,"dur":8,"args":{"stream":7,"correlation":5}}]})";
  EXPECT_EQ(ErrorOf(absolute), "no error");
}

}  // namespace
}  // namespace streamlab
