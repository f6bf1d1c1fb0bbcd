// The CLI's subcommands, one function each: its flags, bound to its command struct, and
// what runs it. The order here is the order of `streamlab-cli --help`.
#include "app/cli/cli_options.h"

namespace streamlab {
namespace {

Subcommand AddList(CLI::App& app, CliCommands& c) {
  CLI::App* list_cmd = app.add_subcommand("list", "List the labs by week");
  list_cmd->add_flag("--json", c.list.json, "The catalogue as JSON: ids, weeks, variants, parameters and claims");
  return {list_cmd, [&c] { return CmdList(c.list); }};
}

Subcommand AddRun(CLI::App& app, CliCommands& c, const std::string& self) {

  CLI::App* run_cmd = app.add_subcommand("run", "Run a lab or a scenario file and show its timeline");
  run_cmd->add_option("target", c.run.target, "Lab id or scenario .json")->required();
  run_cmd->add_option("--backend", c.run.backend, "sim, cuda, auto, or torch (the lab as a PyTorch program)")->capture_default_str();
  run_cmd->add_option("--variant", c.run.variant, "Lab variant (default: the first)");
  run_cmd->add_option("--param", c.run.params, "Lab parameter name=value (repeatable)");
  run_cmd->add_option("--out", c.run.out, "Write the trace JSON here");
  run_cmd->add_option("--chrome", c.run.chrome, "Write a Chrome-trace JSON here (Perfetto)");
  run_cmd->add_option("--profile", c.run.profile, "Simulator device profile: h100, h200 or a JSON file");
  run_cmd->add_option("--save-scenario", c.run.save_scenario, "Write the scenario JSON here");
  run_cmd->add_option("--save-program", c.run.save_program, "--backend torch: write the PyTorch program here");
  run_cmd->add_option("--timeout", c.run.timeout_s, "GPU watchdog in seconds")->capture_default_str();
  run_cmd->add_option("--repeat", c.run.repeat, "GPU: measured runs, keep the median")->capture_default_str();
  run_cmd->add_option("--width", c.run.width, "Text chart width")->capture_default_str();
  run_cmd->add_flag("--quiet", c.run.quiet, "Print no chart");
  return {run_cmd, [&c, self] {
    c.run.self = self;
    return CmdRun(c.run);
  }};
}

Subcommand AddShow(CLI::App& app, CliCommands& c) {
  CLI::App* show_cmd = app.add_subcommand("show", "Print a saved trace as a text Gantt chart");
  show_cmd->add_option("trace", c.show_path, "Trace JSON")->required();
  show_cmd->add_option("--width", c.show_width, "Chart width")->capture_default_str();
  return {show_cmd, [&c] {
    return CmdShow(c.show_path, c.show_width);
  }};
}

Subcommand AddExplain(CLI::App& app, CliCommands& c) {
  CLI::App* explain_cmd = app.add_subcommand("explain", "Explain why each op started when it did");
  explain_cmd->add_option("target", c.explain.target, "Trace JSON, lab id or scenario .json")->required();
  explain_cmd->add_option("--lang", c.explain.lang, "en or zh (default: from the locale)");
  explain_cmd->add_option("--backend", c.explain.backend, "For a lab or scenario: sim, cuda or auto")->capture_default_str();
  explain_cmd->add_option("--variant", c.explain.variant, "Lab variant");
  explain_cmd->add_option("--param", c.explain.params, "Lab parameter name=value (repeatable)");
  explain_cmd->add_flag("--json", c.explain.json, "Findings as JSON");
  explain_cmd->add_flag("--all", c.explain.all, "List every finding: ops that started promptly, and each member of a long group");
  explain_cmd->add_option("--per", c.explain.per,
                          "Then the trace per step: the range around each step (an NVTX or record_function name, "
                          "or ProfilerStep)");
  return {explain_cmd, [&c] {
    return CmdExplain(c.explain);
  }};
}

Subcommand AddCompare(CLI::App& app, CliCommands& c) {
  CLI::App* compare_cmd =
      app.add_subcommand("compare", "Compare two traces of one program (before and after a change), per step");
  compare_cmd->add_option("before", c.compare.before, "Trace, recording or torch.profiler trace: A")->required();
  compare_cmd->add_option("after", c.compare.after, "The same program after the change: B")->required();
  compare_cmd->add_option("--per", c.compare.per,
                          "The range around each step (an NVTX range or record_function name); default ProfilerStep#N when both have it");
  compare_cmd->add_option("--lang", c.compare.lang, "en or zh (default: from the locale)");
  compare_cmd->add_flag("--json", c.compare.json, "The comparison as JSON");
  compare_cmd->footer("Example: streamlab-cli compare before.json after.json --per step");
  return {compare_cmd, [&c] {
    return CmdCompare(c.compare);
  }};
}

Subcommand AddRecord(CLI::App& app, CliCommands& c) {
  CLI::App* record_cmd = app.add_subcommand("record", "Run any CUDA program (e.g. python3 train.py) and record its streams, events and kernels");
  record_cmd->add_option("--out", c.record.out, "Trace JSON to write")->capture_default_str();
  record_cmd->add_option("--raw-dir", c.record.raw_dir, "Keep the recorder's raw logs in this folder");
  record_cmd->add_option("--capture-range", c.record.capture_range,
                         "cudaProfilerApi: record only from the program's first cudaProfilerStart "
                         "(torch.cuda.profiler.start()) to its cudaProfilerStop; the rest runs unrecorded")
      ->check(CLI::IsMember({"none", "cudaProfilerApi"}))
      ->capture_default_str();
  record_cmd->add_option("--delay", c.record.delay_s,
                         "Seconds: record only from this long after the program initialises CUDA (its steady "
                         "state, without editing it); the rest runs unrecorded")
      ->check(CLI::Range(0.0, 86400.0));
  record_cmd->add_option("--duration", c.record.duration_s, "Seconds: with --delay, record for this long, then stop")
      ->check(CLI::Range(0.001, 86400.0));
  record_cmd->add_option("command", c.record.argv, "The program and its arguments (after --)")->required();
  record_cmd->footer("Example: streamlab-cli record --out r.json -- python3 examples/pytorch/event_chain.py");
  return {record_cmd, [&c] {
    return CmdRecord(c.record);
  }};
}

Subcommand AddImport(CLI::App& app, CliCommands& c) {
  CLI::App* import_cmd = app.add_subcommand("import", "Convert a torch.profiler (Kineto) trace to a StreamLab trace");
  import_cmd->add_option("file", c.import_path, "Kineto Chrome-trace JSON (or a recorder raw log)")->required();
  import_cmd->add_option("--out", c.import_out, "Trace JSON to write")->capture_default_str();
  import_cmd->footer("explain, show and the GUI's --open also read Kineto files directly.");
  return {import_cmd, [&c] {
    return CmdImport(c.import_path, c.import_out);
  }};
}

Subcommand AddProbe(CLI::App& app, CliCommands& c) {
  CLI::App* probe_cmd = app.add_subcommand("probe", "Say whether a GPU is usable (exit 0) or why not (exit 3)");
  probe_cmd->add_option("--out", c.probe_out, "Also write the answer as JSON here");
  return {probe_cmd, [&c] {
    return CmdProbe(c.probe_out);
  }};
}

Subcommand AddSoak(CLI::App& app, CliCommands& c) {
  CLI::App* soak_cmd = app.add_subcommand("soak", "Run labs many times in one process; fail if memory grows");
  soak_cmd->add_option("labs", c.soak.labs, "Lab ids (default: all)");
  soak_cmd->add_option("--runs", c.soak.runs, "Rounds")->capture_default_str();
  soak_cmd->add_option("--backend", c.soak.backend, "sim or cuda")->capture_default_str();
  return {soak_cmd, [&c] {
    return CmdSoak(c.soak);
  }};
}

Subcommand AddVerify(CLI::App& app, CliCommands& c, const std::string& self) {
  CLI::App* verify_cmd = app.add_subcommand("verify", "Run labs and check their expectations");
  verify_cmd->add_option("labs", c.verify.labs, "Lab ids");
  verify_cmd->add_flag("--all", c.verify.all, "Every lab");
  verify_cmd->add_option("--backend", c.verify.backend, "sim, cuda, auto or torch")->capture_default_str();
  verify_cmd->add_option("--out-dir", c.verify.out_dir, "Keep each run's trace in this folder");
  verify_cmd->add_option("--profile", c.verify.profile, "Simulator device profile: h100, h200 or a JSON file");
  verify_cmd->add_option("--timeout", c.verify.timeout_s, "GPU watchdog per run, seconds");
  verify_cmd->add_option("--torch-batch", c.verify.torch_batch,
                         "--backend torch: programs started together, each run alone once all have imported torch (1: one at a time)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  return {verify_cmd, [&c, self] {
    c.verify.self = self;
    return CmdVerify(c.verify);
  }};
}

Subcommand AddExercise(CLI::App& app, CliCommands& c, const std::string& self) {
  CLI::App* exercise_cmd = app.add_subcommand("exercise", "Check a lab's exercise: its program edited by a sandbox script, or with parameters set");
  exercise_cmd->add_option("lab", c.exercise.lab, "Lab id");
  exercise_cmd->add_option("--script", c.exercise.script, "Sandbox edits, one per line (or param NAME VALUE lines)");
  exercise_cmd->add_option("--param", c.exercise.params, "Lab parameter name=value (repeatable)");
  exercise_cmd->add_flag("--all", c.exercise.all, "Every lab, each with its script from --solutions");
  exercise_cmd->add_option("--solutions", c.exercise.solutions, "Folder of <lab>.txt scripts (e.g. tests/exercises)");
  exercise_cmd->add_option("--backend", c.exercise.backend, "sim, cuda or auto")->capture_default_str();
  exercise_cmd->add_option("--lang", c.exercise.lang, "en or zh (default: from the locale)");
  exercise_cmd->add_option("--timeout", c.exercise.timeout_s, "GPU watchdog per run, seconds");
  exercise_cmd->footer("Example: streamlab-cli exercise w2-priority --param block_us=500");
  return {exercise_cmd, [&c, self] {
    c.exercise.self = self;
    return CmdExercise(c.exercise);
  }};
}

Subcommand AddCalibrate(CLI::App& app, CliCommands& c, const std::string& self) {
  CLI::App* calibrate_cmd = app.add_subcommand("calibrate", "Measure the simulator's device profile on this GPU");
  calibrate_cmd->add_option("--out", c.calibrate.out, "Write the profile JSON here");
  calibrate_cmd->add_option("--backend", c.calibrate.backend, "cuda, or sim to calibrate the simulator itself")->capture_default_str();
  calibrate_cmd->add_option("--profile", c.calibrate.profile, "Base profile (h100, h200 or a file)");
  calibrate_cmd->add_option("--traces", c.calibrate.traces, "Keep each calibration run's trace in this folder (RUN.json)");
  calibrate_cmd->footer("Example: streamlab-cli calibrate --out my-gpu.json, then streamlab-cli run LAB --profile my-gpu.json");
  return {calibrate_cmd, [&c, self] {
    c.calibrate.self = self;
    return CmdCalibrate(c.calibrate);
  }};
}

Subcommand AddReplay(CLI::App& app, CliCommands& c) {
  CLI::App* cmd = app.add_subcommand("replay", "Replay a recorded program on the simulator, step by step against the run");
  cmd->add_option("trace", c.replay.trace, "A recording or torch.profiler trace (or a trace saved from one)")->required();
  cmd->add_option("--profile", c.replay.profile, "The GPU's profile: h100, h200 or a JSON file (default: the recorded GPU's)");
  cmd->add_option("--out", c.replay.out, "Write the replayed run as a trace here");
  cmd->add_option("--lang", c.replay.lang, "en or zh (default: from the locale)");
  cmd->add_flag("--json", c.replay.json, "The comparison as JSON");
  cmd->footer("Example: streamlab-cli replay recording.json");
  return {cmd, [&c] { return CmdReplay(c.replay); }};
}

Subcommand AddWhatIf(CLI::App& app, CliCommands& c) {
  CLI::App* cmd = app.add_subcommand("whatif", "Predict a recorded program's step with fixes made, on the simulator");
  cmd->add_option("trace", c.whatif.trace, "A recording or torch.profiler trace (or a trace saved from one)")->required();
  cmd->add_option("--fix", c.whatif.fixes,
                  "A fix's number as explain lists it (N:host-work=US leaves US of that host work), or an edit: "
                  "connections=N, races (every flagged race ordered by an event), warm-up (the loop's first, slower steps "
                  "run once before it), kernels=F (every kernel and memset at F of its measured time: 0.5, twice as fast) (repeatable)")
      ->required();
  cmd->add_option("--profile", c.whatif.profile, "The GPU's profile: h100, h200 or a JSON file (default: the recorded GPU's)");
  cmd->add_option("--out", c.whatif.out, "Write the predicted run as a trace here");
  cmd->add_option("--lang", c.whatif.lang, "en or zh (default: from the locale)");
  cmd->add_flag("--json", c.whatif.json, "The prediction as JSON");
  cmd->footer("Example: streamlab-cli whatif recording.json --fix 1 --out predicted.json");
  return {cmd, [&c] { return CmdWhatIf(c.whatif); }};
}

}  // namespace

std::vector<Subcommand> AddSubcommands(CLI::App& app, CliCommands& c, const std::string& self) {
  std::vector<Subcommand> subcommands;
  subcommands.push_back(AddList(app, c));
  subcommands.push_back(AddRun(app, c, self));
  subcommands.push_back(AddShow(app, c));
  subcommands.push_back(AddExplain(app, c));
  subcommands.push_back(AddCompare(app, c));
  subcommands.push_back(AddReplay(app, c));
  subcommands.push_back(AddWhatIf(app, c));
  subcommands.push_back(AddRecord(app, c));
  subcommands.push_back(AddImport(app, c));
  subcommands.push_back(AddProbe(app, c));
  subcommands.push_back(AddSoak(app, c));
  subcommands.push_back(AddVerify(app, c, self));
  subcommands.push_back(AddExercise(app, c, self));
  subcommands.push_back(AddCalibrate(app, c, self));
  return subcommands;
}

}  // namespace streamlab
