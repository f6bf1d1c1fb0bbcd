// Loading lab texts from assets/labs/<id>.json.
#include "engine/classroom/lab_texts.h"

#include "engine/util/assets.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"

namespace streamlab {

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
  t.pytorch = r.String("pytorch", "");
  for (const std::string* field : {&t.title, &t.goal, &t.theory, &t.predict, &t.observe,
                                   &t.explanation, &t.exercise})
    if (field->empty()) r.Fail("a required text is empty");
  return t;
}

}  // namespace streamlab
