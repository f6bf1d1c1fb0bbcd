// `streamlab-cli list`: the catalogue by week, with variants and parameters; and
// `streamlab-cli probe`: whether a GPU is usable here.
#include <iostream>

#include "app/cli/commands.h"
#include "engine/util/errors.h"
#include "engine/classroom/lab_texts.h"
#include "engine/scenario/scenario_json.h"
#include "kernels/cuda_backend.h"
#include "labs/catalogue.h"

namespace streamlab {

int CmdProbe(const std::string& out_path) {
  CudaProbe probe = ProbeCuda();
  std::string device = probe.usable ? probe.device_name + " x" + std::to_string(probe.device_count) : "";
  std::cout << (probe.usable ? "usable: " + device + ", driver " + probe.driver : "not usable: " + probe.reason) << "\n";
  if (!out_path.empty())
    SaveJsonFile(Json{{"usable", probe.usable}, {"reason", probe.reason}, {"device", device}, {"count", probe.device_count}},
                 out_path);
  return probe.usable ? kExitOk : kExitNoBackend;
}

int CmdList() {
  int week = 0;
  for (const Lab& lab : AllLabs()) {
    if (lab.week != week) {
      week = lab.week;
      std::cout << "Week " << week << "\n";
    }
    std::string title;
    try {
      title = LoadLabText(lab.id, "en").title;
    } catch (const InputError& e) {
      title = "(texts missing: " + std::string(e.what()) + ")";
    }
    std::cout << "  " << lab.id << std::string(lab.id.size() < 28 ? 28 - lab.id.size() : 1, ' ')
              << title << "\n";
    std::cout << "      variants:";
    for (const std::string& v : lab.variants) std::cout << " " << v;
    if (!lab.params.empty()) {
      std::cout << "   params:";
      for (const LabParam& p : lab.params)
        std::cout << " " << p.name << "=" << p.fallback << " [" << p.min << ".." << p.max << "]";
    }
    if (lab.devices > 1) std::cout << "   needs " << lab.devices << " GPUs";
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace streamlab
