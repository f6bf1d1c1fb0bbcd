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

namespace {

// The claims a variant is checked against, with the lab's default parameters.
Json ClaimsJson(const std::vector<Expectation>& expectations) {
  Json claims = Json::array();
  for (const Expectation& e : expectations) claims.push_back(e.claim);
  return claims;
}

// One lab as JSON: what the docs generator (scripts/gen_docs.py) writes a lab's page from.
Json LabJson(const Lab& lab) {
  Json params = Json::array();
  for (const LabParam& p : lab.params)
    params.push_back({{"name", p.name}, {"min", p.min}, {"max", p.max}, {"default", p.fallback}, {"unit", p.unit}});
  Json variants = Json::array();
  for (const std::string& v : lab.variants) {
    LabArgs args = ResolveLabArgs(lab, v, {});
    Json variant{{"name", v}, {"gpus", DevicesFor(lab, v)}, {"claims", ClaimsJson(lab.expectations(args))}};
    if (lab.torch_expectations) {
      std::vector<Expectation> torch = lab.torch_expectations(args);
      if (!torch.empty()) variant["torch_claims"] = ClaimsJson(torch);
    }
    variants.push_back(variant);
  }
  return {{"id", lab.id}, {"week", lab.week}, {"order", lab.order}, {"gpus", lab.devices},
          {"params", params}, {"variants", variants}};
}

void PrintCatalogueText() {
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
}

}  // namespace

int CmdList(const ListCommand& cmd) {
  if (!cmd.json) {
    PrintCatalogueText();
    return kExitOk;
  }
  Json labs = Json::array();
  for (const Lab& lab : AllLabs()) labs.push_back(LabJson(lab));
  std::cout << Json{{"labs", labs}}.dump(2) << "\n";
  return kExitOk;
}

}  // namespace streamlab
