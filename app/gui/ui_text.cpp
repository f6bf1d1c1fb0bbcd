// Loading UI strings, and collecting every asset string for the font atlas.
#include "app/gui/ui_text.h"

#include <filesystem>
#include <functional>

#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"
#include "engine/classroom/lab_texts.h"

namespace streamlab {

UiText UiText::Load(const std::string& lang) {
  std::string path = AssetsDir() + "/ui.json";
  Json json = ParseJson(ReadTextFile(path), path);
  if (!json.is_object() || !json.contains(lang) || !json[lang].is_object())
    throw InputError(path + ": no UI strings for language \"" + lang + "\"");
  UiText t;
  t.lang_ = lang;
  for (auto it = json[lang].begin(); it != json[lang].end(); ++it)
    if (it.value().is_string()) t.strings_[it.key()] = it.value().get<std::string>();
  return t;
}

const char* UiText::operator()(const std::string& key) const {
  auto it = strings_.find(key);
  return it == strings_.end() ? key.c_str() : it->second.c_str();
}

std::string UiText::Variant(const std::string& id) const {
  auto it = strings_.find("variant." + id);
  return it == strings_.end() ? id : it->second + "\xEF\xBC\x88" + id + "\xEF\xBC\x89";  // full-width ( )
}

std::string UiText::Param(const std::string& name) const {
  auto it = strings_.find("param." + name);
  return it == strings_.end() ? name : it->second;
}

std::string UiText::Unit(const std::string& unit) const {
  auto it = strings_.find("unit." + unit);
  return it == strings_.end() ? unit : it->second;
}

std::string UiText::Fill(const std::string& key, const std::map<std::string, std::string>& vars) const {
  return FillTemplate((*this)(key), vars);
}

std::vector<std::string> AllAssetStrings() {
  std::vector<std::string> out;
  std::function<void(const Json&)> walk = [&](const Json& j) {
    if (j.is_string()) out.push_back(j.get<std::string>());
    else if (j.is_object() || j.is_array())
      for (const Json& child : j) walk(child);
  };
  std::vector<std::string> files{AssetsDir() + "/ui.json", AssetsDir() + "/analyzer.json"};
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(AssetsDir() + "/labs", ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  for (const std::string& f : files) {
    try {
      walk(ParseJson(ReadTextFile(f), f));
    } catch (const InputError&) {
      // A broken asset shows up in its own loader's error; the font just lacks its glyphs.
    }
  }
  return out;
}

}  // namespace streamlab
