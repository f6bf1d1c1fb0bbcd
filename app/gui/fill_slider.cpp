// Filled sliders (fill_slider.h): ImGui's slider runs as usual, with its frame and grab made
// transparent, on a channel above one where the frame and the fill are drawn, so input, keyboard
// and Ctrl+click editing stay ImGui's.
#include "app/gui/fill_slider.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace streamlab {
namespace {

bool Filled(const std::function<bool()>& slider, const std::function<float()>& fraction) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const ImVec2 size(ImGui::CalcItemWidth(), ImGui::GetFrameHeight());
  ImDrawListSplitter layers;
  layers.Split(draw, 2);
  layers.SetCurrentChannel(draw, 1);
  for (ImGuiCol c : {ImGuiCol_FrameBg, ImGuiCol_FrameBgHovered, ImGuiCol_FrameBgActive, ImGuiCol_SliderGrab,
                     ImGuiCol_SliderGrabActive})
    ImGui::PushStyleColor(c, IM_COL32(0, 0, 0, 0));
  bool changed = slider();
  ImGui::PopStyleColor(5);
  bool active = ImGui::IsItemActive(), hovered = ImGui::IsItemHovered();
  layers.SetCurrentChannel(draw, 0);
  const ImGuiStyle& style = ImGui::GetStyle();
  ImU32 frame = ImGui::GetColorU32(active ? ImGuiCol_FrameBgActive : hovered ? ImGuiCol_FrameBgHovered : ImGuiCol_FrameBg);
  ImVec2 end(at.x + size.x, at.y + size.y);
  draw->AddRectFilled(at, end, frame, style.FrameRounding);
  float filled = std::clamp(fraction(), 0.0f, 1.0f) * size.x;
  if (filled > 0.5f) {
    ImVec4 grab = style.Colors[active ? ImGuiCol_SliderGrabActive : ImGuiCol_SliderGrab];
    grab.w *= 0.55f;  // the digits stay readable over it
    draw->AddRectFilled(at, ImVec2(at.x + filled, end.y), ImGui::GetColorU32(grab), style.FrameRounding);
  }
  layers.Merge(draw);
  return changed;
}

}  // namespace

bool FillSliderInt(const char* label, int* value, int min, int max, const char* format) {
  return Filled([&] { return ImGui::SliderInt(label, value, min, max, format); },
                [&] { return max > min ? static_cast<float>(*value - min) / static_cast<float>(max - min) : 0.0f; });
}

bool FillSliderFloat(const char* label, float* value, float min, float max, const char* format, ImGuiSliderFlags flags) {
  return Filled([&] { return ImGui::SliderFloat(label, value, min, max, format, flags); },
                [&] {
                  if (max <= min) return 0.0f;
                  if ((flags & ImGuiSliderFlags_Logarithmic) && min > 0)
                    return std::log(std::max(*value, min) / min) / std::log(max / min);
                  return (*value - min) / (max - min);
                });
}

}  // namespace streamlab
