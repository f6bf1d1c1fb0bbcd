// What a recording says about the process beside its calls: its own settings (the recorder's
// "env" line, read when it initialised CUDA) turned into the scenario's RunSettings with a note
// that says them (or that they are assumed), and which of its streams a library made.
#include <cstdlib>
#include <set>
#include <string>

#include "engine/ingest/recording.h"

namespace streamlab {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void ApplyRecordedSettings(const Recording& r, RunSettings& settings) {
  settings.known = r.env_known;
  settings.env = r.env;
  if (!r.env_known) return;
  if (auto it = r.env.find("CUDA_DEVICE_MAX_CONNECTIONS"); it != r.env.end()) {
    // CUDA takes 1..32; anything else leaves the default.
    long n = std::strtol(it->second.c_str(), nullptr, 10);
    if (n >= 1 && n <= 32) settings.max_connections = static_cast<int>(n);
  }
  if (auto it = r.env.find("CUDA_MODULE_LOADING"); it != r.env.end())
    settings.lazy_loading = Upper(it->second) != "EAGER";
  if (auto it = r.env.find("CUDA_LAUNCH_BLOCKING"); it != r.env.end())
    settings.launch_blocking = it->second == "1";
}

TraceNote SettingsNote(const RunSettings& settings, bool recorded) {
  if (!recorded) return {};
  if (!settings.known) return Note("settings_unknown");
  std::string list;
  for (const auto& [name, value] : settings.env) list += (list.empty() ? "" : ", ") + name + "=" + value;
  if (list.empty()) return Note("settings_default");
  return Note("settings_own", {{"list", list}});
}

TraceNote PriorityNote(const Scenario& s) {
  std::string list;
  for (const StreamDesc& d : s.streams)
    if (d.priority != 0) list += (list.empty() ? "" : ", ") + d.name + " (" + std::to_string(d.priority) + ")";
  if (list.empty()) return {};
  return Note("priorities", {{"list", list}});
}

std::set<int> ThreadsWithPythonFrames(const Recording& r) {
  std::set<int> threads;
  for (const RecordedCall& c : r.calls)
    if (c.python_stack != 0)
      if (auto s = r.python_stacks.find(c.python_stack); s != r.python_stacks.end() && !s->second.empty())
        threads.insert(c.thread);
  return threads;
}

bool StreamMadeInsideLibrary(const Recording& r, const RecordedCall& create, const std::set<int>& python_threads) {
  if (r.python_stacks.empty()) return false;
  // A thread Python never ran on (autograd's backward thread, NCCL's) cannot be the program
  // asking for a stream from Python: cuDNN's handle for the backward pass makes one there.
  if (create.python_stack == 0) return !python_threads.count(create.thread);
  auto stack = r.python_stacks.find(create.python_stack);
  if (stack == r.python_stacks.end()) return false;
  for (const std::string& frame : stack->second)
    if (frame.find("torch/cuda/streams.py") != std::string::npos || frame.find("/cupy/") != std::string::npos)
      return false;
  return true;
}

}  // namespace streamlab
