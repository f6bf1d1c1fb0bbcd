// UI strings from assets/ui.json, per language ("Run", "Week {n}", ...).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace streamlab {

class UiText {
 public:
  // Throws InputError if the file or the language is missing.
  static UiText Load(const std::string& lang);
  const std::string& lang() const { return lang_; }
  // The string for `key` (the key itself if missing, so a gap is visible, not a crash).
  const char* operator()(const std::string& key) const;
  std::string Fill(const std::string& key, const std::map<std::string, std::string>& vars) const;
  // A lab's variant, parameter and unit as this language shows them: translated where the
  // language has them ("variant.legacy"), the variant with its id beside ("旧版默认流（legacy）",
  // the spelling `--variant` and the exercises use); the id itself otherwise.
  std::string Variant(const std::string& id) const;
  std::string Param(const std::string& name) const;
  std::string Unit(const std::string& unit) const;

 private:
  std::string lang_;
  std::map<std::string, std::string> strings_;
};

// Every user-visible string in assets/ (UI, analyzer templates, lab texts), for building
// the font's glyph ranges.
std::vector<std::string> AllAssetStrings();

}  // namespace streamlab
