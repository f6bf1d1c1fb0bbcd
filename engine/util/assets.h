// Where the data files (texts, templates) live and which language to show by default.
// Shared by every stage that shows text: the analyzer's sentences, lab texts, the GUI.
#pragma once

#include <string>

namespace streamlab {

// $STREAMLAB_ASSETS if set, else the source tree's assets/ (where the build came from).
std::string AssetsDir();
// "zh" when the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) is Chinese, else "en".
std::string DefaultLanguage();

}  // namespace streamlab
