// streamlab-cli: the headless front end. Parses the command line and maps errors to exit
// codes: 0 ok, 1 a verify check (or an exercise goal) failed, 2 bad input, 3 no usable backend, 4 run failed.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <iostream>

#include "app/cli/commands.h"
#include "engine/util/errors.h"

namespace {

constexpr const char* kFooter = R"(
Exit codes: 0 ok, 1 a verify check failed, 2 bad input, 3 no usable GPU, 4 the run failed.

Profile a lab in Nsight Systems (each op is an NVTX range named after it):
  nsys profile --trace=cuda,nvtx -o w2-legacy streamlab-cli run w2-legacy-default-stall --backend cuda --variant legacy)";

std::string SelfPath(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace streamlab;
  CLI::App app{"StreamLab: CUDA streams and events, run and explained"};
  app.footer(kFooter);
  app.require_subcommand(1);

  app.add_subcommand("list", "List the labs by week");

  RunCommand run;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a lab or a scenario file and show its timeline");
  run_cmd->add_option("target", run.target, "Lab id or scenario .json")->required();
  run_cmd->add_option("--backend", run.backend, "sim, cuda, auto, or torch (the lab as a PyTorch program)")->capture_default_str();
  run_cmd->add_option("--variant", run.variant, "Lab variant (default: the first)");
  run_cmd->add_option("--param", run.params, "Lab parameter name=value (repeatable)");
  run_cmd->add_option("--out", run.out, "Write the trace JSON here");
  run_cmd->add_option("--chrome", run.chrome, "Write a Chrome-trace JSON here (Perfetto)");
  run_cmd->add_option("--profile", run.profile, "Simulator device profile: h100, h200 or a JSON file");
  run_cmd->add_option("--save-scenario", run.save_scenario, "Write the scenario JSON here");
  run_cmd->add_option("--save-program", run.save_program, "--backend torch: write the PyTorch program here");
  run_cmd->add_option("--timeout", run.timeout_s, "GPU watchdog in seconds")->capture_default_str();
  run_cmd->add_option("--repeat", run.repeat, "GPU: measured runs, keep the median")->capture_default_str();
  run_cmd->add_option("--width", run.width, "Text chart width")->capture_default_str();
  run_cmd->add_flag("--quiet", run.quiet, "Print no chart");

  std::string show_path;
  int show_width = 80;
  CLI::App* show_cmd = app.add_subcommand("show", "Print a saved trace as a text Gantt chart");
  show_cmd->add_option("trace", show_path, "Trace JSON")->required();
  show_cmd->add_option("--width", show_width, "Chart width")->capture_default_str();

  ExplainCommand explain;
  CLI::App* explain_cmd = app.add_subcommand("explain", "Explain why each op started when it did");
  explain_cmd->add_option("target", explain.target, "Trace JSON, lab id or scenario .json")->required();
  explain_cmd->add_option("--lang", explain.lang, "en or zh (default: from the locale)");
  explain_cmd->add_option("--backend", explain.backend, "For a lab or scenario: sim, cuda or auto")->capture_default_str();
  explain_cmd->add_option("--variant", explain.variant, "Lab variant");
  explain_cmd->add_option("--param", explain.params, "Lab parameter name=value (repeatable)");
  explain_cmd->add_flag("--json", explain.json, "Findings as JSON");
  explain_cmd->add_flag("--all", explain.all, "List every finding: ops that started promptly, and each member of a long group");
  explain_cmd->add_option("--per", explain.per,
                          "Then the trace per step: the range around each step (an NVTX or record_function name, "
                          "or ProfilerStep)");

  CompareCommand compare;
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "Compare two traces of one program (before and after a change), per step");
  compare_cmd->add_option("before", compare.before, "Trace, recording or torch.profiler trace: A")->required();
  compare_cmd->add_option("after", compare.after, "The same program after the change: B")->required();
  compare_cmd->add_option("--per", compare.per,
                          "The range around each step (an NVTX range or record_function name); default ProfilerStep#N when both have it");
  compare_cmd->add_option("--lang", compare.lang, "en or zh (default: from the locale)");
  compare_cmd->add_flag("--json", compare.json, "The comparison as JSON");
  compare_cmd->footer("Example: streamlab-cli compare before.json after.json --per step");

  std::string probe_out;
  RecordCommand record;
  CLI::App* record_cmd = app.add_subcommand("record", "Run any CUDA program (e.g. python3 train.py) and record its streams, events and kernels");
  record_cmd->add_option("--out", record.out, "Trace JSON to write")->capture_default_str();
  record_cmd->add_option("--raw-dir", record.raw_dir, "Keep the recorder's raw logs in this folder");
  record_cmd->add_option("--capture-range", record.capture_range,
                         "cudaProfilerApi: record only from the program's first cudaProfilerStart "
                         "(torch.cuda.profiler.start()) to its cudaProfilerStop; the rest runs unrecorded")
      ->check(CLI::IsMember({"none", "cudaProfilerApi"}))
      ->capture_default_str();
  record_cmd->add_option("--delay", record.delay_s,
                         "Seconds: record only from this long after the program initialises CUDA (its steady "
                         "state, without editing it); the rest runs unrecorded")
      ->check(CLI::Range(0.0, 86400.0));
  record_cmd->add_option("--duration", record.duration_s, "Seconds: with --delay, record for this long, then stop")
      ->check(CLI::Range(0.001, 86400.0));
  record_cmd->add_option("command", record.argv, "The program and its arguments (after --)")->required();
  record_cmd->footer("Example: streamlab-cli record --out r.json -- python3 examples/pytorch/event_chain.py");

  std::string import_path, import_out = "trace.json";
  CLI::App* import_cmd = app.add_subcommand("import", "Convert a torch.profiler (Kineto) trace to a StreamLab trace");
  import_cmd->add_option("file", import_path, "Kineto Chrome-trace JSON (or a recorder raw log)")->required();
  import_cmd->add_option("--out", import_out, "Trace JSON to write")->capture_default_str();
  import_cmd->footer("explain, show and the GUI's --open also read Kineto files directly.");

  CLI::App* probe_cmd = app.add_subcommand("probe", "Say whether a GPU is usable (exit 0) or why not (exit 3)");
  probe_cmd->add_option("--out", probe_out, "Also write the answer as JSON here");

  SoakCommand soak;
  CLI::App* soak_cmd = app.add_subcommand("soak", "Run labs many times in one process; fail if memory grows");
  soak_cmd->add_option("labs", soak.labs, "Lab ids (default: all)");
  soak_cmd->add_option("--runs", soak.runs, "Rounds")->capture_default_str();
  soak_cmd->add_option("--backend", soak.backend, "sim or cuda")->capture_default_str();

  VerifyCommand verify;
  CLI::App* verify_cmd = app.add_subcommand("verify", "Run labs and check their expectations");
  verify_cmd->add_option("labs", verify.labs, "Lab ids");
  verify_cmd->add_flag("--all", verify.all, "Every lab");
  verify_cmd->add_option("--backend", verify.backend, "sim, cuda, auto or torch")->capture_default_str();
  verify_cmd->add_option("--out-dir", verify.out_dir, "Keep each run's trace in this folder");
  verify_cmd->add_option("--profile", verify.profile, "Simulator device profile: h100, h200 or a JSON file");
  verify_cmd->add_option("--timeout", verify.timeout_s, "GPU watchdog per run, seconds");

  ExerciseCommand exercise;
  CLI::App* exercise_cmd = app.add_subcommand("exercise", "Check a lab's exercise: its program edited by a sandbox script, or with parameters set");
  exercise_cmd->add_option("lab", exercise.lab, "Lab id");
  exercise_cmd->add_option("--script", exercise.script, "Sandbox edits, one per line (or param NAME VALUE lines)");
  exercise_cmd->add_option("--param", exercise.params, "Lab parameter name=value (repeatable)");
  exercise_cmd->add_flag("--all", exercise.all, "Every lab, each with its script from --solutions");
  exercise_cmd->add_option("--solutions", exercise.solutions, "Folder of <lab>.txt scripts (e.g. tests/exercises)");
  exercise_cmd->add_option("--backend", exercise.backend, "sim, cuda or auto")->capture_default_str();
  exercise_cmd->add_option("--lang", exercise.lang, "en or zh (default: from the locale)");
  exercise_cmd->add_option("--timeout", exercise.timeout_s, "GPU watchdog per run, seconds");
  exercise_cmd->footer("Example: streamlab-cli exercise w2-priority --param block_us=500");

  CalibrateCommand calibrate;
  CLI::App* calibrate_cmd = app.add_subcommand("calibrate", "Measure the simulator's device profile on this GPU");
  calibrate_cmd->add_option("--out", calibrate.out, "Write the profile JSON here");
  calibrate_cmd->add_option("--backend", calibrate.backend, "cuda, or sim to calibrate the simulator itself")->capture_default_str();
  calibrate_cmd->add_option("--profile", calibrate.profile, "Base profile (h100, h200 or a file)");
  calibrate_cmd->footer("Example: streamlab-cli calibrate --out my-gpu.json, then streamlab-cli run LAB --profile my-gpu.json");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "streamlab-cli: " << e.what() << " (see --help)\n";
    return kExitBadInput;
  }

  try {
    if (app.got_subcommand("list")) return CmdList();
    if (probe_cmd->parsed()) return CmdProbe(probe_out);
    if (soak_cmd->parsed()) return CmdSoak(soak);
    if (run_cmd->parsed()) {
      run.self = SelfPath(argv[0]);
      return CmdRun(run);
    }
    if (show_cmd->parsed()) return CmdShow(show_path, show_width);
    if (explain_cmd->parsed()) return CmdExplain(explain);
    if (record_cmd->parsed()) return CmdRecord(record);
    if (compare_cmd->parsed()) return CmdCompare(compare);
    if (import_cmd->parsed()) return CmdImport(import_path, import_out);
    if (verify_cmd->parsed()) {
      verify.self = SelfPath(argv[0]);
      return CmdVerify(verify);
    }
    if (calibrate_cmd->parsed()) {
      calibrate.self = SelfPath(argv[0]);
      return CmdCalibrate(calibrate);
    }
    if (exercise_cmd->parsed()) {
      exercise.self = SelfPath(argv[0]);
      return CmdExercise(exercise);
    }
  } catch (const InputError& e) {
    std::cerr << "streamlab-cli: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const BackendError& e) {
    std::cerr << "streamlab-cli: " << e.what() << "\n";
    return kExitNoBackend;
  } catch (const std::exception& e) {
    std::cerr << "streamlab-cli: run failed: " << e.what() << "\n";
    return kExitRunError;
  }
  return kExitBadInput;
}
