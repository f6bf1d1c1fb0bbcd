// The CLI's subcommands. Each returns the process exit code; errors are thrown
// (InputError -> 2, BackendError -> 3, RunError -> 4) and mapped in main.cpp.
#pragma once

#include <string>
#include <vector>

namespace streamlab {

enum ExitCode { kExitOk = 0, kExitFailed = 1, kExitBadInput = 2, kExitNoBackend = 3, kExitRunError = 4 };

struct ListCommand {
  bool json = false;  // the catalogue as JSON (scripts/gen_docs.py reads it)
};

struct RunCommand {
  std::string target;  // lab id or scenario file
  std::string backend = "sim";
  std::string variant;
  std::vector<std::string> params;
  std::string out;      // trace JSON
  std::string chrome;   // Chrome-trace JSON
  std::string profile;  // simulator profile JSON
  std::string save_scenario;
  std::string save_program;  // --backend torch: the PyTorch program it runs
  double timeout_s = 10;
  int repeat = 1;
  int width = 80;
  bool quiet = false;
  std::string self;     // path of this executable (--backend torch records in a child)
};

struct VerifyCommand {
  std::vector<std::string> labs;
  bool all = false;
  std::string backend = "sim";
  std::string out_dir;  // keep each run's trace here
  std::string profile;
  double timeout_s = 10;
  int torch_batch = 6;  // --backend torch: programs that start and import torch together
  std::string self;     // path of this executable, to run GPU labs in child processes
};

struct ExplainCommand {
  std::string target;  // trace JSON, lab id or scenario file
  std::string lang;    // en / zh; default from the locale
  std::string backend = "sim";
  std::string variant;
  std::vector<std::string> params;
  bool json = false;
  bool all = false;  // also list ops that started promptly
  std::string per;   // also describe the trace per step: the range around each step (NAME or NAME#N)
};

struct CompareCommand {
  std::string before, after;  // two traces of one program
  std::string per;            // the range that marks a step (default: ProfilerStep when both have it)
  std::string lang;
  bool json = false;
};

// `replay TRACE` and `whatif TRACE --fix ID...`: a recorded program on the simulator.
struct ReplayCommand {
  std::string trace;
  std::string profile;             // the GPU's profile (default: the recorded GPU's shipped one)
  std::vector<std::string> fixes;  // whatif: the fixes' numbers as explain lists them, or an edit by name
  std::string out;                 // write the replayed (or predicted) run as a trace
  std::string lang;
  bool json = false;
};

struct RecordCommand {
  std::vector<std::string> argv;  // the program and its arguments
  std::string out = "recording.json";
  std::string raw_dir;            // keep the recorder's raw logs here (default: a temp folder)
  std::string capture_range = "none";  // "cudaProfilerApi": only from cudaProfilerStart to Stop
  double delay_s = -1;     // >= 0: record only from this long after the program initialises CUDA
  double duration_s = 0;   // > 0: and for this long (with delay_s)
};

struct ExerciseCommand {
  std::string lab;
  std::string script;                // sandbox edits or "param NAME VALUE" lines
  std::vector<std::string> params;   // name=value, set before the script
  bool all = false;                  // every lab, each with solutions/<lab>.txt
  std::string solutions;
  std::string backend = "sim";
  std::string lang;                  // en / zh; default from the locale
  double timeout_s = 10;
  std::string self;                  // path of this executable, for GPU runs in child processes
};

struct CalibrateCommand {
  std::string backend = "cuda";
  std::string out;      // profile JSON to write
  std::string profile;  // the base profile (and, on the simulator, the one it runs with)
  std::string self;     // path of this executable, for GPU runs in child processes
  std::string traces;   // a folder to keep each calibration run's trace in (RUN.json)
};

struct SoakCommand {
  std::vector<std::string> labs;
  int runs = 1000;
  std::string backend = "sim";
};

int CmdList(const ListCommand& cmd);
int CmdSoak(const SoakCommand& cmd);
int CmdProbe(const std::string& out_path);
int CmdExplain(const ExplainCommand& cmd);
int CmdRecord(const RecordCommand& cmd);
int CmdCompare(const CompareCommand& cmd);
int CmdReplay(const ReplayCommand& cmd);
int CmdWhatIf(const ReplayCommand& cmd);
int CmdImport(const std::string& path, const std::string& out_path);

int CmdRun(const RunCommand& cmd);
int CmdShow(const std::string& path, int width);
int CmdVerify(const VerifyCommand& cmd);
int CmdExercise(const ExerciseCommand& cmd);
int CmdCalibrate(const CalibrateCommand& cmd);

}  // namespace streamlab
