// Predictions in the question's own form. Each lab's JSON may hold an "answer" section next
// to its texts: a number with a unit and a tolerance, or choices that are ranges of one
// measure of the run; without one the student orders the GPU work (prediction.h). On reveal
// the answer is checked against the run's own figures.
//
//   "answer": {"form": "number", "measure": "gpu_time", "unit": "ms", "tolerance": 0.25,
//              "variants": {"events": {"measure": "gpu_time"}}}
//   "answer": {"form": "choice", "measure": "gpu_time", "per_param": "kernel_us",
//              "choices": [{"id": "one", "max": 1.5, "en": "...", "zh": "..."}, ...]}
//
// Measures (times in the form's unit; "per_param" divides by a lab parameter in us):
//   gpu_time        first GPU start to last GPU end
//   host_blocked    time the host spent in calls that blocked it
//   host_in:NAME    time the host spent inside the call NAME
//   host_span:A,B   from call A's start to call B's return
//   host_in_copies  time the host spent inside memcpy calls
//   host_in_calls   time the host spent inside CUDA calls (host work excluded)
//   start:NAME      NAME's start after the first GPU start
//   delay:NAME      NAME's start after its submission
//   gap:A,B         B's start after A's end
//   gpu_span:A,B    from A's GPU start to B's GPU end
//   launch_span     from the first kernel launch call's start to the last one's return: what
//                   a host timer around a launch loop without a synchronize measures
//   kernel_count    how many kernels ran (a count: no unit)
//   gpu_idle        % of the GPU's time (first kernel to last, summed over GPUs) with no
//                   kernel running
//   max_overlap     the largest overlap of two streams, in % of the shorter one's busy time
//   checks_ok       1 if every checked buffer holds the right contents, else 0
//   blocked_before_last_sync  host blocked time before the last synchronising call
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/analyzer.h"

namespace streamlab {

struct AnswerChoice {
  std::string id;
  double min = -1e300;  // the measure's range for this choice: [min, max)
  double max = 1e300;
  std::map<std::string, std::string> label;  // per language
};

struct AnswerForm {
  enum class Kind { kOrder, kNumber, kChoice };
  Kind kind = Kind::kOrder;
  std::string measure;
  std::string unit;        // number: "us", "ms" or "%"; choices: the unit of the ranges
  std::string per_param;   // choices: the measure (in us) divided by this parameter
  double tolerance = 0.25;       // number: relative
  double abs_tolerance = 0;      // number: absolute, in the unit
  std::vector<AnswerChoice> choices;
  std::map<std::string, std::string> prompt;  // per language: what to enter for this variant
};

// Is `measure` one of the measures above?
bool IsKnownMeasure(const std::string& measure);

// The lab's form for a variant (its "variants" override applied). Throws InputError when
// the section is malformed; a lab without one gets the order form.
AnswerForm LoadAnswerForm(const std::string& lab_id, const std::string& variant);

// The measure on a run, in the form's unit (or per parameter); nullopt if the trace lacks
// what it names.
std::optional<double> MeasureAnswer(const AnswerForm& form, const Trace& trace, const Analysis& analysis,
                                    const std::map<std::string, double>& params);

struct AnswerCheck {
  bool right = false;
  double actual = 0;          // the measure
  std::string actual_choice;  // choice forms: the choice the run falls in
  std::string shown;          // the measure as text, e.g. "5.12 ms" or "about two kernels"
};

// `answer` is a number (number forms) or a choice id. Throws InputError for an answer the
// form cannot take, RunError when the run lacks the measure.
AnswerCheck CheckAnswer(const AnswerForm& form, const Trace& trace, const Analysis& analysis,
                        const std::map<std::string, double>& params, const std::string& answer,
                        const std::string& lang);

// The finding that says why, for the verdict (or nullptr).
const Finding* AnswerReason(const AnswerForm& form, const Trace& trace, const Analysis& analysis);

}  // namespace streamlab
