// Checked exercises: reading the goals and checking a run against them.
#include "engine/classroom/exercise.h"

#include <cstdio>
#include <sstream>

#include "engine/classroom/answer_form.h"
#include "engine/classroom/sandbox_model.h"
#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"

namespace streamlab {
namespace {

bool KnownFinding(const std::string& kind) {
  for (int k = 0; k <= static_cast<int>(FindingKind::kHiddenSync); ++k)
    if (kind == ToString(static_cast<FindingKind>(k))) return true;
  return false;
}

}  // namespace

std::optional<Exercise> LoadExercise(const std::string& lab_id) {
  std::string path = AssetsDir() + "/labs/" + lab_id + ".json";
  Json json = ParseJson(ReadTextFile(path), path);
  JsonReader root(json, path, "");
  if (!root.Has("check")) return std::nullopt;
  Exercise exercise;
  exercise.variant = root.Object("check").String("variant", "");
  std::string edit = root.Object("check").String("edit", "sandbox");
  if (edit != "sandbox" && edit != "params") root.Object("check").Fail("edit must be sandbox or params");
  exercise.on_params = edit == "params";
  for (const JsonReader& g : root.Object("check").Array("goals")) {
    ExerciseGoal goal;
    goal.measure = g.String("measure", "");
    goal.param = g.String("param", "");
    goal.unit = g.String("unit", goal.param.empty() ? "us" : "");  // a parameter: the lab's own unit, if given
    goal.min = g.Number("min", goal.min);
    goal.max = g.Number("max", goal.max);
    goal.finding = g.String("finding", "");
    goal.present = g.Bool("present", true);
    for (const char* lang : {"en", "zh"}) goal.text[lang] = g.String(lang);
    if (goal.measure.empty() + goal.finding.empty() + goal.param.empty() != 2)
      g.Fail("a goal has exactly one of a measure, a finding or a param");
    if (!goal.param.empty() && !exercise.on_params) g.Fail("a param goal needs \"edit\": \"params\"");
    if (!goal.finding.empty() && !KnownFinding(goal.finding)) g.Fail("unknown finding kind \"" + goal.finding + "\"");
    if (!goal.measure.empty() && !IsKnownMeasure(goal.measure)) g.Fail("unknown measure \"" + goal.measure + "\"");
    if (goal.param.empty() && goal.unit != "us" && goal.unit != "ms" && goal.unit != "%")
      g.Fail("unit must be us, ms or %");
    exercise.goals.push_back(goal);
  }
  if (exercise.goals.empty()) root.Fail("check: no goals");
  return exercise;
}

ExerciseProgram BuildExerciseProgram(const Lab& lab, const Exercise& exercise, const std::vector<std::string>& script,
                                     std::map<std::string, double> params) {
  std::string variant = exercise.variant.empty() ? lab.variants.front() : exercise.variant;
  SandboxModel sandbox;
  bool edits = false;
  for (size_t n = 0; n < script.size(); ++n) {
    const std::string& line = script[n];
    std::istringstream in(line);
    std::string word, name;
    if (!(in >> word) || word[0] == '#') continue;
    std::string where = "script line " + std::to_string(n + 1) + " (" + line + "): ";
    if (word == "param") {
      double value = 0;
      if (!(in >> name >> value)) throw InputError(where + "expected param NAME VALUE");
      params[name] = value;
      continue;
    }
    if (exercise.on_params) throw InputError(where + "this exercise is on the lab's parameters: use param NAME VALUE");
    if (!edits && !sandbox.Open(lab.build(ResolveLabArgs(lab, variant, params))))
      throw InputError("the lab's program does not open in the sandbox: " + sandbox.refusal());
    edits = true;
    if (!sandbox.Apply(line)) throw InputError(where + sandbox.refusal());
  }
  LabArgs args = ResolveLabArgs(lab, variant, params);
  return {edits ? sandbox.scenario() : lab.build(args), args.params};
}

ExerciseResult CheckExercise(const Exercise& exercise, const Trace& t, const Analysis& a, const FindingTexts& texts,
                             const std::string& lang, const std::map<std::string, double>& params) {
  ExerciseResult result;
  result.passed = true;
  for (const ExerciseGoal& goal : exercise.goals) {
    GoalResult r;
    auto text = goal.text.find(lang);
    r.goal = text != goal.text.end() ? text->second : "";
    if (!goal.param.empty()) {
      auto value = params.find(goal.param);
      char shown[48] = "-";
      if (value != params.end())
        std::snprintf(shown, sizeof shown, "%s=%g%s%s", goal.param.c_str(), value->second, goal.unit.empty() ? "" : " ",
                      goal.unit.c_str());
      r.measured = shown;
      r.met = value != params.end() && value->second >= goal.min && value->second <= goal.max;
    } else if (!goal.finding.empty()) {
      const Finding* first = nullptr;
      int count = 0;
      for (const Finding& f : a.findings)
        if (ToString(f.kind) == goal.finding) {
          ++count;
          if (!first) first = &f;
        }
      r.met = (count > 0) == goal.present;
      r.measured = std::to_string(count);
      if (!r.met && first) r.reason = texts.Render(t, *first);
    } else {
      AnswerForm form;
      form.kind = AnswerForm::Kind::kNumber;
      form.measure = goal.measure;
      form.unit = goal.unit;
      std::optional<double> value = MeasureAnswer(form, t, a, {});
      char shown[48] = "-";
      // checks_ok (1 or 0) and kernel_count are counts: no unit.
      bool count = goal.measure == "checks_ok" || goal.measure == "kernel_count";
      if (value) std::snprintf(shown, sizeof shown, "%.4g%s%s", *value, count ? "" : " ", count ? "" : goal.unit.c_str());
      r.measured = shown;
      r.met = value && *value >= goal.min && *value <= goal.max;
      if (!r.met)
        if (const Finding* why = AnswerReason(form, t, a)) r.reason = texts.Render(t, *why);
    }
    result.passed = result.passed && r.met;
    result.goals.push_back(r);
  }
  return result;
}

}  // namespace streamlab
