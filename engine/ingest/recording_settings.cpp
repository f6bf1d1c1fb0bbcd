// The recorded process's own settings: what its environment held when it initialised CUDA
// (the recorder's "env" line), turned into the scenario's RunSettings, and a note that says
// them (or that the recording does not, and the defaults are assumed).
#include <cstdlib>
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

}  // namespace streamlab
