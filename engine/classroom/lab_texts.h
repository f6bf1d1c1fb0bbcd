// Lab texts (title, goal, theory, predict question, ...) live in assets/labs/<id>.json with
// one object per language; code holds no prose.
#pragma once

#include <string>
#include <vector>

#include "engine/util/assets.h"

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
  std::string pytorch;  // optional: what PyTorch does instead (--backend torch), measured
};

// Throws InputError if the file is missing or malformed or a required field is empty.
LabText LoadLabText(const std::string& lab_id, const std::string& lang);
// The languages every lab must have.
const std::vector<std::string>& LabLanguages();

}  // namespace streamlab
