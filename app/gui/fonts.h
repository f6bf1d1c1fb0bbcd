// The UI font: a CJK font found through fontconfig, with glyphs for every string the app
// can show (built from the assets), or ImGui's default font and a note when none is found.
#pragma once

#include <string>

namespace streamlab {

struct FontSetup {
  bool cjk = false;   // Chinese can be shown
  std::string file;   // the font file used
};

// Call after ImGui::CreateContext and before the first frame.
FontSetup LoadFonts(float size_px);

}  // namespace streamlab
