// The findings panel under the chart: the whole run's figures, then the findings about the
// selected span, then the groups of findings by severity (a program's verdict is above the chart,
// gui_verdict.cpp; its findings open from one line under it). A long group (more than three alike, as
// in a recorded program of thousands of ops) shows its header and its three largest, and
// opens into the rest, drawn with a clipper so only the visible lines are rendered.
#include <imgui.h>

#include "app/gui/gui_app.h"
#include "app/gui/text_wrap.h"

namespace streamlab {
namespace {

ImVec4 SeverityColor(Severity s) {
  switch (s) {
    case Severity::kWarning: return ImVec4(1.0f, 0.62f, 0.25f, 1.0f);
    case Severity::kNote: return ImVec4(0.55f, 0.78f, 1.0f, 1.0f);
    case Severity::kInfo: return ImVec4(0.7f, 0.72f, 0.75f, 1.0f);
  }
  return ImVec4(1, 1, 1, 1);
}

}  // namespace

// One finding: its severity tag (click: highlight and zoom to its ops) and its sentence.
void GuiApp::DrawFinding(int i) {
  const Finding& f = analysis_.findings[i];
  ImGui::PushID(i);
  ImGui::PushStyleColor(ImGuiCol_Text, SeverityColor(f.severity));
  std::string tag = std::string("[") + texts_.Get(std::string("severity.") + ToString(f.severity)) + "]";
  if (ImGui::Selectable(tag.c_str(), selected_finding_ == i, 0, ImGui::CalcTextSize(tag.c_str()))) {
    selected_finding_ = i;
    view_.highlight.clear();
    std::vector<int> ops{f.op};
    ops.insert(ops.end(), f.because.begin(), f.because.end());
    if (f.other >= 0) ops.push_back(f.other);
    for (int op : ops)
      if (op >= 0) view_.highlight.insert(op);
    view_.zoom_to.assign(view_.highlight.begin(), view_.highlight.end());
    view_.selected_op = -1;
  }
  ImGui::PopStyleColor();
  ImGui::SameLine();
  TextWrappedAnyScript(texts_.Render(*trace_, f));
  ImGui::PopID();
}

void GuiApp::DrawFindings(float height) {
  ImGui::BeginChild("findings", ImVec2(0, height), true);
  ImGui::TextUnformatted(ui_("findings"));
  ImGui::PushTextWrapPos(0);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (analysis_.summarised_only) TextWrappedAnyScript(texts_.RenderSummarised(*trace_));
  TextWrappedAnyScript(texts_.RenderFigures(*trace_, analysis_.figures));
  ImGui::PopStyleColor();
  // During a replay, only what has happened by the cursor is explained.
  auto shown = [&](const Finding& f) {
    return view_.replay_until < 0 || f.op < 0 || trace_->ops[f.op].start <= view_.replay_until;
  };
  if (view_.selected_op >= 0) {
    for (size_t i = 0; i < analysis_.findings.size(); ++i) {
      const Finding& f = analysis_.findings[i];
      if (f.op == view_.selected_op && !(f.kind == FindingKind::kStartDelay && f.cause == Cause::kPrompt) && shown(f))
        DrawFinding(static_cast<int>(i));
    }
  }
  const Severity order[] = {Severity::kWarning, Severity::kNote, Severity::kInfo};
  for (Severity severity : order) {
    for (size_t g = 0; g < finding_groups_.size(); ++g) {
      const FindingGroup& group = finding_groups_[g];
      if (group.severity != severity) continue;
      if (group.members.size() <= kGroupShown) {
        for (int i : group.members)
          if (analysis_.findings[i].op != view_.selected_op && shown(analysis_.findings[i])) DrawFinding(i);
        continue;
      }
      // Like explain: the header, the largest three, and the rest behind "... and N more".
      ImGui::PushID(static_cast<int>(g) + 1000000);
      ImGui::PushStyleColor(ImGuiCol_Text, SeverityColor(severity));
      ImGui::TextUnformatted(RenderGroupHeader(texts_, group).c_str());
      ImGui::PopStyleColor();
      if (std::string site = RenderGroupSite(texts_, group); !site.empty()) ImGui::TextDisabled("%s", site.c_str());
      ImGui::Indent();
      for (size_t k = 0; k < kGroupShown; ++k) DrawFinding(group.members[k]);
      if (ImGui::TreeNode("more", "%s", RenderGroupMore(texts_, group).c_str())) {
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(group.members.size() - kGroupShown));
        while (clipper.Step())
          for (int k = clipper.DisplayStart; k < clipper.DisplayEnd; ++k) DrawFinding(group.members[kGroupShown + k]);
        ImGui::TreePop();
      }
      ImGui::Unindent();
      ImGui::PopID();
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::EndChild();
}

void GuiApp::DrawProgramFindings(float open_height) {
  VerdictPanel& p = verdict_panel_;
  std::string heading = ui_.Fill("findings.program", {{"n", std::to_string(analysis_.findings.size())}}) + "###program_findings";
  ImGui::SetNextItemOpen(p.findings_open);
  p.findings_open = ImGui::CollapsingHeader(heading.c_str());
  if (p.findings_open) DrawFindings(open_height);
}

}  // namespace streamlab
