// The JSON scanner against nlohmann's parser: the same texts accepted, the same values built
// (types included), errors located, and values skipped without being built.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/util/errors.h"
#include "engine/util/json_scan.h"

namespace streamlab {
namespace {

// What nlohmann makes of a text: its value dumped, or "error".
std::string Theirs(const std::string& text) {
  try {
    return Json::parse(text).dump();
  } catch (const Json::exception&) {
    return "error";
  }
}

std::string Ours(const std::string& text) {
  try {
    return JsonScanner(text, "t.json").Document().dump();
  } catch (const InputError&) {
    return "error";
  }
}

std::string ErrorOf(const std::string& text) {
  try {
    JsonScanner(text, "t.json").Document();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonScan, AcceptsAndBuildsWhatNlohmannDoes) {
  const std::vector<std::string> texts = {
      // values and white space
      "0", "-0", "1", "-1", "1.5", "-1.5e3", "1E+2", "2e-2", "18446744073709551615", "18446744073709551616",
      "-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890", "1e308", "1e-400",
      "4.9e-324", " \t\r\n true \n", "false", "null", "\"\"", "[]", "{}", "[1,[2,[3]],{\"a\":{}}]",
      "{\"a\":1,\"a\":2}", "{\"b\":1,\"a\":[true,false,null]}", "\xEF\xBB\xBF{\"bom\":1}",
      // strings: escapes, surrogate pairs, UTF-8 at every length and at the edges of its ranges
      R"("\"\\\/\b\f\n\r\t")", R"("\u0000\u0041\u00e9\u20AC\uD83D\uDE00")", "\"\xC2\x80\xDF\xBF\"",
      "\"\xE0\xA0\x80\xED\x9F\xBF\xEF\xBF\xBF\"", "\"\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\"", "\"\x7F\"",
      // refused
      "", " ", "01", "-", "1.", ".5", "1e", "1e+", "+1", "1e400", "-1e400", "NaN", "Infinity", "tru", "nul",
      "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[1 2]", "{\"a\":1", "[", "\"abc", "\"\\x\"", "\"\\u12\"",
      "\"\\uD800\"", "\"\\uD800\\u0041\"", "\"\\uDC00\"", "\"\x01\"", "\"\xC0\x80\"", "\"\xC1\xBF\"",
      "\"\xE0\x80\x80\"", "\"\xED\xA0\x80\"", "\"\xF0\x80\x80\x80\"", "\"\xF4\x90\x80\x80\"", "\"\xF5\x80\x80\x80\"",
      "\"\x80\"", "\"\xC2\"", "\"\xE1\x80\"", "1 2", "{} x", std::string("1\0", 2), std::string("[1]\0x", 5), std::string("[1\0]", 4), "\xEF\xBB", "\xEF\xBB\xBF",
      "[1e999999999999999999]", "{\"a\":" + std::string(400, '9') + "}"};
  for (const std::string& text : texts) EXPECT_EQ(Ours(text), Theirs(text)) << "text: " << text;
  // The same numbers' types: an unsigned, a signed integer, a double where 64 bits do not hold it.
  EXPECT_TRUE(JsonScanner("5", "t").Document().is_number_unsigned());
  EXPECT_TRUE(JsonScanner("-5", "t").Document().is_number_integer());
  EXPECT_FALSE(JsonScanner("-5", "t").Document().is_number_unsigned());
  EXPECT_TRUE(JsonScanner("18446744073709551616", "t").Document().is_number_float());
  EXPECT_TRUE(JsonScanner("2.0", "t").Document().is_number_float());
}

TEST(JsonScan, ReadsEveryCommittedJsonFileAsNlohmannDoes) {
  // Scenarios, profiles, saved traces, torch.profiler traces, assets, fuzz seeds.
  int files = 0;
  for (const char* dir : {"tests/fixtures", "scenarios", "assets", "tests/fuzz/corpus", "labs"}) {
    std::string root = std::string(STREAMLAB_SOURCE_DIR) + "/" + dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
      std::string text = ReadTextFile(entry.path().string());
      ASSERT_EQ(Ours(text), Theirs(text)) << entry.path();
      ++files;
    }
  }
  EXPECT_GT(files, 100);
}

TEST(JsonScan, SaysWhereTheTextIsWrong) {
  EXPECT_EQ(ErrorOf("{\n  \"a\": 1,\n  \"b\" 2\n}"),
            "t.json:3:7: malformed JSON: parse error: expected ':' after an object's key");
  EXPECT_EQ(ErrorOf("[1, 2,]"), "t.json:1:7: malformed JSON: parse error: expected a value");
  EXPECT_EQ(ErrorOf("{\"a\": \"x\x01\"}"),
            "t.json:1:9: malformed JSON: parse error: a control character in a string must be escaped");
  EXPECT_EQ(ErrorOf("[1e400]"), "t.json:1:2: malformed JSON: parse error: number too large for a double: 1e400");
  EXPECT_EQ(ErrorOf("{} {}"), "t.json:1:4: malformed JSON: parse error: unexpected text after the value");
  EXPECT_EQ(ErrorOf("[\"abc"), "t.json:1:6: malformed JSON: parse error: the text ends inside a string");
  EXPECT_EQ(ErrorOf(std::string(65, '[') + std::string(65, ']')), "t.json: JSON nested deeper than 64 levels");
  EXPECT_EQ(ErrorOf(std::string(64, '[') + std::string(64, ']')), "no error");
}

TEST(JsonScan, MembersElementsAndSkipReadOnlyWhatIsAskedFor) {
  std::string text = R"({"keep": {"x": [1, 2]}, "drop": {"deep": [[[{"y": "\u00e9"}]]], "n": 1e5}, "list": [3, "four", null]})";
  JsonScanner in(text, "t.json");
  Json kept;
  std::vector<std::string> keys, elements;
  in.Members([&](std::string& key) {
    keys.push_back(key);
    if (key == "keep") {
      kept = in.Value();
    } else if (key == "list") {
      in.Elements([&] { elements.push_back(in.Value().dump()); });
    } else {
      in.Skip();
    }
  });
  in.Finish();
  EXPECT_EQ(keys, (std::vector<std::string>{"keep", "drop", "list"}));
  EXPECT_EQ(kept.dump(), R"({"x":[1,2]})");
  EXPECT_EQ(elements, (std::vector<std::string>{"3", "\"four\"", "null"}));

  // A skipped value is still checked: the same text with a bad byte inside "drop" is refused.
  std::string bad = text;
  bad.replace(bad.find("\\u00e9"), 6, "\xC0\x80");
  JsonScanner again(bad, "t.json");
  EXPECT_THROW(again.Members([&](std::string& key) { key == "keep" ? (void)again.Value() : again.Skip(); }),
               InputError);
  // So is a number that no double holds, inside a skipped value.
  JsonScanner big(R"({"drop": [1e999]})", "t.json");
  EXPECT_THROW(big.Members([&](std::string&) { big.Skip(); }), InputError);
}

}  // namespace
}  // namespace streamlab
