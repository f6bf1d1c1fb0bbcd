// Lab argument resolution and the shared expectation shapes.
#include "engine/classroom/lab.h"

#include <cstdio>

#include "engine/analysis/analyzer.h"
#include "engine/sim/buffer_contents.h"
#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"

namespace streamlab {
namespace {
// A number as a person writes it: 20, 0.5, 1e+06 (not 20.000000).
std::string ShortNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}
}  // namespace


int DevicesFor(const Lab& lab, const std::string& variant) {
  auto it = lab.variant_devices.find(variant);
  return it == lab.variant_devices.end() ? lab.devices : it->second;
}

LabArgs ResolveLabArgs(const Lab& lab, const std::string& variant,
                       const std::map<std::string, double>& overrides) {
  LabArgs args;
  args.variant = variant.empty() ? lab.variants.front() : variant;
  bool known = false;
  for (const std::string& v : lab.variants) known |= v == args.variant;
  if (!known) {
    std::string list;
    for (const std::string& v : lab.variants) list += (list.empty() ? "" : ", ") + v;
    throw InputError("lab " + lab.id + " has no variant \"" + args.variant + "\" (variants: " +
                     list + ")");
  }
  for (const LabParam& p : lab.params) args.params[p.name] = p.fallback;
  for (const auto& [name, value] : overrides) {
    const LabParam* param = nullptr;
    for (const LabParam& p : lab.params)
      if (p.name == name) param = &p;
    if (!param) {
      std::string list;
      for (const LabParam& p : lab.params) list += (list.empty() ? "" : ", ") + p.name;
      throw InputError("lab " + lab.id + " has no parameter \"" + name + "\" (parameters: " +
                       (list.empty() ? "none" : list) + ")");
    }
    if (!(value >= param->min && value <= param->max))
      throw InputError("parameter " + name + " must be in " + ShortNumber(param->min) + ".." + ShortNumber(param->max) +
                       " (got " + ShortNumber(value) + ")");
    args.params[name] = value;
  }
  return args;
}

namespace {
// Event edges have ~3 us of slack on a real GPU; a later op may appear to begin a hair
// before the earlier one's end by calibration error.
TimeNs OrderingTolerance(const Trace& t) { return Us(1) + t.clock_error; }
}  // namespace

Expectation StartsAfterEnd(const std::string& later, const std::string& earlier) {
  return {later + " starts after " + earlier + " ends", [=](const Trace& t) {
            const OpRecord& a = OpNamed(t, later);
            const OpRecord& b = OpNamed(t, earlier);
            TimeNs gap = a.start - b.end;
            return CheckResult{gap >= -OrderingTolerance(t), "gap " + FormatDuration(gap)};
          }};
}

Expectation EndsBeforeEnd(const std::string& first, const std::string& second, const std::string& claim) {
  return {claim, [=](const Trace& t) {
            TimeNs lead = OpNamed(t, second).end - OpNamed(t, first).end;
            return CheckResult{lead > 0, first + " done " + FormatDuration(lead) + " before " + second + " ends"};
          }};
}

Expectation OverlapAtLeast(const std::string& a, const std::string& b, double fraction) {
  return {a + " and " + b + " overlap >= " + FormatPercent(fraction) + " of the time both were launched", [=](const Trace& t) {
            const OpRecord &first = OpNamed(t, a), &second = OpNamed(t, b);
            TimeNs overlap = std::max<TimeNs>(0, std::min(first.end, second.end) - std::max(first.start, second.start));
            TimeNs could = CouldOverlap(first, second);
            double f = could > 0 ? static_cast<double>(overlap) / static_cast<double>(could) : 0.0;
            std::string measured = "overlap " + FormatPercent(f);
            if (could < std::min(first.end - first.start, second.end - second.start))
              measured += " of the " + FormatDuration(could) + " both were launched; " +
                          FormatPercent(OverlapFraction(first, second)) + " of the shorter run";
            return CheckResult{f >= fraction, measured};
          }};
}

std::vector<Expectation> ExpectationsFor(const Lab& lab, const LabArgs& args, Backend backend) {
  if (backend == Backend::kTorch && lab.torch_expectations) {
    std::vector<Expectation> torch = lab.torch_expectations(args);
    if (!torch.empty()) return torch;
  }
  return lab.expectations(args);
}

Expectation GpuTime(const std::string& claim, std::function<bool(TimeNs)> ok) {
  return {claim, [=](const Trace& t) {
            TimeNs m = GpuMakespan(t);
            return CheckResult{ok(m), "GPU time " + FormatDuration(m)};
          }};
}

namespace {
std::string Ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}
}  // namespace

Expectation SpeedupAtLeast(double bound) {
  return {"work overlaps: speed-up over serial >= " + Ratio(bound), [=](const Trace& t) {
            double s = Analyze(t).figures.speedup;
            return CheckResult{s >= bound, "speed-up " + Ratio(s)};
          }};
}

Expectation SpeedupBelow(double bound) {
  return {"no overlap: speed-up over serial < " + Ratio(bound), [=](const Trace& t) {
            double s = Analyze(t).figures.speedup;
            return CheckResult{s < bound, "speed-up " + Ratio(s)};
          }};
}

Expectation OverlapAtMost(const std::string& a, const std::string& b, double fraction) {
  return {a + " and " + b + " overlap <= " + FormatPercent(fraction), [=](const Trace& t) {
            double f = OverlapFraction(OpNamed(t, a), OpNamed(t, b));
            return CheckResult{f <= fraction, "overlap " + FormatPercent(f)};
          }};
}

namespace {
Expectation ContentsAre(const std::string& buffer, bool correct) {
  std::string claim = buffer + (correct ? " holds the program-order result" : " holds a wrong result (the race lost)");
  return {claim, [=](const Trace& t) {
            const BufferCheck* c = FindCheck(t, buffer);
            if (!c) return CheckResult{false, "no check of " + buffer + " in the trace"};
            return CheckResult{c->ok == correct, "expected " + c->expected + "; got " + c->actual};
          }};
}
}  // namespace

Expectation ContentsCorrect(const std::string& buffer) { return ContentsAre(buffer, true); }
Expectation ContentsWrong(const std::string& buffer) { return ContentsAre(buffer, false); }

Expectation RacesFlagged(int count) {
  return {"the analyzer flags " + std::to_string(count) + " data race" + (count == 1 ? "" : "s"),
          [=](const Trace& t) {
            int n = 0;
            for (const Finding& f : Analyze(t).findings) n += f.kind == FindingKind::kDataRace;
            return CheckResult{n == count, std::to_string(n) + " flagged"};
          }};
}

}  // namespace streamlab
