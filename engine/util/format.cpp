// Duration formatting.
#include "engine/util/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace streamlab {

std::string FormatDuration(TimeNs ns) {
  char buf[32];
  double v = static_cast<double>(ns);
  double a = std::fabs(v);
  if (a < 1e3) std::snprintf(buf, sizeof buf, "%.0f ns", v);
  else if (a < 1e4) std::snprintf(buf, sizeof buf, "%.2f us", v / 1e3);
  else if (a < 1e6) std::snprintf(buf, sizeof buf, "%.1f us", v / 1e3);
  else if (a < 1e9) std::snprintf(buf, sizeof buf, "%.2f ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f s", v / 1e9);
  return buf;
}

std::string FormatTick(TimeNs ns, TimeNs step) {
  double v = static_cast<double>(ns);
  double a = std::fabs(v);
  double unit = a < 1e3 ? 1 : a < 1e6 ? 1e3 : a < 1e9 ? 1e6 : 1e9;
  const char* name = a < 1e3 ? "ns" : a < 1e6 ? "us" : a < 1e9 ? "ms" : "s";
  int decimals = 0;
  for (double resolved = unit; decimals < 9 && resolved > static_cast<double>(std::max<TimeNs>(step, 1)); resolved /= 10)
    ++decimals;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v / unit, name);
  return buf;
}

std::string FormatMicros(TimeNs ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f us", static_cast<double>(ns) / 1e3);
  return buf;
}

std::string FormatPercent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", fraction * 100.0);
  return buf;
}

std::string FormatBytes(uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB"};
  int unit = 0;
  while (unit < 3 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + units[unit];
}

std::string FillTemplate(const std::string& tpl, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] == '{') {
      size_t close = tpl.find('}', i);
      if (close != std::string::npos) {
        auto it = vars.find(tpl.substr(i + 1, close - i - 1));
        if (it != vars.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += tpl[i];
  }
  return out;
}

}  // namespace streamlab
