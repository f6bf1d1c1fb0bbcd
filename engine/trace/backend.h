// What runs a lab or a scenario: the one table of backend names that the CLI's --backend, the
// GUI's backend menu and the executors share (a trace's own "backend" field also names where
// a trace came from: "record", "kineto").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace streamlab {

enum class Backend : uint8_t {
  kAuto,   // the GPU when one is usable here, else the simulator (saying why)
  kSim,    // the simulated GPU
  kCuda,   // the real GPU, with StreamLab's CUDA executor
  kTorch,  // the real GPU, the lab written as a PyTorch program and recorded
};

inline constexpr std::array<std::pair<Backend, std::string_view>, 4> kBackendNames{{
    {Backend::kAuto, "auto"},
    {Backend::kSim, "sim"},
    {Backend::kCuda, "cuda"},
    {Backend::kTorch, "torch"},
}};

constexpr std::string_view BackendName(Backend backend) {
  return kBackendNames[static_cast<size_t>(backend)].second;
}

constexpr std::optional<Backend> ParseBackend(std::string_view name) {
  for (const auto& [backend, backend_name] : kBackendNames)
    if (backend_name == name) return backend;
  return std::nullopt;
}

// True for the backends that run on a real GPU.
constexpr bool OnGpu(Backend backend) { return backend == Backend::kCuda || backend == Backend::kTorch; }

static_assert([] {
  for (size_t i = 0; i < kBackendNames.size(); ++i)
    if (static_cast<size_t>(kBackendNames[i].first) != i) return false;
  return true;
}());

}  // namespace streamlab
