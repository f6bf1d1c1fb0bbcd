// Sliders drawn as a bar filled up to the value, the value's text on top of it. ImGui's own
// slider puts its grab over the value's digits wherever the value lies (issue 67); a fill
// leaves every digit on plain background or plain fill.
#pragma once

#include <imgui.h>

namespace streamlab {

bool FillSliderInt(const char* label, int* value, int min, int max, const char* format = "%d");
// `flags`: ImGuiSliderFlags_Logarithmic fills by the logarithm, as the slider moves.
bool FillSliderFloat(const char* label, float* value, float min, float max, const char* format, ImGuiSliderFlags flags = 0);

}  // namespace streamlab
