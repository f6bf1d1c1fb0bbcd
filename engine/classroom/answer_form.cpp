// Answer forms: reading them from the lab's JSON, measuring the run, checking an answer.
#include "engine/classroom/answer_form.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/trace/trace_query.h"
#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"

namespace streamlab {
namespace {

void ReadFields(const JsonReader& r, AnswerForm& form) {
  if (r.Has("form")) {
    std::string kind = r.String("form");
    if (kind == "number") form.kind = AnswerForm::Kind::kNumber;
    else if (kind == "choice") form.kind = AnswerForm::Kind::kChoice;
    else if (kind == "order") form.kind = AnswerForm::Kind::kOrder;
    else r.Fail("form must be number, choice or order");
  }
  form.measure = r.String("measure", form.measure);
  form.unit = r.String("unit", form.unit);
  form.per_param = r.String("per_param", form.per_param);
  form.tolerance = r.Number("tolerance", form.tolerance);
  form.abs_tolerance = r.Number("abs_tolerance", form.abs_tolerance);
  if (r.Has("prompt")) {
    JsonReader prompt = r.Object("prompt");
    for (const char* lang : {"en", "zh"}) form.prompt[lang] = prompt.String(lang);
  }
  if (r.Has("choices")) {
    form.choices.clear();
    for (const JsonReader& c : r.Array("choices")) {
      AnswerChoice choice;
      choice.id = c.String("id");
      choice.min = c.Number("min", choice.min);
      choice.max = c.Number("max", choice.max);
      for (const char* lang : {"en", "zh"}) choice.label[lang] = c.String(lang);
      form.choices.push_back(choice);
    }
  }
}

// Times in ns to the form's unit.
double InUnit(const AnswerForm& f, TimeNs ns) {
  if (f.unit == "ms") return static_cast<double>(ns) / 1e6;
  return static_cast<double>(ns) / 1e3;  // us (and the per-parameter base)
}

// The op with this name, or this chart name ("sync s" for an unnamed stream sync).
int OpIndex(const Trace& t, const std::string& name) {
  for (size_t i = 0; i < t.scenario.ops.size(); ++i)
    if (t.scenario.ops[i].name == name || DisplayName(t.scenario, static_cast<int>(i)) == name) return static_cast<int>(i);
  return -1;
}

std::pair<std::string, std::string> TwoNames(const std::string& arg) {
  size_t comma = arg.find(',');
  return {arg.substr(0, comma), comma == std::string::npos ? "" : arg.substr(comma + 1)};
}

std::optional<TimeNs> MeasureNs(const std::string& measure, const Trace& t, const Analysis& a) {
  size_t colon = measure.find(':');
  std::string name = measure.substr(0, colon), arg = colon == std::string::npos ? "" : measure.substr(colon + 1);
  const Figures& fig = a.figures;
  if (name == "gpu_time") return fig.makespan;
  if (name == "host_blocked") return fig.host_blocked;
  if (name == "host_in_calls") return HostTimeInCalls(t);
  if (name == "host_in_copies") {
    TimeNs total = 0;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.scenario.ops[i].kind == OpKind::kMemcpy) total += HostCallTime(t.ops[i]);
    return total;
  }
  if (name == "launch_span") {
    int first = -1, last = -1;
    for (size_t i = 0; i < t.ops.size(); ++i)
      if (t.scenario.ops[i].kind == OpKind::kKernel) {
        if (first < 0) first = static_cast<int>(i);
        last = static_cast<int>(i);
      }
    if (first < 0) return std::nullopt;
    return t.ops[last].ret - t.ops[first].submit;
  }
  if (name == "blocked_before_last_sync") {
    int last = -1;
    for (size_t i = 0; i < t.ops.size(); ++i) {
      OpKind k = t.scenario.ops[i].kind;
      if (k == OpKind::kSyncDevice || k == OpKind::kSyncStream || k == OpKind::kSyncEvent) last = static_cast<int>(i);
    }
    TimeNs total = 0, slack = ExplainSlack(t);
    for (int i = 0; i < last; ++i)
      if (t.scenario.ops[i].kind != OpKind::kHostWork && HostCallTime(t.ops[i]) > slack) total += HostCallTime(t.ops[i]);
    return total;
  }
  auto [a_name, b_name] = TwoNames(arg);
  int x = OpIndex(t, a_name), y = b_name.empty() ? -1 : OpIndex(t, b_name);
  if (x < 0) return std::nullopt;
  if (name == "host_in") return HostCallTime(t.ops[x]);
  if (name == "delay") return t.ops[x].start - t.ops[x].submit;
  if (name == "start") {
    TimeNs first = -1;
    for (const OpRecord& r : t.ops)
      if (r.gpu && r.end > r.start && (first < 0 || r.start < first)) first = r.start;
    return t.ops[x].start - first;
  }
  if (y < 0) return std::nullopt;
  if (name == "host_span") return t.ops[y].ret - t.ops[x].submit;
  if (name == "gpu_span") return t.ops[y].end - t.ops[x].start;
  if (name == "gap") return t.ops[y].start - t.ops[x].end;
  return std::nullopt;
}

std::string ChoiceLabel(const AnswerChoice& c, const std::string& lang) {
  auto it = c.label.find(lang);
  return it != c.label.end() ? it->second : c.id;
}

}  // namespace

bool IsKnownMeasure(const std::string& measure) {
  static const char* kWhole[] = {"gpu_time", "host_blocked", "host_in_copies", "host_in_calls", "blocked_before_last_sync",
                                 "max_overlap", "checks_ok", "launch_span", "kernel_count", "gpu_idle"};
  static const char* kNamed[] = {"host_in:", "delay:", "start:", "host_span:", "gap:", "gpu_span:", "device_idle:"};
  for (const char* m : kWhole)
    if (measure == m) return true;
  for (const char* m : kNamed)
    if (measure.rfind(m, 0) == 0 && measure.size() > std::string(m).size()) return true;
  return false;
}

AnswerForm LoadAnswerForm(const std::string& lab_id, const std::string& variant) {
  std::string path = AssetsDir() + "/labs/" + lab_id + ".json";
  Json json = ParseJson(ReadTextFile(path), path);
  AnswerForm form;
  JsonReader root(json, path, "");
  if (!root.Has("answer")) return form;
  JsonReader r = root.Object("answer");
  ReadFields(r, form);
  if (r.Has("variants")) {
    JsonReader variants = r.Object("variants");
    if (variants.Has(variant.c_str())) ReadFields(variants.Object(variant.c_str()), form);
  }
  if (form.kind == AnswerForm::Kind::kOrder) return form;
  if (!IsKnownMeasure(form.measure)) r.Fail("unknown measure \"" + form.measure + "\"");
  if (form.kind == AnswerForm::Kind::kNumber && form.unit != "us" && form.unit != "ms" && form.unit != "%")
    r.Fail("a number answer needs unit us, ms or %");
  if (form.kind == AnswerForm::Kind::kChoice && form.choices.size() < 2) r.Fail("a choice answer needs two choices");
  if (form.prompt.size() != 2) r.Fail("a number or choice answer needs a prompt in en and zh");
  return form;
}

std::optional<double> MeasureAnswer(const AnswerForm& f, const Trace& t, const Analysis& a,
                                    const std::map<std::string, double>& params) {
  double value = 0;
  if (f.measure == "max_overlap") {
    for (const LaneOverlap& o : a.figures.overlaps) value = std::max(value, o.fraction * 100.0);
  } else if (f.measure == "kernel_count") {
    for (const Op& op : t.scenario.ops) value += op.kind == OpKind::kKernel;
  } else if (f.measure == "gpu_idle") {
    if (a.figures.device_time <= 0) return std::nullopt;
    value = 100.0 * static_cast<double>(a.figures.gpu_idle) / static_cast<double>(a.figures.device_time);
  } else if (f.measure.rfind("device_idle:", 0) == 0) {
    // One GPU's idle share between the first and the last kernel on any GPU, in %.
    value = 100.0 * DeviceIdleShare(t, std::atoi(f.measure.c_str() + std::string("device_idle:").size()));
  } else if (f.measure == "checks_ok") {
    value = 1;
    for (const BufferCheck& c : t.checks) value = c.ok ? value : 0;
  } else {
    std::optional<TimeNs> ns = MeasureNs(f.measure, t, a);
    if (!ns) return std::nullopt;
    value = InUnit(f, *ns);
  }
  if (!f.per_param.empty()) {
    auto it = params.find(f.per_param);
    if (it == params.end() || it->second <= 0) return std::nullopt;
    value /= it->second;
  }
  return value;
}

AnswerCheck CheckAnswer(const AnswerForm& f, const Trace& t, const Analysis& a,
                        const std::map<std::string, double>& params, const std::string& answer,
                        const std::string& lang) {
  std::optional<double> measured = MeasureAnswer(f, t, a, params);
  if (!measured) throw RunError("this run does not have what the answer is checked against (" + f.measure + ")");
  AnswerCheck check;
  check.actual = *measured;
  if (f.kind == AnswerForm::Kind::kChoice) {
    const AnswerChoice* picked = nullptr;
    for (const AnswerChoice& c : f.choices) {
      if (c.id == answer) picked = &c;
      if (check.actual_choice.empty() && check.actual >= c.min && check.actual < c.max) {
        check.actual_choice = c.id;
        check.shown = ChoiceLabel(c, lang);
      }
    }
    if (!picked) throw InputError("\"" + answer + "\" is not one of this question's choices");
    check.right = picked->id == check.actual_choice;
    return check;
  }
  char* end = nullptr;
  double predicted = std::strtod(answer.c_str(), &end);
  if (answer.empty() || *end != '\0' || !std::isfinite(predicted))
    throw InputError("the answer must be a number (in " + f.unit + ")");
  double allowed = std::max(f.abs_tolerance, f.tolerance * std::fabs(check.actual));
  check.right = std::fabs(predicted - check.actual) <= allowed;
  char text[64];
  std::snprintf(text, sizeof text, "%.4g %s", check.actual, f.unit.c_str());
  check.shown = text;
  return check;
}

const Finding* AnswerReason(const AnswerForm& f, const Trace& t, const Analysis& a) {
  // The finding about the op the measure names; else the largest warning or note.
  size_t colon = f.measure.find(':');
  if (colon != std::string::npos) {
    auto [first, second] = TwoNames(f.measure.substr(colon + 1));
    int op = OpIndex(t, second.empty() ? first : second);
    for (const Finding& finding : a.findings)
      if (finding.op == op && op >= 0 && !(finding.kind == FindingKind::kStartDelay && finding.cause == Cause::kPrompt))
        return &finding;
  }
  const Finding* best = nullptr;
  for (const Finding& finding : a.findings) {
    if (finding.severity == Severity::kInfo) continue;
    if (!best || finding.severity > best->severity ||
        (finding.severity == best->severity && finding.amount > best->amount))
      best = &finding;
  }
  return best;
}

}  // namespace streamlab
