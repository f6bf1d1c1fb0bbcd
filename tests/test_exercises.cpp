// Checked exercises: each lab with a "check" fails on its own program (the exercise asks
// for a change) and passes once the reference solution in tests/exercises/<lab>.txt - a
// script of the sandbox's own edit actions - has been applied; the failed check says which
// goal failed and why.
#include <gtest/gtest.h>

#include <fstream>

#include "engine/analysis/analyzer.h"
#include "engine/classroom/exercise.h"
#include "engine/classroom/sandbox_model.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

ExerciseResult Check(const Exercise& e, const Scenario& s) {
  Trace t = Simulate(s);
  return CheckExercise(e, t, Analyze(t), FindingTexts::Load("en"), "en");
}

TEST(Exercises, EachFailsOnTheLabsProgramAndPassesWithItsSolution) {
  int checked = 0;
  for (const Lab& lab : AllLabs()) {
    std::optional<Exercise> exercise = LoadExercise(lab.id);
    if (!exercise) continue;
    ++checked;
    SandboxModel sandbox;
    std::string variant = exercise->variant.empty() ? lab.variants.front() : exercise->variant;
    ASSERT_TRUE(sandbox.Open(lab.build(ResolveLabArgs(lab, variant, {})))) << lab.id << sandbox.refusal();
    ExerciseResult before = Check(*exercise, sandbox.scenario());
    EXPECT_FALSE(before.passed) << lab.id << ": the exercise is already solved";
    bool reason = false;
    for (const GoalResult& g : before.goals) reason = reason || (!g.met && !g.goal.empty() && !g.measured.empty());
    EXPECT_TRUE(reason) << lab.id;
    std::ifstream script(testing::SourcePath("tests/exercises/" + lab.id + ".txt"));
    ASSERT_TRUE(script) << lab.id << ": no reference solution";
    std::string line;
    while (std::getline(script, line)) {
      if (line.empty() || line[0] == '#') continue;
      ASSERT_TRUE(sandbox.Apply(line)) << lab.id << ": " << line << ": " << sandbox.refusal();
    }
    ExerciseResult after = Check(*exercise, sandbox.scenario());
    for (const GoalResult& g : after.goals) EXPECT_TRUE(g.met) << lab.id << ": " << g.goal << " (measured " << g.measured << ")";
    EXPECT_TRUE(after.passed) << lab.id;
  }
  EXPECT_GE(checked, 11);
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
