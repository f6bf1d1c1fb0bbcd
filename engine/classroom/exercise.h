// Exercises the app can check. A lab's JSON may hold a "check" section: goals on the run of
// the student's scenario (the lab's own, opened in the sandbox and edited), each a measure
// of the run within a range (the measures of answer_form.h) or a finding that must, or
// must not, appear. "Check" runs the scenario and says pass or fail, goal by goal, with
// the figure measured and the analyzer's sentence for a goal that failed.
//
//   "check": {"variant": "legacy", "goals": [
//     {"measure": "max_overlap", "min": 80, "en": "s2 overlaps s1 by at least 80 %", "zh": "..."},
//     {"finding": "data_race", "present": false, "en": "no race is flagged", "zh": "..."}]}
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"

namespace streamlab {

struct ExerciseGoal {
  std::string measure;   // a measure (answer_form.h), or empty for a finding goal
  std::string unit = "us";
  double min = -1e300, max = 1e300;
  std::string finding;   // a finding kind ("data_race"), or empty for a measure goal
  bool present = true;   // finding goals: must it appear?
  std::map<std::string, std::string> text;  // per language
};

struct Exercise {
  std::string variant;  // the lab variant the exercise starts from (empty: the first)
  std::vector<ExerciseGoal> goals;
};

// The lab's checked exercise, or nullopt if it has none. Throws InputError if malformed.
std::optional<Exercise> LoadExercise(const std::string& lab_id);

struct GoalResult {
  bool met = false;
  std::string goal;      // the goal's text
  std::string measured;  // e.g. "2.21 ms", "none", "3 found"
  std::string reason;    // for a goal not met: the analyzer's sentence, if one applies
};

struct ExerciseResult {
  bool passed = false;
  std::vector<GoalResult> goals;
};

ExerciseResult CheckExercise(const Exercise& exercise, const Trace& trace, const Analysis& analysis,
                             const FindingTexts& texts, const std::string& lang);

}  // namespace streamlab
