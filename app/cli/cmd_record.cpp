// `streamlab-cli record [--out t.json] -- CMD ARGS...`: runs any CUDA program with the
// recording library injected (CUDA_INJECTION64_PATH), waits for it, and converts what it
// logged into a trace that `explain`, `show` and the GUI read. The program's own output and
// behaviour are untouched; record exits with its exit status, a recording is written even when
// it crashed, and logs that cannot be converted are kept (OUT.raw) with how to convert them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/cli/commands.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"

namespace streamlab {
namespace {

// "580.159.04" from the NVIDIA kernel module's version line ("NVRM version: NVIDIA UNIX
// Open Kernel Module for x86_64  580.159.04  Release Build ..."), or "" if there is none.
std::string DriverVersion() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  std::getline(in, line);
  size_t kernel = line.find("Kernel Module");
  if (kernel == std::string::npos) return "";
  std::istringstream words(line.substr(kernel));
  for (std::string word; words >> word;)
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos) return word;
  return "";
}

}  // namespace

namespace fs = std::filesystem;
namespace {

std::string RecorderLibrary() {
  if (const char* env = std::getenv("STREAMLAB_RECORDER"); env && *env) return env;
#ifdef STREAMLAB_RECORDER_PATH
  return STREAMLAB_RECORDER_PATH;
#else
  return "";
#endif
}

std::string Now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + strsignal(WTERMSIG(status));
  return "ended";
}

// The trace's note on what was recorded and how it ended.
TraceNote ProgramNote(const std::string& command, int status) {
  if (WIFEXITED(status)) return Note("program.exited", {{"command", command}, {"status", std::to_string(WEXITSTATUS(status))}});
  if (WIFSIGNALED(status)) return Note("program.killed", {{"command", command}, {"signal", strsignal(WTERMSIG(status))}});
  return Note("program.ended", {{"command", command}});
}

// Runs the program with the recorder injected; returns its wait status.
int RunRecorded(const RecordCommand& cmd, const std::string& library, const std::string& dir) {
  const std::vector<std::string>& argv = cmd.argv;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) throw RunError(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    setenv("CUDA_INJECTION64_PATH", library.c_str(), 1);
    setenv("STREAMLAB_RECORD_DIR", dir.c_str(), 1);
    if (cmd.capture_range != "none") setenv("STREAMLAB_RECORD_RANGE", cmd.capture_range.c_str(), 1);
    if (cmd.delay_s >= 0) {  // the timed window (kernels/recorder/timed_range.h), in ms
      setenv("STREAMLAB_RECORD_DELAY_MS", std::to_string(static_cast<long long>(cmd.delay_s * 1000)).c_str(), 1);
      setenv("STREAMLAB_RECORD_DURATION_MS", std::to_string(static_cast<long long>(cmd.duration_s * 1000)).c_str(), 1);
    }
    setenv("NCCL_NVLS_ENABLE", "0", 0);  // never NVLink multicast, also in what it starts
    execvp(args[0], args.data());
    std::fprintf(stderr, "streamlab-cli record: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  // The program owns the terminal: Ctrl-C reaches it, and we wait for it to finish.
  struct sigaction ignore {}, old_int {}, old_quit {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return status;
}

// record's exit status once the program ran: the program's own, or 128 + the signal that
// killed it (as a shell reports it).
int ProgramExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitRunError;
}

// Why a run left no trace, in the user's terms.
std::string WhyNoTrace(const RecordCommand& cmd, size_t logs, const std::string& problem) {
  if (logs == 0) return "the program never initialised CUDA, so there is nothing to record";
  bool no_work = problem.find("no GPU work") != std::string::npos;
  if (no_work && cmd.delay_s >= 0)
    return "with --delay only work after that time is recorded, and there was none (the program's CUDA work "
           "ended sooner, counted from when it initialised CUDA)";
  if (no_work && cmd.capture_range == "cudaProfilerApi")
    return "with --capture-range cudaProfilerApi only work between cudaProfilerStart and cudaProfilerStop is "
           "recorded, and there was none (does the program call torch.cuda.profiler.start() and stop()?)";
  return problem.empty() ? "its logs could not be read" : problem;
}

// Keeps the recorder's logs of a run that left no trace: a temporary folder is moved next to
// `out` (OUT.raw). Returns what to tell the user: where they are and how to convert them later.
std::string KeepLogs(const std::string& dir, bool temporary, const std::string& out) {
  std::string kept = dir;
  if (temporary) {
    std::error_code error;
    std::string target = out + ".raw";
    for (int n = 2; fs::exists(target, error); ++n) target = out + ".raw." + std::to_string(n);
    fs::rename(dir, target, error);
    if (error) {  // another file system: copy, then remove
      error.clear();
      fs::copy(dir, target, fs::copy_options::recursive, error);
      std::error_code ignored;
      if (!error) fs::remove_all(dir, ignored);
    }
    if (!error) kept = target;  // else they stay where they were written
  }
  return "the recorder's logs are kept in " + kept + "; convert them later with `streamlab-cli explain " + kept +
         "` or `streamlab-cli import " + kept + " --out " + out + "`";
}

// The notes that say what a trace left out of the run or could not follow (the conversion's
// free sentences among them: threads sharing a lane, legacy streams joined, collectives unmatched).
bool SaysWhatWasDropped(const TraceNote& note) {
  static const char* const kKeys[] = {"process_failed", "process_idle", "cupti_dropped", "unplaced_activity"};
  for (const char* key : kKeys)
    if (note.key == key) return true;
  return IsCutNote(note) || note.key.empty();
}

}  // namespace

int CmdRecord(const RecordCommand& cmd) {
  if (cmd.argv.empty()) throw InputError("record: give the program to run after --, e.g. record -- python3 train.py");
  if (cmd.delay_s >= 0 && cmd.capture_range != "none")
    throw InputError("record: --delay chooses the window by time and --capture-range by the program's calls; give one");
  if (cmd.duration_s > 0 && cmd.delay_s < 0) throw InputError("record: --duration needs --delay (0 to start at once)");
  // The folder's logs all become one trace (one lane group per process): logs left by an
  // earlier run would join this one as if its processes had run beside it.
  std::error_code missing;
  if (!cmd.raw_dir.empty())
    for (const auto& entry : fs::directory_iterator(cmd.raw_dir, missing))
      if (entry.path().extension() == ".jsonl" && entry.path().filename().string().rfind("raw.", 0) == 0)
        throw InputError("record: " + cmd.raw_dir + " already holds a recorder log from an earlier run (" +
                         entry.path().filename().string() + "); give an empty folder to --raw-dir, or remove its raw.*.jsonl");
  std::string library = RecorderLibrary();
  if (library.empty() || !fs::exists(library))
    throw BackendError("this build has no recording library (it needs CUDA and CUPTI at build time)" +
                       (library.empty() ? std::string() : ": " + library + " not found"));
  std::string dir = cmd.raw_dir;
  bool temporary = dir.empty();
  if (temporary) {
    char tmpl[] = "/tmp/streamlab-record-XXXXXX";
    if (!mkdtemp(tmpl)) throw RunError("cannot create a temporary folder for the recording");
    dir = tmpl;
  } else {
    fs::create_directories(dir);
  }
  int status = RunRecorded(cmd, library, fs::absolute(dir).string());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && fs::is_empty(dir)) {
    if (temporary) fs::remove_all(dir);
    throw InputError("record: could not run " + cmd.argv.front());
  }
  // From here on the program has run: whatever happens to its recording, record exits with the
  // program's own status, and a log that cannot be converted is kept, not lost.
  const int exit_code = ProgramExitCode(status);
  std::string program = cmd.argv.front();

  // One log per process that initialised CUDA; all that ran GPU work make one trace (a
  // torchrun job: a lane group per rank, on one clock).
  size_t logs = 0;
  std::string problem;
  Trace best;
  bool converted = false;
  try {
    std::vector<Recording> recordings = ReadRecordingFolder(dir, &logs, &problem);
    if (!recordings.empty()) {
      best = TraceFromRecordings(std::move(recordings));
      converted = true;
    }
  } catch (const std::exception& e) {  // any failure of the conversion, not only bad input
    problem = e.what();
  }
  if (!converted) {
    std::cerr << "streamlab-cli record: " << program << " " << Describe(status) << "; no trace was written: "
              << WhyNoTrace(cmd, logs, problem) << "\n";
    if (logs > 0) std::cerr << "streamlab-cli record: " << KeepLogs(dir, temporary, cmd.out) << "\n";
    else if (temporary) fs::remove_all(dir);
    return exit_code;
  }
  best.captured_at = Now();
  best.driver = DriverVersion();
  std::string command;
  for (const std::string& a : cmd.argv) command += (command.empty() ? "" : " ") + a;
  best.notes.insert(best.notes.begin(), ProgramNote(command, status));
  {
    std::ofstream out(cmd.out);
    out << DumpJson(TraceToJson(best)) << "\n";
    if (!out) {
      std::cerr << "streamlab-cli record: cannot write " << cmd.out << "; " << KeepLogs(dir, temporary, cmd.out) << "\n";
      return exit_code;
    }
  }
  std::cerr << "streamlab-cli record: " << program << " " << Describe(status) << "; " << best.ops.size()
            << " ops recorded to " << cmd.out << " (streamlab-cli explain " << cmd.out << ")\n";
  // A log that could not be read (a process killed while writing it) is not in the trace: said,
  // and the logs are kept.
  if (!problem.empty())
    std::cerr << "streamlab-cli record: a log was left out: " << problem << "; " << KeepLogs(dir, temporary, cmd.out)
              << "\n";
  else if (temporary)
    fs::remove_all(dir);
  // What the trace leaves out (a cut, a process or thread it could not hold, records CUPTI
  // dropped): said here too, not only in the trace.
  for (const TraceNote& note : best.notes)
    if (SaysWhatWasDropped(note)) std::cerr << "streamlab-cli record: " << note.text << "\n";
  return exit_code;
}

}  // namespace streamlab
