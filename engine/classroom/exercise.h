// Exercises the app can check. A lab's JSON may hold a "check" section: goals on the run of
// the student's scenario (the lab's own, opened in the sandbox and edited), each a measure
// of the run within a range (the measures of answer_form.h) or a finding that must, or
// must not, appear. "Check" runs the scenario and says pass or fail, goal by goal, with
// the figure measured and the analyzer's sentence for a goal that failed.
//
// Most exercises edit the program in the sandbox. An exercise about the lab's parameters
// ("raise block_us to 500") says "edit": "params": it is done on the lab page, and Check runs
// the exercise's variant with the parameters the student set; a goal may then name a
// parameter ({"param": "block_us", "min": 500}) as well as measures of the run.
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
#include "engine/classroom/lab.h"

namespace streamlab {

struct ExerciseGoal {
  std::string measure;   // a measure (answer_form.h), or empty for a finding or parameter goal
  std::string unit = "us";
  double min = -1e300, max = 1e300;
  std::string finding;   // a finding kind ("data_race"), or empty for a measure goal
  bool present = true;   // finding goals: must it appear?
  std::string param;     // a lab parameter whose value must lie in [min, max], or empty
  std::map<std::string, std::string> text;  // per language
};

struct Exercise {
  std::string variant;  // the lab variant the exercise starts from (empty: the first)
  bool on_params = false;  // done by setting the lab's parameters, not in the sandbox
  std::vector<ExerciseGoal> goals;
};

// The lab's checked exercise, or nullopt if it has none. Throws InputError if malformed.
std::optional<Exercise> LoadExercise(const std::string& lab_id);

// The program an exercise's Check runs: the lab's program (the exercise's variant, with
// `params`) edited by `script` - sandbox edit lines (sandbox_model.h), or for an exercise on
// parameters "param NAME VALUE" lines - and the parameters it ran with (defaults filled in).
// Blank lines and "#" comments are skipped. Throws InputError naming a refused line.
struct ExerciseProgram {
  Scenario scenario;
  std::map<std::string, double> params;
};
ExerciseProgram BuildExerciseProgram(const Lab& lab, const Exercise& exercise, const std::vector<std::string>& script,
                                     std::map<std::string, double> params = {});

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

// `params`: the lab parameters the run used (parameter goals read them).
ExerciseResult CheckExercise(const Exercise& exercise, const Trace& trace, const Analysis& analysis,
                             const FindingTexts& texts, const std::string& lang,
                             const std::map<std::string, double>& params = {});

}  // namespace streamlab
