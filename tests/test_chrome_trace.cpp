// Chrome-trace export: the structure Perfetto and chrome://tracing need.
#include <gtest/gtest.h>

#include "engine/trace/chrome_trace.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

TEST(ChromeTrace, LegacyStallExportsOrderedSlicesPerStream) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  Trace t = testing::Simulate(lab.build(ResolveLabArgs(lab, "legacy", {})));
  Json j = ChromeTraceJson(t);
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::map<std::string, Json> kernels;
  std::set<int> tids;
  for (const Json& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph"));
    ASSERT_TRUE(e.contains("pid"));
    if (e["ph"] == "X") {
      ASSERT_TRUE(e["ts"].is_number());
      ASSERT_GE(e["dur"].get<double>(), 0.0);
      if (e["cat"] == "kernel") {
        kernels[e["name"]] = e;
        tids.insert(e["tid"].get<int>());
      }
    }
  }
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(tids.size(), 3u);  // one thread per stream
  auto end = [&](const char* k) { return kernels[k]["ts"].get<double>() + kernels[k]["dur"].get<double>(); };
  EXPECT_GE(kernels["k_default"]["ts"].get<double>(), end("k_s1"));
  EXPECT_GE(kernels["k_s2"]["ts"].get<double>(), end("k_default"));
}

TEST(ChromeTrace, FlowArrowsJoinRecordsToWaits) {
  const Lab& lab = FindLab("w2-event-chain");
  Json j = ChromeTraceJson(testing::Simulate(lab.build(ResolveLabArgs(lab, "chain", {}))));
  std::map<int, int> starts, finishes;
  for (const Json& e : j["traceEvents"]) {
    if (e["ph"] == "s") starts[e["id"].get<int>()]++;
    if (e["ph"] == "f") finishes[e["id"].get<int>()]++;
  }
  EXPECT_EQ(starts.size(), 2u);  // e1 and e2
  EXPECT_EQ(starts, finishes);
}

}  // namespace
}  // namespace streamlab
