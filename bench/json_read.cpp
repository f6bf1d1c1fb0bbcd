// How fast StreamLab reads JSON, against nlohmann's parser on the same text in the same run
// (the ratio is what stays put on a noisy machine). For each file: nlohmann building the whole
// tree, the scanner building it (what ParseJson does for a saved trace or a scenario), the
// scanner checking it and building nothing, and, for a torch.profiler trace, the scanner's
// Kineto reader (what `import` and `explain` read it with) against nlohmann's lexer alone (a
// SAX handler that keeps nothing: less than the reader this one replaced did). Each is the
// best of --repeat runs. Exits 1 if --min-ratio is given and the scanner builds a whole tree
// less than that many times faster than nlohmann does.
//   json_read [--repeat N] [--min-ratio R] FILE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/ingest/kineto.h"
#include "engine/ingest/kineto_parse.h"
#include "engine/util/errors.h"
#include "engine/util/json_scan.h"

namespace streamlab {
namespace {

// A SAX handler that accepts everything and keeps nothing: nlohmann's lexing cost alone.
struct NullSax : nlohmann::json_sax<Json> {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

double Seconds(const std::function<void()>& body) {
  auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double BestSeconds(int repeat, const std::function<void()>& body) {
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) best = std::min(best, Seconds(body));
  return best;
}

// The best of `repeat` runs of each, taken in turns, so that a burst of load on the machine
// slows both alike rather than only the one that happened to run then. {theirs, ours}.
std::pair<double, double> BestSecondsInTurns(int repeat, const std::function<void()>& theirs,
                                             const std::function<void()>& ours) {
  std::pair<double, double> best{1e30, 1e30};
  for (int i = 0; i < repeat; ++i) {
    best.first = std::min(best.first, Seconds(theirs));
    best.second = std::min(best.second, Seconds(ours));
  }
  return best;
}

int Run(int argc, char** argv) {
  int repeat = 3;
  double min_ratio = 0;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else if (a == "--min-ratio" && i + 1 < argc) min_ratio = std::atof(argv[++i]);
    else files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: json_read [--repeat N] [--min-ratio R] FILE...\n");
    return 2;
  }
  bool ok = true;
  for (const std::string& file : files) {
    std::string text = ReadTextFile(file, kMaxKinetoFileBytes);
    double mb = static_cast<double>(text.size()) / 1e6;
    std::printf("%s: %.1f MB\n", file.c_str(), mb);
    auto report = [&](const char* what, double ours, double theirs) {
      std::printf("  %-44s %7.3f s (%6.0f MB/s)   nlohmann %7.3f s   speed-up %.2fx\n", what, ours, mb / ours, theirs,
                  theirs / ours);
    };
    if (LooksLikeChromeTrace(text)) {
      size_t events = 0;
      auto [theirs, ours] = BestSecondsInTurns(
          repeat,
          [&] {
            NullSax sax;
            if (!Json::sax_parse(text, &sax)) throw InputError(file + ": nlohmann refused it");
          },
          [&] { ParseKinetoJson(text, file, [&](const Json&, size_t) { ++events; }); });
      report("torch.profiler reader (vs nlohmann's lexer)", ours, theirs);
    }
    auto [theirs, ours] = BestSecondsInTurns(repeat, [&] { Json tree = Json::parse(text); },
                                             [&] { Json tree = JsonScanner(text, file).Document(); });
    report("whole tree", ours, theirs);
    if (min_ratio > 0 && theirs / ours < min_ratio) ok = false;
    double skip = BestSeconds(repeat, [&] {
      JsonScanner in(text, file);
      in.Skip();
      in.Finish();
    });
    std::printf("  %-44s %7.3f s (%6.0f MB/s)\n", "checked only, nothing built", skip, mb / skip);
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace streamlab

int main(int argc, char** argv) {
  try {
    return streamlab::Run(argc, argv);
  } catch (const streamlab::InputError& e) {
    std::fprintf(stderr, "json_read: %s\n", e.what());
    return 2;
  }
}
