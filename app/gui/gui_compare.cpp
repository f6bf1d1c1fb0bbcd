// The compare view: two runs of a lab - two variants, the simulator's prediction and the
// GPU's measurement of one variant, or its CUDA C++ and PyTorch runs - stacked on one time axis (each from its own first
// GPU start), with what changed called out: GPU time, overlap (speed-up), host blocked,
// and the ops whose start moved most, each with the analyzer's reason in the second run.
#include <imgui.h>

#include "app/gui/gui_app.h"
#include "engine/util/format.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

std::string Signed(TimeNs d) { return (d >= 0 ? "+" : "-") + FormatDuration(d >= 0 ? d : -d); }

std::string Ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v);
  return buf;
}

}  // namespace

void GuiApp::StartCompare() {
  if (lab_id_.empty() || worker_.Busy()) return;
  error_.clear();
  banner_.clear();
  std::string backend = ResolveBackend();
  if (backend.empty()) return;
  RunRequest a;
  a.lab = lab_id_;
  a.variant = variant_;
  for (const auto& [k, v] : params_) a.params[k] = v;
  a.backend = backend;
  RunRequest b = a;
  if (compare_with_ == "torch") {
    // The lab's CUDA C++ run next to its PyTorch run, both on the GPU.
    a.backend = "cuda";
    b.backend = "torch";
    if (backend == "sim") {
      error_ = ui_("compare.no_gpu");
      return;
    }
  } else if (compare_with_ == "sim" || compare_with_ == "cuda") {
    // The simulator's prediction next to the GPU's measurement of the same variant.
    a.backend = "sim";
    b.backend = "cuda";
    if (backend != "cuda") {
      error_ = ui_("compare.no_gpu");
      return;
    }
  } else {
    b.variant = compare_with_;
  }
  compare_b_ = Run{};
  comparison_.reset();
  comparing_ = true;
  compare_results_ = 0;
  Submit(std::move(a));
  Submit(std::move(b));
}

void GuiApp::DrawCompare() {
  const Lab& lab = FindLab(lab_id_);
  if (!presenting_) {
    ImGui::SetNextItemWidth(200);
    std::string shown = compare_with_.empty() ? ui_("compare.pick") : compare_with_;
    if (ImGui::BeginCombo(ui_("compare.with"), shown.c_str())) {
      for (const std::string& v : lab.variants)
        if (v != variant_ && ImGui::Selectable(v.c_str(), v == compare_with_)) compare_with_ = v;
      if (ImGui::Selectable(ui_("compare.sim_vs_gpu"), compare_with_ == "cuda")) compare_with_ = "cuda";
      if (ImGui::Selectable(ui_("compare.cuda_vs_torch"), compare_with_ == "torch")) compare_with_ = "torch";
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (!compare_with_.empty() && !worker_.Busy() && ImGui::Button(ui_("compare.run"))) StartCompare();
  }
  if (comparing_ || !comparison_ || !trace_ || !compare_b_.trace) {
    if (comparing_) ImGui::TextUnformatted(ui_("running"));
    return;
  }
  const Comparison& c = *comparison_;
  std::string label_a = trace_->variant + " (" + trace_->backend + ")";
  std::string label_b = compare_b_.trace->variant + " (" + compare_b_.trace->backend + ")";
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(ui_.Fill("compare.figures",
                                  {{"a", label_a},
                                   {"b", label_b},
                                   {"time_a", FormatDuration(c.a.makespan)},
                                   {"time_b", FormatDuration(c.b.makespan)},
                                   {"time_d", Signed(c.b.makespan - c.a.makespan)},
                                   {"speedup_a", Ratio(c.a.speedup)},
                                   {"speedup_b", Ratio(c.b.speedup)},
                                   {"blocked_a", FormatDuration(c.a.host_blocked)},
                                   {"blocked_b", FormatDuration(c.b.host_blocked)}})
                             .c_str());
  for (const MovedOp& m : c.moved) {
    if (m.shift() == 0) continue;
    const Finding* why_a = StartFinding(analysis_, m.op_a);
    const Finding* why_b = StartFinding(compare_b_.analysis, m.op_b);
    ImGui::Bullet();
    TimeNs amount = m.shift() >= 0 ? m.shift() : -m.shift();
    ImGui::TextUnformatted(ui_.Fill(m.shift() < 0 ? "compare.earlier" : "compare.later",
                                    {{"op", m.name},
                                     {"amount", FormatDuration(amount)},
                                     {"why_a", why_a ? texts_.Render(*trace_, *why_a) : "-"},
                                     {"why_b", why_b ? texts_.Render(*compare_b_.trace, *why_b) : "-"}})
                               .c_str());
  }
  ImGui::PopTextWrapPos();

  // Both charts on one axis: B's window follows A's, offset by the runs' origins.
  auto [begin_a, end_a] = GanttExtent(*trace_);
  auto [begin_b, end_b] = GanttExtent(*compare_b_.trace);
  TimeNs span = std::max(end_a - begin_a, end_b - begin_b);
  if (view_.fit_requested) {
    view_.begin = begin_a - span / 40;
    view_.end = begin_a + span + span / 40;
    view_.fit_requested = false;
  }
  float h = std::max(120.0f, (ImGui::GetContentRegionAvail().y - 2 * ImGui::GetFontSize()) * 0.5f);
  float w = ImGui::GetContentRegionAvail().x;
  float scale = presenting_ ? 1.4f : 1.0f;
  ImGui::TextUnformatted(("A: " + label_a).c_str());
  GanttInputs in_a{&*trace_, &analysis_, &texts_, &ui_, scale, !options_.headless, presenting_};
  DrawGantt(in_a, view_, ImVec2(w, h), &layout_);
  compare_b_.view.begin = begin_b + (view_.begin - begin_a);
  compare_b_.view.end = begin_b + (view_.end - begin_a);
  compare_b_.view.fit_requested = false;
  ImGui::TextUnformatted(("B: " + label_b).c_str());
  GanttInputs in_b{&*compare_b_.trace, &compare_b_.analysis, &texts_, &ui_, scale, !options_.headless, presenting_};
  DrawGantt(in_b, compare_b_.view, ImVec2(w, h), nullptr);
  // Panning or zooming the second chart moves the first too.
  view_.begin = begin_a + (compare_b_.view.begin - begin_b);
  view_.end = begin_a + (compare_b_.view.end - begin_b);
}

}  // namespace streamlab
