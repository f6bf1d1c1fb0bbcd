// The terminal chart fits 80 columns and names every kernel.
#include <gtest/gtest.h>

#include <sstream>

#include "engine/trace/text_gantt.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

TEST(TextGantt, FitsEightyColumnsAndNamesEveryKernel) {
  for (const Lab& lab : AllLabs()) {
    for (const std::string& v : lab.variants) {
      Trace t = testing::Simulate(lab.build(ResolveLabArgs(lab, v, {})));
      std::string chart = RenderTextGantt(t, 80);
      std::istringstream lines(chart);
      std::string line;
      while (std::getline(lines, line)) EXPECT_LE(line.size(), 80u) << lab.id << "/" << v << ": " << line;
      for (const Op& op : t.scenario.ops) {
        if (op.kind == OpKind::kKernel) {
          EXPECT_NE(chart.find(op.name), std::string::npos) << op.name;
        }
      }
    }
  }
}

TEST(TextGantt, LegacyStallDrawsThreeBarsOneAfterAnother) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  Trace t = testing::Simulate(lab.build(ResolveLabArgs(lab, "legacy", {})));
  std::string chart = RenderTextGantt(t, 80);
  std::istringstream lines(chart);
  std::string line, s1, legacy, s2;
  while (std::getline(lines, line)) {
    if (line.rfind("s1 ", 0) == 0) s1 = line;
    if (line.rfind("legacy ", 0) == 0) legacy = line;
    if (line.rfind("s2 ", 0) == 0) s2 = line;
  }
  ASSERT_FALSE(s1.empty());
  ASSERT_FALSE(legacy.empty());
  ASSERT_FALSE(s2.empty());
  // Bars may share the one cell where one ends and the next begins.
  EXPECT_LE(s1.find_last_of('A'), legacy.find('B'));
  EXPECT_LT(s1.find('A'), legacy.find('B'));
  EXPECT_LE(legacy.find_last_of('B'), s2.find('C'));
}

}  // namespace
}  // namespace streamlab
