// Checked exercises: every lab has a "check"; it fails on the lab's own program (the exercise
// asks for a change) and passes once the reference solution in tests/exercises/<lab>.txt - a
// script of the sandbox's own edit actions, or the parameters to set - has been applied; the
// failed check says which goal failed and why.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/analysis/analyzer.h"
#include "engine/classroom/exercise.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

ExerciseResult Check(const Exercise& e, const Scenario& s, const std::map<std::string, double>& params) {
  Trace t = Simulate(s);
  return CheckExercise(e, t, Analyze(t), FindingTexts::Load("en"), "en", params);
}

// The reference solution in tests/exercises/<lab>.txt, applied.
ExerciseProgram Solve(const Lab& lab, const Exercise& exercise) {
  std::ifstream file(testing::SourcePath("tests/exercises/" + lab.id + ".txt"));
  EXPECT_TRUE(file) << lab.id << ": no reference solution";
  std::vector<std::string> script;
  for (std::string line; std::getline(file, line);) script.push_back(line);
  return BuildExerciseProgram(lab, exercise, script);
}

TEST(Exercises, EachFailsOnTheLabsProgramAndPassesWithItsSolution) {
  int checked = 0;
  for (const Lab& lab : AllLabs()) {
    std::optional<Exercise> exercise = LoadExercise(lab.id);
    ASSERT_TRUE(exercise) << lab.id << ": every lab has a checked exercise";
    ++checked;
    std::string variant = exercise->variant.empty() ? lab.variants.front() : exercise->variant;
    LabArgs defaults = ResolveLabArgs(lab, variant, {});
    for (const ExerciseGoal& g : exercise->goals) {
      if (!g.param.empty()) {
        EXPECT_TRUE(defaults.params.count(g.param)) << lab.id << ": no parameter " << g.param;
      }
    }
    ExerciseResult before = Check(*exercise, lab.build(defaults), defaults.params);
    EXPECT_FALSE(before.passed) << lab.id << ": the exercise is already solved";
    bool reason = false;
    for (const GoalResult& g : before.goals) reason = reason || (!g.met && !g.goal.empty() && !g.measured.empty());
    EXPECT_TRUE(reason) << lab.id;
    ExerciseProgram solved = Solve(lab, *exercise);
    ExerciseResult after = Check(*exercise, solved.scenario, solved.params);
    for (const GoalResult& g : after.goals) EXPECT_TRUE(g.met) << lab.id << ": " << g.goal << " (measured " << g.measured << ")";
    EXPECT_TRUE(after.passed) << lab.id;
  }
  EXPECT_EQ(checked, static_cast<int>(AllLabs().size()));
}

TEST(Exercises, AScriptThatDoesNotFitTheExerciseIsRefusedWithItsLine) {
  const Lab& priority = FindLab("w2-priority");
  EXPECT_THROW(BuildExerciseProgram(priority, *LoadExercise(priority.id), {"stream s9"}), InputError);
  EXPECT_THROW(BuildExerciseProgram(priority, *LoadExercise(priority.id), {"param block_us"}), InputError);
  EXPECT_THROW(BuildExerciseProgram(priority, *LoadExercise(priority.id), {"param block_us 5"}), InputError);  // < 20
  const Lab& chain = FindLab("w2-event-chain");
  try {
    BuildExerciseProgram(chain, *LoadExercise(chain.id), {"# a comment", "", "wait s3 nope"});
    ADD_FAILURE() << "a wait on an unknown event was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("script line 3 (wait s3 nope): no event named"), std::string::npos) << e.what();
  }
}

TEST(Exercises, AFailedGoalSaysWhy) {
  const Lab& lab = FindLab("w3-record-stream-hazard");
  Trace t = Simulate(lab.build(ResolveLabArgs(lab, "hazard", {})));
  ExerciseResult r = CheckExercise(*LoadExercise(lab.id), t, Analyze(t), FindingTexts::Load("en"), "en");
  ASSERT_EQ(r.goals.size(), 2u);
  EXPECT_FALSE(r.goals[1].met);
  EXPECT_NE(r.goals[1].reason.find("fill_y"), std::string::npos) << r.goals[1].reason;
}

}  // namespace
}  // namespace streamlab
