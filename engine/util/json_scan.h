// A JSON reader that accepts exactly the texts nlohmann::json accepts (RFC 8259, strict UTF-8,
// a leading byte-order mark, nothing after the value) and builds only what its caller asks for:
// a value whole as Json, a value checked and skipped (nothing built), or an object's members and
// an array's elements one at a time. nlohmann's own parser reads a character at a time through
// an input adapter and builds every token's string; this one scans runs of plain bytes in place,
// which is what makes a 700 MB torch.profiler trace or a 200 MB saved trace slow to read.
// ParseJson (json_reader.h) and the torch.profiler reader use it; tests/fuzz's fuzz_json checks
// it against nlohmann on every input the fuzzer makes.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "engine/util/json_reader.h"

namespace streamlab {

class JsonScanner {
 public:
  // Errors are InputError "source:line:column: malformed JSON: parse error: ..." and
  // "source: JSON nested deeper than 64 levels". `text` must outlive the scanner.
  JsonScanner(std::string_view text, std::string source);

  // The next value's first character, after white space ('\0' at the end of the text).
  char Peek();
  // Reads the next value and returns it.
  Json Value();
  // Reads the next value, checking it, and builds nothing.
  void Skip();
  // Reads the next value, which must be an object: `on_member(std::string& key)` is called for
  // each member and must read its value (Value, Skip, Members or Elements).
  template <class OnMember>
  void Members(OnMember&& on_member) {
    MembersWhile([&](std::string& key) {
      on_member(key);
      return true;
    });
  }
  // As Members, but stops after a member for which `on_member` returns false, leaving the
  // rest of the text unread.
  template <class OnMember>
  void MembersWhile(OnMember&& on_member) {
    Enter('{');
    if (Leave('}')) return;
    std::string key;
    do {
      Key(key);
      if (!on_member(key)) return;
    } while (Next('}'));
  }
  // Reads the next value, which must be an array: `on_element()` must read each element.
  template <class OnElement>
  void Elements(OnElement&& on_element) {
    Enter('[');
    if (Leave(']')) return;
    do {
      on_element();
    } while (Next(']'));
  }
  // Checks that only white space is left.
  void Finish();
  // Where the scanner is in the text: after Peek(), where the next value starts (a scanner on
  // the text from there reads that value again).
  size_t Offset() const { return pos_; }

  // The whole text as one value: Value() then Finish().
  Json Document();

 private:
  void SkipSpace();
  void Enter(char open);
  bool Leave(char close);
  bool Next(char close);
  void Key(std::string& key);
  void String(std::string* out);
  void Unicode(std::string* out);
  unsigned Hex4();
  Json Number(bool build);
  void Literal(std::string_view word);
  [[noreturn]] void Fail(const std::string& what) const;

  std::string_view text_;
  std::string source_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// Reads the members of `text`'s top-level object in order, up to the first for which
// `on_member(key, in)` (which must read the member's value) returns false: a look at a large
// document's first keys that reads only as far as it must. Nothing happens if the text is not
// an object; reading just stops where it is malformed.
void ReadTopLevelMembers(std::string_view text,
                         const std::function<bool(const std::string& key, JsonScanner& in)>& on_member);

}  // namespace streamlab
