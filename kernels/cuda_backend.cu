// The CUDA backend: probing for a usable GPU, and the Executor that runs a scenario with
// a warm-up pass and keeps the median of --repeat measured passes.
#include <algorithm>
#include <ctime>
#include <fstream>
#include <regex>

#include "engine/util/errors.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_run.h"

namespace streamlab {
namespace {

std::string DriverVersion() {
  // The kernel module's version string is what nvidia-smi shows (e.g. 580.159.04).
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  if (std::getline(in, line)) {
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ..."
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"((\d{3,}\.\d+(\.\d+)?))"))) return m[1].str();
  }
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess)
    return "CUDA driver API " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  return "unknown";
}

std::string NowIso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

class CudaExecutor : public Executor {
 public:
  Backend Kind() const override { return Backend::kCuda; }

  Trace Run(const Scenario& scenario, const RunOptions& options) override {
    ValidateRunnable(scenario);
    int count = 0;
    SL_CUDA(cudaGetDeviceCount(&count));
    if (count < scenario.device_count)
      throw BackendError("this scenario needs " + std::to_string(scenario.device_count) +
                         " GPUs; " + std::to_string(count) + " found");
    CudaRun run(scenario, options.timeout);
    if (scenario.settings.warmup) run.Pass();
    std::vector<Trace> passes;
    for (int i = 0; i < std::max(1, options.repeat); ++i) passes.push_back(run.Pass());
    std::vector<size_t> order(passes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return TraceEnd(passes[a]) < TraceEnd(passes[b]);
    });
    Trace trace = std::move(passes[order[order.size() / 2]]);
    if (passes.size() > 1)
      trace.notes.push_back(Note("repeat_median", {{"n", std::to_string(passes.size())},
                                                   {"median", FormatDuration(TraceEnd(trace))},
                                                   {"fastest", FormatDuration(TraceEnd(passes[order.front()]))},
                                                   {"slowest", FormatDuration(TraceEnd(passes[order.back()]))}}));
    cudaDeviceProp prop{};
    SL_CUDA(cudaGetDeviceProperties(&prop, 0));
    trace.backend = "cuda";
    trace.device_name = prop.name;
    trace.sm_count = prop.multiProcessorCount;
    if (scenario.device_count > 1) trace.device_name += " x" + std::to_string(scenario.device_count);
    trace.driver = DriverVersion();
    trace.captured_at = NowIso();
    trace.scenario = scenario;
    SerialiseCopyStarts(trace);  // needs the scenario to know each copy's direction
    return trace;
  }
};

}  // namespace

CudaProbe ProbeCuda() {
  CudaProbe probe;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    probe.reason = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return probe;
  }
  if (count == 0) {
    probe.reason = "no CUDA device found";
    return probe;
  }
  cudaDeviceProp prop{};
  e = cudaGetDeviceProperties(&prop, 0);
  if (e != cudaSuccess) {
    probe.reason = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    return probe;
  }
  probe.usable = true;
  probe.device_count = count;
  probe.device_name = prop.name;
  probe.driver = DriverVersion();
  return probe;
}

std::unique_ptr<Executor> MakeCudaExecutor() { return std::make_unique<CudaExecutor>(); }

}  // namespace streamlab
