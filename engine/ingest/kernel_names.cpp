// Kernel names shortened for lanes and findings (see kernel_names.h), and a recorded kernel's
// occupancy estimate (declared in recording.h).
#include "engine/ingest/kernel_names.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "engine/ingest/recording.h"

namespace streamlab {

namespace {

// The leading names of an Itanium-mangled name the demangler refused (seen in a real trace:
// a 1.6 kB cutlass kernel name neither __cxa_demangle nor c++filt read): "_ZN19cutlass_cudnn
// _train6KernelI..." -> "cutlass_cudnn_train::Kernel". Empty if it is not mangled.
std::string LeadingMangledNames(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return "";
  size_t i = 2;
  if (i < name.size() && name[i] == 'N') ++i;
  while (i < name.size() && (name[i] == 'r' || name[i] == 'V' || name[i] == 'K')) ++i;
  std::string out;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) {
    size_t length = 0;
    while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && length < 100000)
      length = length * 10 + static_cast<size_t>(name[i++] - '0');
    if (length == 0 || length > name.size() - i) break;
    out += (out.empty() ? "" : "::") + name.substr(i, length);
    i += length;
  }
  return out;
}

}  // namespace

std::string ShortKernelName(const std::string& mangled, std::string* full) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                  std::free);
  std::string name = status == 0 && demangled ? demangled.get() : mangled;
  if (full) *full = name;
  if (status != 0)
    if (std::string leading = LeadingMangledNames(mangled); !leading.empty()) return leading;
  for (size_t at; (at = name.find("(anonymous namespace)::")) != std::string::npos;) name.erase(at, 23);
  // Cut the parameter list and template arguments at nesting depth 0, and a return type.
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    char ch = name[i];
    if (ch == '<' || ch == '(') {
      if (ch == '(' && depth == 0) break;
      ++depth;
      continue;
    }
    if (ch == '>' || ch == ')') {
      depth = std::max(0, depth - 1);
      continue;
    }
    if (depth == 0) out += ch;
  }
  if (size_t space = out.rfind(' '); space != std::string::npos) out = out.substr(space + 1);
  return out.empty() ? name.substr(0, 80) : out;
}

int EstimateBlocksPerSm(const RecordedDevice& d, int threads, int registers, int shared_bytes) {
  if (d.warps_per_sm <= 0 || d.blocks_per_sm <= 0 || threads <= 0) return 0;
  int warps = (threads + 31) / 32;
  int limit = std::min(d.blocks_per_sm, d.warps_per_sm / warps);
  if (registers > 0 && d.regs_per_sm > 0) {
    int per_warp = (registers * 32 + 255) / 256 * 256;  // allocated per warp, 256 at a time
    limit = std::min(limit, d.regs_per_sm / (per_warp * warps));
  }
  if (shared_bytes > 0 && d.smem_per_sm > 0)
    limit = std::min(limit, d.smem_per_sm / (shared_bytes + 1024));  // 1 KB reserved per block
  return std::max(limit, 0);
}

}  // namespace streamlab
