// Checked exercises: every lab has a "check"; it fails on the lab's own program (the exercise
// asks for a change) and passes once the reference solution in tests/exercises/<lab>.txt - a
// script of the sandbox's own edit actions, or the parameters to set - has been applied; the
// failed check says which goal failed and why.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engine/analysis/analyzer.h"
#include "engine/classroom/exercise.h"
#include "engine/classroom/sandbox_model.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

ExerciseResult Check(const Exercise& e, const Scenario& s, const std::map<std::string, double>& params) {
  Trace t = Simulate(s);
  return CheckExercise(e, t, Analyze(t), FindingTexts::Load("en"), "en", params);
}

// The reference solution: sandbox edits, or for an exercise on parameters "param NAME VALUE"
// lines. Returns the scenario (and the parameters) after the solution.
Scenario Solve(const Lab& lab, const Exercise& exercise, std::map<std::string, double>& params) {
  std::ifstream script(testing::SourcePath("tests/exercises/" + lab.id + ".txt"));
  EXPECT_TRUE(script) << lab.id << ": no reference solution";
  std::string variant = exercise.variant.empty() ? lab.variants.front() : exercise.variant;
  SandboxModel sandbox;
  EXPECT_TRUE(sandbox.Open(lab.build(ResolveLabArgs(lab, variant, {})))) << lab.id << sandbox.refusal();
  std::string line;
  while (std::getline(script, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (exercise.on_params) {
      std::istringstream in(line);
      std::string word, name;
      double value = 0;
      EXPECT_TRUE(in >> word >> name >> value && word == "param") << lab.id << ": " << line;
      params[name] = value;
    } else {
      EXPECT_TRUE(sandbox.Apply(line)) << lab.id << ": " << line << ": " << sandbox.refusal();
    }
  }
  if (!exercise.on_params) return sandbox.scenario();
  LabArgs args = ResolveLabArgs(lab, variant, params);
  params = args.params;
  return lab.build(args);
}

TEST(Exercises, EachFailsOnTheLabsProgramAndPassesWithItsSolution) {
  int checked = 0;
  for (const Lab& lab : AllLabs()) {
    std::optional<Exercise> exercise = LoadExercise(lab.id);
    ASSERT_TRUE(exercise) << lab.id << ": every lab has a checked exercise";
    ++checked;
    std::string variant = exercise->variant.empty() ? lab.variants.front() : exercise->variant;
    LabArgs defaults = ResolveLabArgs(lab, variant, {});
    for (const ExerciseGoal& g : exercise->goals)
      if (!g.param.empty()) EXPECT_TRUE(defaults.params.count(g.param)) << lab.id << ": no parameter " << g.param;
    ExerciseResult before = Check(*exercise, lab.build(defaults), defaults.params);
    EXPECT_FALSE(before.passed) << lab.id << ": the exercise is already solved";
    bool reason = false;
    for (const GoalResult& g : before.goals) reason = reason || (!g.met && !g.goal.empty() && !g.measured.empty());
    EXPECT_TRUE(reason) << lab.id;
    std::map<std::string, double> params;
    Scenario solved = Solve(lab, *exercise, params);
    ExerciseResult after = Check(*exercise, solved, params);
    for (const GoalResult& g : after.goals) EXPECT_TRUE(g.met) << lab.id << ": " << g.goal << " (measured " << g.measured << ")";
    EXPECT_TRUE(after.passed) << lab.id;
  }
  EXPECT_EQ(checked, static_cast<int>(AllLabs().size()));
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
