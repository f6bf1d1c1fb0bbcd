// Locating assets/ and choosing the default language from the locale.
#include "engine/util/assets.h"

#include <cstdlib>

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

}  // namespace streamlab
