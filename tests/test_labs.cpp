// The catalogue: every lab's expectations hold on the simulator, every lab has its texts
// in every language, and bad lab arguments are refused with a reason.
#include <gtest/gtest.h>

#include "engine/util/errors.h"
#include "engine/classroom/lab_texts.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

TEST(Labs, ExpectationsHoldOnTheSimulatorForEveryVariant) {
  for (const Lab& lab : AllLabs()) {
    for (const std::string& v : lab.variants) {
      LabArgs args = ResolveLabArgs(lab, v, {});
      Trace t = testing::Simulate(lab.build(args));
      std::vector<Expectation> checks = lab.expectations(args);
      EXPECT_FALSE(checks.empty()) << lab.id << "/" << v << " claims nothing";
      for (const Expectation& e : checks) {
        CheckResult r = e.check(t);
        EXPECT_TRUE(r.pass) << lab.id << "/" << v << ": " << e.claim << " (" << r.measured << ")";
      }
    }
  }
}

TEST(Labs, ExpectationsCanFail) {
  // The one-stream claim checked on the two-stream trace must fail: the checks measure.
  const Lab& lab = FindLab("w1-fifo-vs-streams");
  Trace two = testing::Simulate(lab.build(ResolveLabArgs(lab, "two-streams", {})));
  for (const Expectation& e : lab.expectations(ResolveLabArgs(lab, "one-stream", {})))
    EXPECT_FALSE(e.check(two).pass) << e.claim;
}

TEST(Labs, EveryLabHasEveryText) {
  for (const Lab& lab : AllLabs()) {
    for (const std::string& lang : LabLanguages()) {
      try {
        LabText t = LoadLabText(lab.id, lang);
        EXPECT_FALSE(t.title.empty());
      } catch (const InputError& e) {
        ADD_FAILURE() << lab.id << " [" << lang << "]: " << e.what();
      }
    }
  }
}

TEST(Labs, IdsAreUniqueAndOrdered) {
  std::set<std::string> ids;
  int week = 0;
  for (const Lab& lab : AllLabs()) {
    EXPECT_TRUE(ids.insert(lab.id).second) << lab.id;
    EXPECT_GE(lab.week, week);
    week = lab.week;
    EXPECT_EQ(lab.id.substr(0, 3), "w" + std::to_string(lab.week) + "-");
  }
}

TEST(Labs, BadArgumentsAreRefusedWithAReason) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  EXPECT_THROW(ResolveLabArgs(lab, "nope", {}), InputError);
  EXPECT_THROW(ResolveLabArgs(lab, "", {{"nope", 1}}), InputError);
  EXPECT_THROW(ResolveLabArgs(lab, "", {{"kernel_us", 1e9}}), InputError);
  EXPECT_THROW(FindLab("w9-nothing"), InputError);
  LabArgs args = ResolveLabArgs(lab, "", {{"kernel_us", 50}});
  EXPECT_EQ(args.variant, "legacy");
  EXPECT_EQ(args["kernel_us"], 50);
}

TEST(Labs, ParametersChangeTheRun) {
  const Lab& lab = FindLab("w2-legacy-default-stall");
  Trace small = testing::Simulate(lab.build(ResolveLabArgs(lab, "legacy", {{"kernel_us", 100}})));
  Trace large = testing::Simulate(lab.build(ResolveLabArgs(lab, "legacy", {{"kernel_us", 2000}})));
  EXPECT_LT(GpuMakespan(small) * 10, GpuMakespan(large));
}

}  // namespace
}  // namespace streamlab
