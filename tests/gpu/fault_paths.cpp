// Fault paths on a real GPU, all in one process: each provoked or injected CUDA failure
// must end its run with the failing call named (no crash, no hang), and a normal run
// afterwards in the same process must work. Run on the GPU machine:
//   build/tests/gpu/fault_paths
// Without a GPU it says "waived" and exits 0.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "engine/util/errors.h"
#include "engine/scenario/scenario_builder.h"
#include "kernels/cuda_backend.h"

using namespace streamlab;

namespace {

int passed = 0, failed = 0;

Scenario Normal() {
  ScenarioBuilder b("normal");
  Stream s1 = b.CreateStream("s1"), s2 = b.CreateStream("s2");
  s1.Launch("a", Spin(Us(200)));
  s2.Launch("b", Spin(Us(200)));
  b.host().SyncDevice();
  return b.Build();
}

// Runs `scenario`; returns the error text ("" if it succeeded).
std::string RunOnce(const Scenario& scenario, TimeNs timeout = Ms(10000)) {
  try {
    RunOptions options;
    options.timeout = timeout;
    MakeCudaExecutor()->Run(scenario, options);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

void Case(const std::string& name, const std::function<std::string()>& provoke, const std::string& expect,
          bool next_run_must_work = true) {
  std::string error = provoke();
  bool named = !error.empty() && error.find(expect) != std::string::npos;
  std::printf("%s  %s: %s\n", named ? "PASS" : "FAIL", name.c_str(), error.empty() ? "(no error!)" : error.c_str());
  (named ? passed : failed)++;
  std::string next = RunOnce(Normal());
  bool ok = next.empty();
  if (next_run_must_work) {
    std::printf("%s  %s: the next run in this process %s\n", ok ? "PASS" : "FAIL", name.c_str(),
                ok ? "works" : ("fails: " + next).c_str());
    (ok ? passed : failed)++;
  } else {
    std::printf("info  %s: the next run in this process %s\n", name.c_str(), ok ? "works" : ("fails: " + next).c_str());
  }
}

}  // namespace

int main() {
  CudaProbe probe = ProbeCuda();
  if (!probe.usable) {
    std::printf("waived: no usable GPU (%s)\n", probe.reason.c_str());
    return 0;
  }
  std::printf("fault paths on %s, driver %s\n", probe.device_name.c_str(), probe.driver.c_str());
  std::string baseline = RunOnce(Normal());
  std::printf("%s  baseline run%s\n", baseline.empty() ? "PASS" : "FAIL", baseline.empty() ? "" : (": " + baseline).c_str());
  (baseline.empty() ? passed : failed)++;

  Case("out of device memory (24 x 8 GiB buffers)", [] {
    ScenarioBuilder b("oom");
    for (int i = 0; i < 24; ++i) b.DeviceBuffer("big" + std::to_string(i), 8ull << 30);
    b.CreateStream("s").Launch("k", Spin(Us(10)));
    return RunOnce(b.Build());
  }, "cudaMalloc");

  Case("failing launch configuration (injected: 2048 threads per block)", [] {
    setenv("STREAMLAB_INJECT_FAULT", "bad_launch", 1);
    std::string e = RunOnce(Normal());
    unsetenv("STREAMLAB_INJECT_FAULT");
    return e;
  }, "LaunchLabKernel");

  Case("hung kernel (a 9 s spin on 132 blocks, watchdog at 1 s)", [] {
    ScenarioBuilder b("hang");
    b.CreateStream("s").Launch("forever", Spin(Ms(9000), 132, 128));
    b.host().SyncDevice();
    return RunOnce(b.Build(), Ms(1000));
  }, "watchdog");

  Case("more GPUs than present", [] {
    ScenarioBuilder b("many", 4);
    b.CreateStream("s", {.device = 3}).Launch("k", Spin(Us(10)));
    return RunOnce(b.Build());
  }, "needs 4 GPUs");

  // Last: an illegal address is a sticky error that poisons this process's CUDA context.
  // That is why the CLI's verify and the GUI run every GPU run in a child process.
  Case("illegal address in a kernel (injected; sticky)", [] {
    setenv("STREAMLAB_INJECT_FAULT", "illegal_address", 1);
    std::string e = RunOnce(Normal());
    unsetenv("STREAMLAB_INJECT_FAULT");
    return e;
  }, "illegal memory access", false);

  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
