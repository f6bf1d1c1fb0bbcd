// The answer on top, for a recorded or imported program: the verdict's lines (what bounds the
// step, the ranks, the steps, where a step went, the fixes by their cost) in a panel as tall as
// they are, so no line is cut; a click on a fix highlights the calls behind it in the chart and
// scrolls to the first, in its step. Each rank's group in the chart gets its one-line summary.
#include <imgui.h>

#include <algorithm>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"
#include "engine/account/step_account.h"
#include "engine/report/verdict_text.h"
#include "engine/util/format.h"

namespace streamlab {
namespace {

// A verdict line's depth ("  Steps: ...", "    1. ...") and its text without the blanks.
std::pair<int, std::string> Indented(const std::string& line) {
  size_t blanks = line.find_first_not_of(' ');
  if (blanks == std::string::npos) return {0, ""};
  return {static_cast<int>(blanks / 2), line.substr(blanks)};
}

// "    3. ..." is the lead process's fix 3 (RenderVerdict numbers them so); -1 for other lines.
int FixOfLine(const std::string& line) {
  auto [depth, text] = Indented(line);
  if (depth != 2) return -1;
  size_t dot = text.find(". ");
  if (dot == std::string::npos || dot == 0 || dot > 2) return -1;
  for (size_t i = 0; i < dot; ++i)
    if (text[i] < '0' || text[i] > '9') return -1;
  return std::stoi(text.substr(0, dot)) - 1;
}

}  // namespace

// A recorded or imported program's verdict, its steps marked on the chart's axis, and each
// rank's summary for its group's header.
void GuiApp::PrepareVerdict(std::optional<ProgramVerdict> worked_out) {
  program_verdict_.reset();
  verdict_panel_ = VerdictPanel{};
  if (!trace_->scenario.recorded) return;
  program_verdict_ =
      worked_out ? std::move(*worked_out) : VerdictOf(*trace_, analysis_, AccountOf(*trace_));
  if (!program_verdict_->found()) return;
  for (const ProgramStep& s : program_verdict_->lead().steps.steps)
    view_.step_marks.push_back(s.begin);
  view_.first_steady = static_cast<size_t>(program_verdict_->lead().steps.warmup);
  RenderGroupNotes();
}

void GuiApp::RenderGroupNotes() {
  view_.group_notes.clear();
  if (!program_verdict_ || program_verdict_->processes.size() < 2) return;
  const ProgramVerdict& pv = *program_verdict_;
  view_.group_notes.resize(trace_->scenario.processes.size());
  for (const Verdict& v : pv.processes) {
    if (v.process < 0 || static_cast<size_t>(v.process) >= view_.group_notes.size() || v.step <= 0)
      continue;
    auto share = [&](TimeCategory c) {
      return FormatPercent(static_cast<double>(v.by_category[static_cast<size_t>(c)]) /
                           static_cast<double>(v.step));
    };
    std::string note = ui_.Fill(v.found() ? "group.note" : "group.note.run",
                                {{"step", FormatDuration(v.found() ? v.steps.median : v.step)},
                                 {"bound", CategoryName(texts_, v.bound)},
                                 {"share", share(v.bound)}});
    TimeNs waited = v.by_category[static_cast<size_t>(TimeCategory::kRankWait)];
    if (waited * 20 >= v.step &&
        v.bound != TimeCategory::kRankWait)  // 5 % or more, as the straggler line counts it
      note += ui_.Fill("group.note.waits", {{"wait", FormatDuration(waited)},
                                            {"share", share(TimeCategory::kRankWait)}});
    if (pv.straggler == v.process) note += ui_("group.note.straggler");
    view_.group_notes[static_cast<size_t>(v.process)] = note;
  }
}

void GuiApp::DrawVerdictPanel() {
  VerdictPanel& p = verdict_panel_;
  if (p.lines.empty() || p.lang != lang_) {
    p.lines = RenderVerdict(texts_, *trace_, *program_verdict_);
    p.lang = lang_;
    p.wrap = -1;
    RenderGroupNotes();
  }
  if (p.lines.empty()) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float indent = ImGui::GetFontSize() * 1.2f;
  float wrap = ImGui::GetContentRegionAvail().x - 2 * style.WindowPadding.x;
  if (wrap != p.wrap) {  // measured again only when the width changes
    p.wrap = wrap;
    p.height = 2 * style.WindowPadding.y;
    for (const std::string& line : p.lines) {
      auto [depth, text] = Indented(line);
      p.height +=
          WrappedTextHeight(text, wrap - static_cast<float>(depth) * indent) + style.ItemSpacing.y;
    }
  }
  // As tall as its lines: the answer is never cut. Only a verdict taller than half the window
  // scrolls.
  float most = 0.5f * ImGui::GetIO().DisplaySize.y;
  ImGui::BeginChild("verdict", ImVec2(0, std::min(p.height, most)), true,
                    p.height <= most ? ImGuiWindowFlags_NoScrollbar : 0);
  const std::vector<VerdictFix>& fixes = program_verdict_->lead().fixes;
  for (size_t i = 0; i < p.lines.size(); ++i) {
    auto [depth, text] = Indented(p.lines[i]);
    float x = static_cast<float>(depth) * indent;
    int fix = FixOfLine(p.lines[i]);
    ImGui::PushID(static_cast<int>(i));
    if (fix >= 0 && static_cast<size_t>(fix) < fixes.size()) {
      // A selectable as tall as the wrapped line, the line drawn over it.
      ImVec2 at = ImGui::GetCursorPos();
      float h = WrappedTextHeight(text, wrap - x);
      ImGui::SetCursorPos(ImVec2(at.x + x, at.y));
      if (ImGui::Selectable("##fix", p.selected_fix == fix, 0, ImVec2(0, h))) ShowFix(fix);
      if (ImGui::IsItemHovered()) {
        const VerdictFix& f = fixes[static_cast<size_t>(fix)];
        std::string tip =
            ui_.Fill("verdict.fix_tip",
                     {{"n", std::to_string(std::max<size_t>(f.calls.size(), f.op >= 0 ? 1 : 0))}});
        if (!f.site.empty())
          tip = ui_.Fill("verdict.fix_site", {{"place", texts_.RenderPlace(f.site)}}) + "\n" + tip;
        ImGui::SetTooltip("%s", tip.c_str());
      }
      ImVec2 after = ImGui::GetCursorPos();
      ImGui::SetCursorPos(ImVec2(at.x + x, at.y));
      DrawWrappedText(text, wrap - x);
      ImGui::SetCursorPos(after);
    } else {
      ImGui::SetCursorPosX(ImGui::GetCursorPosX() + x);
      if (i == 0) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.4f, 1.0f));
      DrawWrappedText(text, wrap - x);
      if (i == 0) ImGui::PopStyleColor();
    }
    ImGui::PopID();
  }
  ImGui::EndChild();
  panels_.verdict_y0 = ImGui::GetItemRectMin().y;
  panels_.verdict_y1 = ImGui::GetItemRectMax().y;
  panels_.verdict_needed = p.height;
}

void GuiApp::ShowFix(int n) {
  if (!program_verdict_ || !program_verdict_->found()) return;
  const Verdict& v = program_verdict_->lead();
  if (n < 0 || static_cast<size_t>(n) >= v.fixes.size()) return;
  const VerdictFix& fix = v.fixes[static_cast<size_t>(n)];
  verdict_panel_.selected_fix = n;
  std::vector<int> calls = fix.calls;
  if (calls.empty() && fix.op >= 0) calls.push_back(fix.op);
  view_.highlight = std::set<int>(calls.begin(), calls.end());
  view_.selected_op = -1;
  selected_finding_ = -1;
  if (calls.empty()) return;
  auto when = [&](int op) {
    const OpRecord& r = trace_->ops[static_cast<size_t>(op)];
    return r.gpu ? std::min(r.submit, r.start) : r.submit;
  };
  int first = *std::min_element(calls.begin(), calls.end(),
                                [&](int a, int b) { return when(a) < when(b); });
  view_.scroll_to_op = first;
  // The step the first one is in, shown whole: the fix's cost is a step's.
  TimeNs at = when(first);
  for (const ProgramStep& s : v.steps.steps)
    if (s.begin <= at && at < s.end) {
      TimeNs pad = (s.end - s.begin) / 20;
      view_.begin = s.begin - pad;
      view_.end = s.end + pad;
      view_.fit_requested = false;
      view_.zoom_to.clear();
      return;
    }
  view_.zoom_to = {first};
}

std::string GuiApp::FixReport() const {
  if (verdict_panel_.selected_fix < 0 || !trace_) return "";
  std::string report = "fix " + std::to_string(verdict_panel_.selected_fix + 1) + ": " +
                       std::to_string(view_.highlight.size()) + " ops highlighted";
  if (!view_.highlight.empty()) report += ", view " + FormatDuration(view_.end - view_.begin);
  return report;
}

}  // namespace streamlab
