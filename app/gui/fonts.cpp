// Font loading with fontconfig. The full CJK range costs ~580 ms and 32 MiB of atlas, so
// the glyph ranges are built from the strings the app actually has (TESTING.md).
#include "app/gui/fonts.h"

#include <fontconfig/fontconfig.h>
#include <imgui.h>

#include <filesystem>

#include "app/gui/ui_text.h"

namespace streamlab {
namespace {

// Finds a font with Simplified Chinese coverage: file path and face index.
bool FindCjkFont(std::string* file, int* index) {
  FcConfig* config = FcInitLoadConfigAndFonts();
  if (!config) return false;
  bool found = false;
  for (const char* family : {"Noto Sans CJK SC", "WenQuanYi Micro Hei", "Droid Sans Fallback"}) {
    FcPattern* pattern = FcNameParse(reinterpret_cast<const FcChar8*>(family));
    FcPatternAddString(pattern, FC_LANG, reinterpret_cast<const FcChar8*>("zh-cn"));
    FcConfigSubstitute(config, pattern, FcMatchPattern);
    FcDefaultSubstitute(pattern);
    FcResult result;
    FcPattern* match = FcFontMatch(config, pattern, &result);
    FcChar8* path = nullptr;
    FcLangSet* langs = nullptr;
    if (match && FcPatternGetString(match, FC_FILE, 0, &path) == FcResultMatch &&
        FcPatternGetLangSet(match, FC_LANG, 0, &langs) == FcResultMatch &&
        FcLangSetHasLang(langs, reinterpret_cast<const FcChar8*>("zh-cn")) == FcLangEqual) {
      int face = 0;
      FcPatternGetInteger(match, FC_INDEX, 0, &face);
      *file = reinterpret_cast<const char*>(path);
      *index = face;
      found = true;
    }
    if (match) FcPatternDestroy(match);
    FcPatternDestroy(pattern);
    if (found) break;
  }
  FcConfigDestroy(config);
  return found;
}

}  // namespace

FontSetup LoadFonts(float size_px) {
  ImGuiIO& io = ImGui::GetIO();
  FontSetup setup;
  std::string file;
  int index = 0;
  if (FindCjkFont(&file, &index) && std::filesystem::exists(file)) {
    // Ranges must outlive the atlas build.
    static ImVector<ImWchar> ranges;
    ranges.clear();
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(io.Fonts->GetGlyphRangesDefault());
    builder.AddText("\xE2\x9C\x93\xE2\x80\xA6\xE2\x86\x92\xC2\xB5");  // check mark, ellipsis, arrow, micro
    for (const std::string& s : AllAssetStrings()) builder.AddText(s.c_str());
    builder.BuildRanges(&ranges);
    ImFontConfig config;
    config.FontNo = index;
    config.OversampleH = 1;
    config.PixelSnapH = true;
    if (io.Fonts->AddFontFromFileTTF(file.c_str(), size_px, &config, ranges.Data)) {
      setup.cjk = true;
      setup.file = file;
      return setup;
    }
  }
  ImFontConfig config;
  config.SizePixels = size_px;
  io.Fonts->AddFontDefault(&config);
  return setup;
}

}  // namespace streamlab
