// Child-process runs with posix_spawn; output captured through temporary files.
#include "app/runner/child_run.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "engine/util/errors.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"

extern char** environ;

namespace streamlab {
namespace {

std::string TempPath(const std::string& suffix) {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          ("streamlab-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + suffix))
      .string();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

namespace {

// `environ` with `extra` set (replacing a variable of the same name).
std::vector<std::string> EnvironmentWith(const ChildEnv& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : extra) replaced = replaced || entry.rfind(name + "=", 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
  return env;
}

// Spawns `args` (stderr to a file, stdout to /dev/null); its trace, if any, goes to `trace_path`.
StartedChild Spawn(std::vector<std::string> args, const std::string& trace_path, const ChildEnv& extra_env) {
  StartedChild child;
  child.err_path = TempPath(".stderr.txt");
  child.trace_path = trace_path;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text = EnvironmentWith(extra_env);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, child.err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  // (spawnp: a bare program name, like python3, is looked up on PATH)
  int rc = posix_spawnp(&pid, args.front().c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw RunError("cannot start " + args.front() + ": " + std::strerror(rc));
  child.pid = pid;
  return child;
}

ChildRunResult SpawnForTrace(std::vector<std::string> args, const std::string& trace_path, double timeout_s,
                             const std::atomic<bool>* cancel, std::initializer_list<int> trace_codes) {
  StartedChild child = Spawn(std::move(args), trace_path, {});
  return WaitForChild(child, timeout_s, cancel, trace_codes);
}

}  // namespace

StartedChild::StartedChild(StartedChild&& other) noexcept { *this = std::move(other); }

StartedChild& StartedChild::operator=(StartedChild&& other) noexcept {
  if (this != &other) {
    Stop();
    pid = std::exchange(other.pid, -1);
    err_path = std::move(other.err_path);
    trace_path = std::move(other.trace_path);
  }
  return *this;
}

StartedChild::~StartedChild() { Stop(); }

void StartedChild::Stop() {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  pid = -1;
  if (!trace_path.empty()) std::remove(trace_path.c_str());
  std::remove(err_path.c_str());
}

bool StartedChild::Exited() const {
  if (pid <= 0) return true;
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Kills the child on cancel or past the deadline, and reads the trace it wrote when it exited
// with one of `trace_codes`.
ChildRunResult WaitForChild(StartedChild& child, double timeout_s, const std::atomic<bool>* cancel,
                            std::initializer_list<int> trace_codes) {
  ChildRunResult result;
  if (child.pid <= 0) {
    result.error = "the run was not started";
    return result;
  }
  // The child has its own watchdog; this is the backstop if the child itself hangs.
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000) + 30000);
  int status = 0;
  while (true) {
    pid_t done = waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid) break;
    bool cancelled = cancel && cancel->load();
    if (cancelled || std::chrono::steady_clock::now() > deadline) {
      child.Stop();
      result.error = cancelled ? "cancelled" : "the run did not finish and was killed";
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  child.pid = -1;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.error = Slurp(child.err_path);
  if (!WIFEXITED(status))
    result.error += (result.error.empty() ? "" : "; ") + std::string("the run crashed (signal ") +
                    std::to_string(WTERMSIG(status)) + ")";
  // (An empty list: any exit that wrote the trace. `record` exits with the recorded program's own
  // status once it ran, and writes what it recorded whatever that status is.)
  const std::string& trace_path = child.trace_path;
  bool wanted = trace_codes.size() == 0 || std::find(trace_codes.begin(), trace_codes.end(), result.exit_code) != trace_codes.end();
  if (!trace_path.empty() && wanted && std::ifstream(trace_path).good()) result.trace = LoadTraceFile(trace_path);
  std::remove(trace_path.c_str());
  std::remove(child.err_path.c_str());
  return result;
}

ChildRunResult RunChild(const std::string& self, std::vector<std::string> args, double timeout_s,
                        const std::atomic<bool>* cancel) {
  std::string trace_path = TempPath(".trace.json");
  args.insert(args.begin(), {self, "run"});
  args.insert(args.end(), {"--out", trace_path, "--quiet"});
  return SpawnForTrace(std::move(args), trace_path, timeout_s, cancel, {0});
}

ChildRunResult RunCommandInChild(std::vector<std::string> args, double timeout_s) {
  return SpawnForTrace(std::move(args), "", timeout_s, nullptr, {});
}

StartedChild StartRecordInChild(const std::string& self, const std::vector<std::string>& program,
                                const std::vector<std::string>& options, const ChildEnv& env) {
  std::string trace_path = TempPath(".recording.json");
  std::vector<std::string> args{self, "record", "--out", trace_path};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  return Spawn(std::move(args), trace_path, env);
}

ChildRunResult RecordInChild(const std::string& self, const std::vector<std::string>& program, double timeout_s,
                             const std::atomic<bool>* cancel, const std::vector<std::string>& options) {
  StartedChild child = StartRecordInChild(self, program, options, {});
  // `record` exits with the program's status (128 + a signal), and keeps what ran before a
  // failure or crash in the trace: the trace is read whenever it was written.
  return WaitForChild(child, timeout_s, cancel, {});
}

StartedChild StartCommandInChild(std::vector<std::string> args, const ChildEnv& env) {
  return Spawn(std::move(args), "", env);
}

GpuProbeResult ProbeGpuInChild(const std::string& self) {
  std::string out_path = TempPath(".probe.json");
  std::vector<std::string> args{self, "probe", "--out", out_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  GpuProbeResult probe;
  int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    probe.reason = "cannot start " + self;
    return probe;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  try {
    Json j = ParseJson(ReadTextFile(out_path), out_path);
    probe.usable = j.value("usable", false);
    probe.reason = j.value("reason", "");
    probe.device = j.value("device", "");
    probe.count = j.value("count", 0);
  } catch (const std::exception& e) {
    probe.reason = std::string("probe failed: ") + e.what();
  }
  std::remove(out_path.c_str());
  return probe;
}

}  // namespace streamlab
