// Lab texts (title, goal, theory, predict question, ...) live in assets/labs/<id>.json with
// one object per language; code holds no prose.
#pragma once

#include <string>
#include <vector>

namespace streamlab {

struct LabText {
  std::string title;
  std::string goal;
  std::string theory;
  std::string predict;
  std::string observe;
  std::string explanation;
  std::string exercise;
  std::string myth;  // optional: what the course notes get wrong, and the evidence
};

// $STREAMLAB_ASSETS if set, else the source tree's assets/ (where the build came from).
std::string AssetsDir();
// Throws InputError if the file is missing or malformed or a required field is empty.
LabText LoadLabText(const std::string& lab_id, const std::string& lang);
// "zh" when the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) is Chinese, else "en".
std::string DefaultLanguage();
// The languages every lab must have.
const std::vector<std::string>& LabLanguages();

}  // namespace streamlab
