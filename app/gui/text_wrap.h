// Wrapping text to a width ourselves: Dear ImGui 1.86 breaks lines only at spaces (and after
// ASCII punctuation), so Chinese - words without spaces between them - would break only where an
// English word sits ("为 GPU" alone on a line). Here a line may also break between two CJK
// characters, or between one and a Latin word, but never before closing punctuation (，。）)
// nor after opening punctuation (（“).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace streamlab {

// `text` in lines no wider than `width` at `font_size` of the current font (a word wider than a
// line is cut where it must be); explicit newlines are kept. Blanks at a break are dropped.
std::vector<std::string> WrapLines(std::string_view text, float width, float font_size);

// `text` wrapped to `width` (the current font and size), drawn at the cursor as one item; the
// lines are cached per text and width, so a frame does not break them again.
void DrawWrappedText(const std::string& text, float width);
// Its height, as DrawWrappedText draws it.
float WrappedTextHeight(const std::string& text, float width);
// `text` wrapped to the window's right edge from the cursor (ImGui::TextWrapped's place).
void TextWrappedAnyScript(const std::string& text);

}  // namespace streamlab
