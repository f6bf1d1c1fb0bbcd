// Checks a headless screenshot against the trace it shows: every span the layout file says
// was drawn has its colour at its centre in the PNG, kernel spans are as wide as their
// durations say (relative to each other), and, for the legacy-stall lab, the three kernels
// are one after another with nothing of one lane's colour under another lane's kernel.
//   check_screenshot out.png [--expect-serial k1,k2,k3] [--expect-absent k4,...] [--expect-layout program|texts]
// (--expect-absent: spans that must not be drawn, e.g. work a replay has not reached yet;
// --expect-layout texts: no label of the chart is cut at its column or drawn over another;
// program: that, and a program's answer panel above the chart, as tall as its lines, and every
// GPU stream's lane - each rank's - on screen without scrolling)
#include <stb_image.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/util/errors.h"
#include "engine/util/json_reader.h"

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

bool Overlap(const streamlab::Json& a, const streamlab::Json& b) {
  auto f = [](const streamlab::Json& j, const char* k) { return j[k].get<float>(); };
  return f(a, "x0") < f(b, "x1") - 0.5f && f(b, "x0") < f(a, "x1") - 0.5f && f(a, "y0") < f(b, "y1") - 0.5f &&
         f(b, "y0") < f(a, "y1") - 0.5f;
}

// The chart's labels: each inside its column (lane labels left of the chart, axis and step labels
// inside it), none drawn over another of the label column or of the axis.
void CheckTexts(const streamlab::Json& layout) {
  const streamlab::Json& chart = layout["chart"];
  float label_x1 = chart["label_x1"], x1 = chart["x1"];
  std::vector<streamlab::Json> column, axis;
  int cut = 0;
  for (const streamlab::Json& t : layout["texts"]) {
    std::string kind = t["kind"];
    float tx0 = t["x0"], tx1 = t["x1"];
    bool in_column = kind == "lane" || kind == "flags" || kind == "quiet";
    if (in_column) column.push_back(t);
    if (kind == "axis" || kind == "step") axis.push_back(t);
    bool fits = in_column ? tx1 <= label_x1 + 1 : kind == "header" ? tx1 <= x1 + 1 : tx0 >= label_x1 - 1 && tx1 <= x1 + 1;
    if (!fits) {
      ++cut;
      std::printf("  cut: %s \"%s\" (%.0f..%.0f)\n", kind.c_str(), t["text"].get<std::string>().c_str(), tx0, tx1);
    }
  }
  Check(cut == 0, "no label runs out of its column (" + std::to_string(layout["texts"].size()) + " labels)");
  int over = 0;
  for (const auto* list : {&column, &axis})
    for (size_t i = 0; i < list->size(); ++i)
      for (size_t j = i + 1; j < list->size(); ++j)
        if (Overlap((*list)[i], (*list)[j])) {
          ++over;
          std::printf("  overlap: \"%s\" and \"%s\"\n", (*list)[i]["text"].get<std::string>().c_str(),
                      (*list)[j]["text"].get<std::string>().c_str());
        }
  Check(over == 0, "no label is drawn over another");
}

// A program's answer on top, whole, and every GPU stream's lane on screen.
void CheckProgram(const streamlab::Json& layout) {
  Check(layout.contains("verdict"), "the verdict panel is drawn");
  if (!layout.contains("verdict")) return;
  const streamlab::Json& v = layout["verdict"];
  const streamlab::Json& chart = layout["chart"];
  Check(v["y1"].get<float>() <= chart["y0"].get<float>(), "the verdict is above the chart");
  Check(v["needed"].get<float>() <= v["y1"].get<float>() - v["y0"].get<float>() + 1, "the verdict panel is as tall as its lines");
  int streams = 0, off = 0;
  for (const streamlab::Json& r : layout["rows"]) {
    if (!r["stream"].get<bool>()) continue;
    ++streams;
    if (r["y0"].get<float>() < chart["y0"].get<float>() || r["y1"].get<float>() > chart["y1"].get<float>()) ++off;
  }
  Check(streams > 0 && off == 0, std::to_string(streams - off) + " of " + std::to_string(streams) + " GPU stream lanes on screen");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: check_screenshot out.png [--expect-serial a,b,c]\n");
    return 2;
  }
  std::string png = argv[1];
  std::vector<std::string> serial, absent;
  std::string expect_layout;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--expect-layout") expect_layout = argv[i + 1];
    std::vector<std::string>* list = flag == "--expect-serial" ? &serial : flag == "--expect-absent" ? &absent : nullptr;
    if (!list) continue;
    std::stringstream ss(argv[i + 1]);
    for (std::string name; std::getline(ss, name, ',');) list->push_back(name);
  }
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 4);
  if (!pixels) {
    std::fprintf(stderr, "cannot read %s\n", png.c_str());
    return 1;
  }
  streamlab::Json layout;
  try {
    layout = streamlab::ParseJson(streamlab::ReadTextFile(png + ".layout.json"), "layout");
  } catch (const streamlab::InputError& e) {  // a screen with no chart writes none (the first screen)
    std::fprintf(stderr, "no layout to check beside %s: %s\n", png.c_str(), e.what());
    return 1;
  }
  Check(layout["width"] == w && layout["height"] == h, "layout matches the image size");
  auto pixel = [&](float x, float y) {
    int xi = std::clamp(static_cast<int>(x), 0, w - 1), yi = std::clamp(static_cast<int>(y), 0, h - 1);
    const unsigned char* p = pixels + (static_cast<size_t>(yi) * w + xi) * 4;
    return std::array<int, 3>{p[0], p[1], p[2]};
  };
  auto close = [](std::array<int, 3> a, const streamlab::Json& c) {
    return std::abs(a[0] - c[0].get<int>()) <= 12 && std::abs(a[1] - c[1].get<int>()) <= 12 &&
           std::abs(a[2] - c[2].get<int>()) <= 12;
  };
  std::map<std::string, streamlab::Json> kernels;
  int spans = 0;
  for (const streamlab::Json& s : layout["spans"]) {
    float x0 = s["x0"], x1 = s["x1"], y0 = s["y0"], y1 = s["y1"];
    if (s["lane"] == 0) continue;  // the host lane
    ++spans;
    if (x1 - x0 < 12) continue;  // too thin to probe
    // Probe a little below the centre line: names are drawn at the top of a span. In a
    // short lane (many lanes, e.g. four GPUs) the name fills the span's height, so the
    // span's right end, past a name shorter than the span, is probed too.
    float y = y0 + (y1 - y0) * 0.8f;
    bool coloured = close(pixel((x0 + x1) / 2, y), s["color"]) || close(pixel(x1 - 4, y), s["color"]);
    Check(coloured, "span " + s["name"].get<std::string>() + " has its colour where the trace puts it");
    kernels[s["name"]] = s;
  }
  // (A whole program's run seen at once may show only density bars.)
  if (expect_layout != "program") Check(spans > 0, "at least one GPU span was drawn");
  if (expect_layout == "program" || expect_layout == "texts") CheckTexts(layout);
  if (expect_layout == "program") CheckProgram(layout);
  for (size_t i = 0; i + 1 < serial.size(); ++i) {
    const streamlab::Json& a = kernels[serial[i]];
    const streamlab::Json& b = kernels[serial[i + 1]];
    Check(!a.is_null() && !b.is_null(), serial[i] + " and " + serial[i + 1] + " were drawn");
    if (a.is_null() || b.is_null()) continue;
    Check(b["x0"].get<float>() >= a["x1"].get<float>() - 2, serial[i + 1] + " starts where " + serial[i] + " ends");
    Check(a["lane"] != b["lane"], serial[i] + " and " + serial[i + 1] + " are on different lanes");
    // Under b, on a's lane, there is no span of a's colour: they did not overlap.
    float y = (a["y0"].get<float>() + a["y1"].get<float>()) * 0.5f + 4;
    float x = (b["x0"].get<float>() + b["x1"].get<float>()) * 0.5f;
    Check(!close(pixel(x, y), a["color"]), "nothing runs on " + serial[i] + "'s lane while " + serial[i + 1] + " runs");
    float wa = a["x1"].get<float>() - a["x0"].get<float>(), wb = b["x1"].get<float>() - b["x0"].get<float>();
    Check(std::fabs(wa - wb) / std::max(wa, wb) < 0.05f, "equal kernels are drawn equally wide");
  }
  for (const std::string& name : absent) {
    bool drawn = false;
    for (const streamlab::Json& s : layout["spans"]) drawn |= s["name"] == name && s["lane"] != 0;  // GPU lanes
    Check(!drawn, name + " is not drawn");
  }
  stbi_image_free(pixels);
  std::printf("%d failed\n", failures);
  return failures ? 1 : 0;
}
