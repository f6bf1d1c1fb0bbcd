// The app's words for a lab's variants, parameters and units (app/gui/ui_text.h): every lab's
// are in Chinese, shown with the id `--variant` and the exercises spell; English shows the ids.
#include <gtest/gtest.h>

#include "app/gui/ui_text.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

TEST(UiText, EveryLabsVariantsParametersAndUnitsAreInChinese) {
  UiText zh = UiText::Load("zh"), en = UiText::Load("en");
  for (const Lab& lab : AllLabs()) {
    for (const std::string& v : lab.variants) {
      EXPECT_NE(zh.Variant(v), v) << lab.id << ": variant " << v;
      EXPECT_NE(zh.Variant(v).find("\xEF\xBC\x88" + v + "\xEF\xBC\x89"), std::string::npos) << v;
      EXPECT_EQ(en.Variant(v), v);
    }
    for (const LabParam& p : lab.params) {
      EXPECT_NE(zh.Param(p.name), p.name) << lab.id << ": parameter " << p.name;
      EXPECT_EQ(en.Param(p.name), p.name);
      if (p.unit != "us" && p.unit != "%" && p.unit != "MB" && !p.unit.empty() && p.unit != p.name) {  // symbols stay
        EXPECT_NE(zh.Unit(p.unit), p.unit) << lab.id << ": unit " << p.unit;
      }
    }
  }
  EXPECT_EQ(zh.Variant("legacy"), "旧版默认流（legacy）");
}

}  // namespace
}  // namespace streamlab
