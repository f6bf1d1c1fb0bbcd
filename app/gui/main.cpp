// streamlab: the desktop app. Also a headless renderer for tests and docs:
//   streamlab --lab ID [--variant V] [--backend sim] [--lang zh|en] --screenshot out.png [--size WxH]
//   streamlab --open trace.json          (a trace captured elsewhere, e.g. on a GPU server)
//   streamlab --bench-spans N[,M...] [--size WxH] [--bench-max-ratio R]
//            (CPU frame time with an N-span trace, then M...; with R, exit 1 when the last
//            one's frame time exceeds R times the first's: a ratio measured in one run)
//   streamlab --open trace.json --bench-frames  (CPU frame time once the trace is shown)
//   classroom: --compare VARIANT|cuda|torch  --present  --replay-at F  --predict [--predict-order a,b,c]
//              [--predict-answer NUMBER|CHOICE]  --exercise LAB [--sandbox-script FILE] (edit, then Check)
//              --sandbox-script FILE  --chart-only (the chart alone, for slides)
// Exit 77 when no display can be opened (tests mark that as skipped).
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/gui/bench_trace.h"
#include "app/gui/gui_app.h"
#include "app/gui/screenshot.h"
#include "engine/util/errors.h"
#include "labs/catalogue.h"

namespace {

struct Args {
  streamlab::GuiOptions options;
  std::string screenshot;
  int width = 1400, height = 860;
  std::vector<long> bench_spans;  // span counts to measure, in order
  double bench_max_ratio = 0;
  bool bench_frames = false;  // with --open: time frames once the trace is analysed and shown
};

[[noreturn]] void Usage(const std::string& problem) {
  std::fprintf(stderr, "streamlab: %s\nusage: streamlab [--lab ID] [--variant V] [--param k=v] [--backend auto|sim|cuda|torch] [--profile h100|h200|FILE]\n"
                       "                 [--lang en|zh] [--open trace.json] [--record COMMAND] [--screenshot out.png] [--size WxH]\n"
                       "                 [--show-sms] [--bench-spans N[,M...]] [--bench-max-ratio R] [--compare VARIANT|cuda|torch] [--present]\n"
                       "                 [--replay-at 0..1] [--predict] [--predict-order a,b,c] [--predict-answer X] [--sandbox-script FILE]\n"
                       "                 [--exercise LAB [--sandbox-script FILE]]\n"
                       "                 [--chart-only] [--bench-frames] [--hover X,Y (with --screenshot)] [--view FROM,TO (ms)]\n"
                       "                 [--open BEFORE --compare-file AFTER [--per STEP_RANGE]] [--browse DIR [--browse-pick FILE]]\n"
                       "                 [--record COMMAND [--record-delay S [--record-duration S]]]\n",
               problem.c_str());
  std::exit(2);
}

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(k + " needs a value");
      return argv[++i];
    };
    if (k == "--lab") a.options.lab = value();
    else if (k == "--variant") a.options.variant = value();
    else if (k == "--backend") a.options.backend = value();
    else if (k == "--lang") a.options.lang = value();
    else if (k == "--open") a.options.open_trace = value();
    else if (k == "--record") a.options.record_command = value();
    else if (k == "--record-delay") a.options.record_delay = std::atof(value().c_str());
    else if (k == "--record-duration") a.options.record_duration = std::atof(value().c_str());
    else if (k == "--compare-file") a.options.compare_file = value();
    else if (k == "--per") a.options.compare_per = value();
    else if (k == "--browse") a.options.browse = value();
    else if (k == "--browse-pick") a.options.browse_pick = value();
    else if (k == "--screenshot") a.screenshot = value();
    else if (k == "--show-sms") a.options.show_sms = true;
    else if (k == "--compare") a.options.compare = value();
    else if (k == "--present") a.options.present = true;
    else if (k == "--predict") a.options.predict = true;
    else if (k == "--exercise") a.options.exercise = value();
    else if (k == "--profile") a.options.profile = value();
    else if (k == "--predict-answer") {
      a.options.predict = true;
      a.options.predict_answer = value();
    }
    else if (k == "--predict-order") {
      a.options.predict = true;
      std::string list = value();
      for (size_t at = 0; at <= list.size();) {
        size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        a.options.predict_order.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    }
    else if (k == "--chart-only") a.options.chart_only = true;
    else if (k == "--hover") {
      std::string xy = value();
      if (std::sscanf(xy.c_str(), "%f,%f", &a.options.hover_x, &a.options.hover_y) != 2 || a.options.hover_x < 0 ||
          a.options.hover_y < 0)
        Usage("--hover expects X,Y in pixels, e.g. 700,400");
    }
    else if (k == "--view") {
      std::string range = value();
      if (std::sscanf(range.c_str(), "%lf,%lf", &a.options.view_from_ms, &a.options.view_to_ms) != 2 ||
          a.options.view_from_ms < 0 || a.options.view_to_ms <= a.options.view_from_ms)
        Usage("--view expects FROM,TO in milliseconds from the trace's start, FROM < TO, e.g. 20,30");
    }
    else if (k == "--sandbox-script") a.options.sandbox_script = value();
    else if (k == "--replay-at") {
      a.options.replay_at = std::atof(value().c_str());
      if (a.options.replay_at < 0 || a.options.replay_at > 1) Usage("--replay-at expects a fraction 0..1");
    }
    else if (k == "--bench-spans") {
      std::string list = value();
      for (size_t at = 0; at < list.size();) {
        size_t comma = list.find(',', at);
        long n = std::atol(list.substr(at, comma - at).c_str());
        if (n <= 0 || n > 5'000'000) Usage("--bench-spans takes counts from 1 to 5000000, comma-separated");
        a.bench_spans.push_back(n);
        at = comma == std::string::npos ? list.size() : comma + 1;
      }
    } else if (k == "--bench-max-ratio") a.bench_max_ratio = std::atof(value().c_str());
    else if (k == "--bench-frames") a.bench_frames = true;
    else if (k == "--param") {
      std::string kv = value();
      size_t eq = kv.find('=');
      if (eq == std::string::npos) Usage("--param expects name=value");
      a.options.params[kv.substr(0, eq)] = std::atof(kv.substr(eq + 1).c_str());
    } else if (k == "--size") {
      if (std::sscanf(value().c_str(), "%dx%d", &a.width, &a.height) != 2 || a.width < 320 || a.height < 240 ||
          a.width > 8192 || a.height > 8192)
        Usage("--size expects WxH, e.g. 1280x800");
    } else if (k == "--help" || k == "-h") {
      Usage("help");
    } else {
      Usage("unknown option " + k);
    }
  }
  if (a.options.backend != "auto" && a.options.backend != "sim" && a.options.backend != "cuda" &&
      a.options.backend != "torch")
    Usage("--backend must be auto, sim, cuda or torch");
  if (!a.options.lang.empty() && a.options.lang != "en" && a.options.lang != "zh") Usage("--lang must be en or zh");
  if (!a.options.compare.empty() && a.options.lab.empty()) Usage("--compare needs --lab");
  if (!a.options.lab.empty()) {
    try {
      const streamlab::Lab& lab = streamlab::FindLab(a.options.lab);
      const std::string& c = a.options.compare;
      if (!c.empty() && c != "cuda" && c != "sim" && c != "torch" &&
          std::find(lab.variants.begin(), lab.variants.end(), c) == lab.variants.end())
        Usage("--compare: " + a.options.lab + " has no variant \"" + c + "\"");
    } catch (const streamlab::InputError& e) {
      Usage(e.what());
    }
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace streamlab;
  Args args = Parse(argc, argv);
  if (args.bench_frames && args.options.open_trace.empty()) Usage("--bench-frames needs --open FILE");
  if (!args.options.compare_file.empty() && args.options.open_trace.empty()) Usage("--compare-file needs --open FILE (the trace before the change)");
  if (!args.options.browse_pick.empty() && args.options.browse.empty()) Usage("--browse-pick needs --browse DIR");
  if (args.options.record_delay >= 0 && args.options.record_command.empty()) Usage("--record-delay needs --record COMMAND");
  if (args.options.record_duration != 0 && args.options.record_delay < 0) Usage("--record-duration needs --record-delay");
  if (args.options.record_duration < 0) Usage("--record-duration must be 0 (to the end) or more");
  args.options.headless = !args.screenshot.empty() || !args.bench_spans.empty() || args.bench_frames;
  glfwSetErrorCallback([](int code, const char* text) { std::fprintf(stderr, "streamlab: GLFW error %d: %s\n", code, text); });
  if (!glfwInit()) {
    std::fprintf(stderr, "streamlab: no display could be opened (set DISPLAY, or use xvfb-run)\n");
    return 77;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  const bool interactive = args.screenshot.empty() && args.bench_spans.empty() && !args.bench_frames;
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
    size_t bench_run = 0;
    std::vector<double> bench_ms;
    if (!args.bench_spans.empty()) app.ShowTraceUnanalysed(MakeBenchTrace(args.bench_spans[0]));
    auto started = std::chrono::steady_clock::now();
    int settled_frames = 0, bench_frames = 0;
    double bench_cpu_ms = 0;
    while (!glfwWindowShouldClose(window)) {
      glfwPollEvents();
      auto frame_start = std::chrono::steady_clock::now();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      if (args.options.hover_x >= 0) ImGui::GetIO().MousePos = ImVec2(args.options.hover_x, args.options.hover_y);
      ImGui::NewFrame();
      int w = 0, h = 0;
      glfwGetFramebufferSize(window, &w, &h);
      app.Frame(ImVec2(static_cast<float>(w), static_cast<float>(h)));
      ImGui::Render();
      double cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count();
      glViewport(0, 0, w, h);
      glClearColor(0.09f, 0.1f, 0.11f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

      if (!args.bench_spans.empty()) {
        if (++bench_frames > 10) bench_cpu_ms += cpu_ms;  // skip warm-up frames
        if (bench_frames == 70) {
          std::printf("bench: %ld spans at %dx%d: CPU frame time %.2f ms (mean of 60 frames)\n", args.bench_spans[bench_run],
                      w, h, bench_cpu_ms / 60);
          bench_ms.push_back(bench_cpu_ms / 60);
          if (++bench_run == args.bench_spans.size()) {
            double ratio = bench_ms.back() / bench_ms.front();
            if (bench_ms.size() > 1) std::printf("bench: frame time ratio last/first %.2f\n", ratio);
            if (args.bench_max_ratio > 0 && ratio > args.bench_max_ratio) {
              std::printf("bench: FAIL: ratio %.2f is above %.2f\n", ratio, args.bench_max_ratio);
              exit_code = 1;
            }
            break;
          }
          app.ShowTraceUnanalysed(MakeBenchTrace(args.bench_spans[bench_run]));
          bench_frames = 0;
          bench_cpu_ms = 0;
        }
      } else if (args.bench_frames) {
        // Frames are timed once the trace has been loaded, analysed and drawn a few times.
        if (app.HasError()) {
          std::fprintf(stderr, "streamlab: %s\n", app.error().c_str());
          exit_code = 1;
          break;
        }
        settled_frames = app.Settled() && app.trace() ? settled_frames + 1 : 0;
        if (settled_frames > 10) bench_cpu_ms += cpu_ms;
        if (settled_frames == 70) {
          std::printf("bench: %s (%zu ops) at %dx%d: CPU frame time %.2f ms (mean of 60 frames)\n",
                      args.options.open_trace.c_str(), app.trace()->ops.size(), w, h, bench_cpu_ms / 60);
          break;
        }
        if (std::chrono::steady_clock::now() - started > std::chrono::seconds(120)) {
          std::fprintf(stderr, "streamlab: the trace was not shown within 120 s\n");
          exit_code = 1;
          break;
        }
      } else if (!args.screenshot.empty()) {
        settled_frames = app.Settled() ? settled_frames + 1 : 0;
        if (settled_frames >= 3) {  // a few frames for layout to settle
          if (app.HasError()) {
            std::fprintf(stderr, "streamlab: %s\n", app.error().c_str());
            exit_code = 1;
          }
          std::string picker = app.PickerReport();
          if (!picker.empty()) std::printf("picker: %s\n", picker.c_str());
          std::string doors = app.FirstScreenReport();
          if (!doors.empty()) std::printf("first screen: %s\n", doors.c_str());
          if (!WriteScreenshot(args.screenshot, w, h)) {
            std::fprintf(stderr, "streamlab: cannot write %s\n", args.screenshot.c_str());
            exit_code = 1;
          } else if (app.trace()) {
            WriteLayout(args.screenshot + ".layout.json", *app.trace(), app.layout(), w, h);
            std::printf("run to chart: %.1f ms\n", app.run_seconds() * 1e3);
            if (!app.tooltip().empty()) std::printf("tooltip: %s\n", app.tooltip().c_str());
            std::string report = app.PredictionReport();
            if (!report.empty()) std::printf("prediction: %s\n", report.c_str());
            report = app.ExerciseReport();
            if (!report.empty()) std::printf("%s\n", report.c_str());
            report = app.ProgramCompareReport();
            if (!report.empty()) std::printf("compare:\n%s\n", report.c_str());
          }
          break;
        }
        if (std::chrono::steady_clock::now() - started > std::chrono::seconds(60)) {
          std::fprintf(stderr, "streamlab: the run did not finish within 60 s\n");
          exit_code = 1;
          break;
        }
      }
      glfwSwapBuffers(window);
    }
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
}
