// Answer forms: every lab has one; on every variant of every lab the simulated run has the
// measure, a number form accepts the run's own figure and refuses one far off, a choice
// form's ranges place the run in exactly one choice; bad answers are refused.
#include <gtest/gtest.h>

#include "engine/analysis/analyzer.h"
#include "engine/classroom/answer_form.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Simulate;

TEST(Answers, EveryVariantOfEveryLabCanBeChecked) {
  int numbers = 0, choices = 0, orders = 0;
  for (const Lab& lab : AllLabs()) {
    for (const std::string& v : lab.variants) {
      AnswerForm form = LoadAnswerForm(lab.id, v);
      if (form.kind == AnswerForm::Kind::kOrder) {
        ++orders;
        continue;
      }
      LabArgs args = ResolveLabArgs(lab, v, {});
      Trace t = Simulate(lab.build(args));
      Analysis a = Analyze(t);
      std::optional<double> value = MeasureAnswer(form, t, a, args.params);
      ASSERT_TRUE(value.has_value()) << lab.id << "/" << v << ": " << form.measure;
      if (form.kind == AnswerForm::Kind::kNumber) {
        ++numbers;
        char own[32];
        std::snprintf(own, sizeof own, "%.6g", *value);
        EXPECT_TRUE(CheckAnswer(form, t, a, args.params, own, "en").right) << lab.id << "/" << v;
        std::snprintf(own, sizeof own, "%.6g", *value * 3 + 1000);
        EXPECT_FALSE(CheckAnswer(form, t, a, args.params, own, "en").right) << lab.id << "/" << v;
        EXPECT_THROW(CheckAnswer(form, t, a, args.params, "soon", "en"), InputError);
      } else {
        ++choices;
        int matching = 0;
        for (const AnswerChoice& c : form.choices) matching += *value >= c.min && *value < c.max;
        EXPECT_EQ(matching, 1) << lab.id << "/" << v << " measured " << *value;
        AnswerCheck check = CheckAnswer(form, t, a, args.params, form.choices.front().id, "zh");
        EXPECT_FALSE(check.shown.empty());
        EXPECT_EQ(check.right, check.actual_choice == form.choices.front().id);
        EXPECT_THROW(CheckAnswer(form, t, a, args.params, "maybe", "en"), InputError);
      }
    }
  }
  EXPECT_GT(numbers, 20);
  EXPECT_GT(choices, 10);
  EXPECT_GE(orders, 2);
}

// The answers the labs teach, on the simulator: the facts the predict questions are about.
TEST(Answers, TheLabsTeachTheRightChoice) {
  auto choice = [](const std::string& id, const std::string& variant) {
    const Lab& lab = FindLab(id);
    LabArgs args = ResolveLabArgs(lab, variant, {});
    Trace t = Simulate(lab.build(args));
    Analysis a = Analyze(t);
    AnswerForm form = LoadAnswerForm(id, variant);
    return CheckAnswer(form, t, a, args.params, form.choices.front().id, "en").actual_choice;
  };
  EXPECT_EQ(choice("w2-legacy-default-stall", "legacy"), "three");
  EXPECT_EQ(choice("w2-legacy-default-stall", "non-blocking"), "one");
  EXPECT_EQ(choice("w2-event-chain", "chain"), "zero");
  EXPECT_EQ(choice("w1-fifo-vs-streams", "one-stream"), "two");
  EXPECT_EQ(choice("w1-fifo-vs-streams", "two-streams"), "one");
  EXPECT_EQ(choice("w1-gpu-is-full", "full"), "serial");
  EXPECT_EQ(choice("w2-myth-check", "same-buffer"), "wrong");
  EXPECT_EQ(choice("w2-myth-check", "same-buffer-event"), "right");
  EXPECT_EQ(choice("w3-record-stream-hazard", "hazard"), "wrong");
  EXPECT_EQ(choice("w3-record-stream-hazard", "record-stream"), "right");
}

}  // namespace
}  // namespace streamlab
