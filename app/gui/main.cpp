// streamlab: the desktop app. Also a headless renderer for tests and docs:
//   streamlab --lab ID [--variant V] [--backend sim] [--lang zh|en] --screenshot out.png [--size WxH]
//   streamlab --open trace.json          (a trace captured elsewhere, e.g. on a GPU server)
//   streamlab --bench-spans N[,M...] [--size WxH] [--bench-max-ratio R]
//            (CPU frame time with an N-span trace, then M...; with R, exit 1 when the last
//            one's frame time exceeds R times the first's: a ratio measured in one run)
//   streamlab --open trace.json --bench-frames  (CPU frame time once the trace is shown)
// Every flag: streamlab --help (gui_flags.cpp). Exit 77 when no display can be opened (tests
// mark that as skipped).
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/chart/bench_trace.h"
#include "app/gui/gui_app.h"
#include "app/gui/gui_flags.h"
#include "app/gui/screenshot.h"

namespace streamlab {
namespace {

using Clock = std::chrono::steady_clock;

// What a headless mode decides after each frame: keep drawing, or stop with an exit code.
struct Verdict {
  bool stop = false;
  int exit_code = 0;
};

// --bench-spans: the CPU frame time with each span count in turn (60 frames after 10 of
// warm-up), and the last one's ratio to the first.
class SpanBench {
 public:
  explicit SpanBench(const GuiArgs& args) : args_(args) {}
  void Start(GuiApp& app) { app.ShowTraceUnanalysed(MakeBenchTrace(args_.bench_spans[0])); }
  Verdict AfterFrame(GuiApp& app, double cpu_ms, int w, int h) {
    if (++frames_ > 10) cpu_ms_ += cpu_ms;  // skip warm-up frames
    if (frames_ < 70) return {};
    std::printf("bench: %ld spans at %dx%d: CPU frame time %.2f ms (mean of 60 frames)\n", args_.bench_spans[run_], w, h,
                cpu_ms_ / 60);
    means_.push_back(cpu_ms_ / 60);
    frames_ = 0;
    cpu_ms_ = 0;
    if (++run_ < args_.bench_spans.size()) {
      app.ShowTraceUnanalysed(MakeBenchTrace(args_.bench_spans[run_]));
      return {};
    }
    double ratio = means_.back() / means_.front();
    if (means_.size() > 1) std::printf("bench: frame time ratio last/first %.2f\n", ratio);
    if (args_.bench_max_ratio > 0 && ratio > args_.bench_max_ratio) {
      std::printf("bench: FAIL: ratio %.2f is above %.2f\n", ratio, args_.bench_max_ratio);
      return {true, 1};
    }
    return {true, 0};
  }

 private:
  const GuiArgs& args_;
  size_t run_ = 0;
  int frames_ = 0;
  double cpu_ms_ = 0;
  std::vector<double> means_;
};

// --bench-frames: frames are timed once the trace has been loaded, analysed and drawn a few times.
Verdict FrameBenchStep(GuiApp& app, const GuiArgs& args, double cpu_ms, int w, int h, Clock::time_point started,
                       int& settled, double& total_ms) {
  if (app.HasError()) {
    std::fprintf(stderr, "streamlab: %s\n", app.error().c_str());
    return {true, 1};
  }
  settled = app.Settled() && app.trace() ? settled + 1 : 0;
  if (settled > 10) total_ms += cpu_ms;
  if (settled == 70) {
    std::printf("bench: %s (%zu ops) at %dx%d: CPU frame time %.2f ms (mean of 60 frames)\n",
                args.options.open_trace.c_str(), app.trace()->ops.size(), w, h, total_ms / 60);
    return {true, 0};
  }
  if (Clock::now() - started > std::chrono::seconds(120)) {
    std::fprintf(stderr, "streamlab: the trace was not shown within 120 s\n");
    return {true, 1};
  }
  return {};
}

// What a screenshot run prints beside the PNG: the reports tests read.
void PrintScreenshotReports(GuiApp& app, const GuiArgs& args, int w, int h) {
  std::string doors = app.FirstScreenReport();
  if (!doors.empty()) std::printf("first screen: %s\n", doors.c_str());
  if (!app.trace()) return;
  const float verdict[3] = {app.panels().verdict_y0, app.panels().verdict_y1, app.panels().verdict_needed};
  WriteLayout(args.screenshot + ".layout.json", *app.trace(), app.layout(), verdict, w, h);
  std::printf("run to chart: %.1f ms\n", app.run_seconds() * 1e3);
  if (!app.tooltip().empty()) std::printf("tooltip: %s\n", app.tooltip().c_str());
  std::string fix = app.FixReport();
  if (!fix.empty()) std::printf("%s\n", fix.c_str());
  std::string report = app.PredictionReport();
  if (!report.empty()) std::printf("prediction: %s\n", report.c_str());
  report = app.ExerciseReport();
  if (!report.empty()) std::printf("%s\n", report.c_str());
  std::string compare = app.ProgramCompareReport();
  if (!compare.empty()) std::printf("compare:\n%s\n", compare.c_str());
}

// --screenshot: once a few frames have settled, write the PNG and the reports.
Verdict ScreenshotStep(GuiApp& app, const GuiArgs& args, int w, int h, Clock::time_point started, int& settled) {
  settled = app.Settled() ? settled + 1 : 0;
  if (settled >= 3) {  // a few frames for layout to settle
    int code = 0;
    if (app.HasError()) {
      std::fprintf(stderr, "streamlab: %s\n", app.error().c_str());
      code = 1;
    }
    std::string picker = app.PickerReport();
    if (!picker.empty()) std::printf("picker: %s\n", picker.c_str());
    if (!WriteScreenshot(args.screenshot, w, h)) {
      std::fprintf(stderr, "streamlab: cannot write %s\n", args.screenshot.c_str());
      return {true, 1};
    }
    PrintScreenshotReports(app, args, w, h);
    return {true, code};
  }
  if (Clock::now() - started > std::chrono::seconds(60)) {
    std::fprintf(stderr, "streamlab: the run did not finish within 60 s\n");
    return {true, 1};
  }
  return {};
}

// Draws frames until the window closes or a headless mode is done; returns the exit code.
int RunFrames(GLFWwindow* window, GuiApp& app, const GuiArgs& args) {
  SpanBench span_bench(args);
  if (!args.bench_spans.empty()) span_bench.Start(app);
  auto started = Clock::now();
  int settled = 0;
  double bench_total_ms = 0;
  while (!glfwWindowShouldClose(window)) {
    glfwPollEvents();
    auto frame_start = Clock::now();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (args.options.hover_x >= 0) ImGui::GetIO().MousePos = ImVec2(args.options.hover_x, args.options.hover_y);
    if (ImVec2 at; app.HoverPoint(&at)) ImGui::GetIO().MousePos = at;
    ImGui::NewFrame();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    app.Frame(ImVec2(static_cast<float>(w), static_cast<float>(h)));
    ImGui::Render();
    double cpu_ms = std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count();
    glViewport(0, 0, w, h);
    glClearColor(0.09f, 0.1f, 0.11f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    Verdict verdict;
    if (!args.bench_spans.empty()) verdict = span_bench.AfterFrame(app, cpu_ms, w, h);
    else if (args.bench_frames) verdict = FrameBenchStep(app, args, cpu_ms, w, h, started, settled, bench_total_ms);
    else if (!args.screenshot.empty()) verdict = ScreenshotStep(app, args, w, h, started, settled);
    if (verdict.stop) return verdict.exit_code;
    glfwSwapBuffers(window);
  }
  return 0;
}

}  // namespace
}  // namespace streamlab

int main(int argc, char** argv) {
  using namespace streamlab;
  GuiArgs args = ParseGuiArgs(argc, argv);
  args.options.headless = !args.screenshot.empty() || !args.bench_spans.empty() || args.bench_frames;
  glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "streamlab: GLFW error %d: %s\n", code, text); });
  if (!glfwInit()) {
    std::fprintf(stderr, "streamlab: no display could be opened (set DISPLAY, or use xvfb-run)\n");
    return 77;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  const bool interactive = !args.options.headless;
  glfwWindowHint(GLFW_RESIZABLE, interactive);
  GLFWwindow* window = glfwCreateWindow(args.width, args.height, "StreamLab", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "streamlab: cannot create an OpenGL 3.3 window\n");
    glfwTerminate();
    return 77;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(interactive ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::StyleColorsDark();
  ProgressStore store;
  static std::string ini_path = store.LayoutFile();
  ImGui::GetIO().IniFilename = interactive ? ini_path.c_str() : nullptr;
  FontSetup fonts = LoadFonts(18.0f);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");
  int exit_code = 0;
  {
    GuiApp app(args.options, fonts);
    exit_code = RunFrames(window, app, args);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}
