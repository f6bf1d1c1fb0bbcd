// What runs a lab or a scenario: the one table of backend names that the CLI's --backend, the
// GUI's backend menu and the executors share (a trace's own "backend" field also names where
// a trace came from: "record", "kineto").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/util/enum_names.h"

namespace streamlab {

enum class Backend : uint8_t {
  kAuto,   // the GPU when one is usable here, else the simulator (saying why)
  kSim,    // the simulated GPU
  kCuda,   // the real GPU, with StreamLab's CUDA executor
  kTorch,  // the real GPU, the lab written as a PyTorch program and recorded
};

inline constexpr EnumNames<Backend, 4> kBackendNames{{
    {Backend::kAuto, "auto"},
    {Backend::kSim, "sim"},
    {Backend::kCuda, "cuda"},
    {Backend::kTorch, "torch"},
}};

constexpr std::string_view BackendName(Backend backend) { return NameOf(kBackendNames, backend); }
constexpr std::optional<Backend> ParseBackend(std::string_view name) { return ValueNamed(kBackendNames, name); }
static_assert(InEnumOrder(kBackendNames));

// True for the backends that run on a real GPU.
constexpr bool OnGpu(Backend backend) { return backend == Backend::kCuda || backend == Backend::kTorch; }

}  // namespace streamlab
