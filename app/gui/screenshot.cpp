// PNG via stb_image_write (from Debian's libstb; it already holds the implementation).
#include "app/gui/screenshot.h"

#include <GL/gl.h>
#include <stb_image_write.h>

#include "engine/scenario/scenario_json.h"

namespace streamlab {

bool WriteScreenshot(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows run bottom-up; PNG's top-down.
  std::vector<unsigned char> flipped(pixels.size());
  size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y)
    std::copy_n(&pixels[static_cast<size_t>(height - 1 - y) * row], row, &flipped[static_cast<size_t>(y) * row]);
  return stbi_write_png(path.c_str(), width, height, 4, flipped.data(), static_cast<int>(row)) != 0;
}

void WriteLayout(const std::string& path, const Trace& trace, const ChartLayout& chart, const float verdict[3], int width,
                 int height) {
  Json list = Json::array();
  for (const SpanRect& r : chart.spans) {
    list.push_back({{"op", r.op},
                    {"name", DisplayName(trace.scenario, r.op)},
                    {"lane", r.lane},
                    {"x0", r.x0},
                    {"y0", r.y0},
                    {"x1", r.x1},
                    {"y1", r.y1},
                    {"color", {r.color & 0xff, (r.color >> 8) & 0xff, (r.color >> 16) & 0xff}}});
  }
  Json rows = Json::array();
  for (const RowRect& r : chart.rows)
    rows.push_back({{"kind", r.kind}, {"lane", r.lane}, {"group", r.group}, {"stream", r.stream}, {"y0", r.y0}, {"y1", r.y1}});
  Json texts = Json::array();
  for (const TextRect& t : chart.texts)
    texts.push_back({{"kind", t.kind}, {"text", t.text}, {"x0", t.x0}, {"y0", t.y0}, {"x1", t.x1}, {"y1", t.y1}});
  Json out{{"width", width}, {"height", height}, {"spans", list}, {"rows", rows}, {"texts", texts},
           {"chart", {{"x0", chart.x0}, {"y0", chart.y0}, {"x1", chart.x1}, {"y1", chart.y1}, {"label_x1", chart.label_x1}}}};
  if (verdict[0] >= 0) out["verdict"] = {{"y0", verdict[0]}, {"y1", verdict[1]}, {"needed", verdict[2]}};
  SaveJsonFile(out, path);
}

}  // namespace streamlab
