// Loading lab texts from assets/labs/<id>.json.
#include "engine/lab_texts.h"

#include <cstdlib>

#include "engine/errors.h"
#include "engine/json_reader.h"

namespace streamlab {

std::string AssetsDir() {
  if (const char* env = std::getenv("STREAMLAB_ASSETS"); env && *env) return env;
  return STREAMLAB_SOURCE_ASSETS;
}

std::string DefaultLanguage() {
  for (const char* var : {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::string(v).rfind("zh", 0) == 0 ? "zh" : "en";
  }
  return "en";
}

const std::vector<std::string>& LabLanguages() {
  static const std::vector<std::string> langs{"en", "zh"};
  return langs;
}

LabText LoadLabText(const std::string& lab_id, const std::string& lang) {
  std::string path = AssetsDir() + "/labs/" + lab_id + ".json";
  Json json = ParseJson(ReadTextFile(path), path);
  JsonReader root(json, path, "");
  JsonReader r = root.Object(lang.c_str());
  LabText t;
  t.title = r.String("title");
  t.goal = r.String("goal");
  t.theory = r.String("theory");
  t.predict = r.String("predict");
  t.observe = r.String("observe");
  t.explanation = r.String("explanation");
  t.exercise = r.String("exercise");
  t.myth = r.String("myth", "");
  for (const std::string* field : {&t.title, &t.goal, &t.theory, &t.predict, &t.observe,
                                   &t.explanation, &t.exercise})
    if (field->empty()) r.Fail("a required text is empty");
  return t;
}

}  // namespace streamlab
