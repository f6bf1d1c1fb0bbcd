// What-if (issue 52): pinning a batch's copies in a PyTorch loop fed by a DataLoader. The batch's
// other copies and PyTorch's syncs after them go with the fix, and where the host worked before
// each step's range a second figure says what a DataLoader's pin-memory thread would give too.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/analysis/step_pace.h"
#include "engine/verdict/verdict.h"
#include "engine/report/verdict_text.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/sim/sim_executor.h"
#include "engine/whatif/whatif.h"
#include "tests/verdict_util.h"
#include "tests/whatif_recorded_loops.h"

namespace streamlab {
namespace {

// A PyTorch loop fed by a DataLoader: the host gets each batch (2 ms) before the step's range,
// then copies its inputs and labels from pageable memory, each `.cuda()` followed by PyTorch's
// sync of the stream, and launches four short kernels.
Trace LoaderLoop() {
  ScenarioBuilder b("loader");
  Stream s = b.CreateStream("compute");
  Buffer input = b.DeviceBuffer("input", 16 << 20), labels = b.DeviceBuffer("labels", 256);
  Buffer host_in = b.PageableBuffer("host_in", 16 << 20), host_labels = b.PageableBuffer("host_labels", 256);
  Host host = b.host();
  for (int k = 0; k < 8; ++k) {
    host.Work("next(loader)", Ms(2));
    s.Copy("input", input, host_in, 16 << 20);
    s.Synchronize();
    s.Copy("labels", labels, host_labels, 256);
    s.Synchronize();
    for (int i = 0; i < 4; ++i) s.Launch("k" + std::to_string(i), Spin(Us(50), 132));
  }
  Trace t = AsRecording(SimExecutor().Run(b.Build(), {}));
  t.notes.push_back(Note("program.exited", {{"command", "python3 train.py"}, {"status", "0"}}));
  std::vector<int> copies = Calls(t, OpKind::kMemcpy, "input"), launches = Calls(t, OpKind::kKernel, "k3");
  for (size_t k = 0; k < copies.size(); ++k)  // each step's range: from just before its copy to its last launch
    t.ranges.push_back({0, "step", t.ops[copies[k]].submit - Us(1), t.ops[launches[k]].ret + Us(1)});
  return t;
}

TEST(WhatIf, PinningABatchTakesItsOtherCopiesAndPyTorchsSyncsAndSaysWhatADataLoaderWouldGiveToo) {
  Trace t = LoaderLoop();
  Verdict v = LeadVerdict(t);
  ASSERT_EQ(v.steps.source, StepSource::kRanges);
  auto pin = std::find_if(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& f) { return f.kind == FixKind::kPageableCopy; });
  ASSERT_NE(pin, v.fixes.end());
  std::vector<int> anchors = StepAnchors(t, v.steps);
  std::optional<WhatIfEdit> edit = EditForFix(t, CallPlaces(t, anchors), *pin);
  ASSERT_TRUE(edit);
  // The labels' copies are the batch's too, though the fix names the input's place.
  std::vector<int> labels = Calls(t, OpKind::kMemcpy, "labels");
  for (int c : labels) {
    if (v.steps.steps[CallPlaces(t, anchors).StepOf(c)].steady) {
      EXPECT_NE(std::find(edit->calls.begin(), edit->calls.end(), c), edit->calls.end()) << c;
    }
  }
  WhatIfRun run = RunWhatIf(t, v.steps, anchors, BuildReplay(t, ProfileForRecording(t)), {*edit});
  // With non_blocking=True no sync follows a pinned copy, so the host stops waiting for the GPU:
  // a step is its 2 ms of host work and its calls.
  size_t syncs_before = Calls(t, OpKind::kSyncStream).size(), syncs_after = Calls(run.predicted, OpKind::kSyncStream).size();
  EXPECT_LT(syncs_after, syncs_before);
  EXPECT_NEAR(static_cast<double>(run.after), static_cast<double>(Ms(2) + Us(100)), static_cast<double>(Us(100)));
  // The other case: a DataLoader's pin-memory thread takes the 2 ms hand-over too, and the GPU's
  // pinned copy and kernels set the pace.
  const DeviceProfile p = ProfileForRecording(t);
  TimeNs gpu = TransferDuration(p, 16 << 20, p.h2d_pinned_gbps) + 4 * Us(50);
  ASSERT_GT(run.after_loader, 0);
  EXPECT_NEAR(static_cast<double>(run.after_loader), static_cast<double>(gpu), static_cast<double>(Us(100)));
  // explain says both.
  ASSERT_TRUE(SimulateFixes(t, v, 5));
  pin = std::find_if(v.fixes.begin(), v.fixes.end(), [](const VerdictFix& f) { return f.kind == FixKind::kPageableCopy; });
  EXPECT_EQ(pin->simulated_other_case, VerdictFix::kLoaderHandOver);
  EXPECT_EQ(pin->simulated_step - pin->simulated_other_save, run.after_loader);
  std::string all;
  for (const std::string& line : RenderVerdict(FindingTexts::Load("en"), t, Alone(v))) all += line + "\n";
  EXPECT_NE(all.find("if the batch comes from a DataLoader with workers"), std::string::npos) << all;
  // From torch.profiler, a sync no cuda_sync record places is a plain call: the labels' copy
  // after it is the batch's still.
  Trace imported = t;
  for (Op& op : imported.scenario.ops)
    if (op.kind == OpKind::kSyncStream) op.kind = OpKind::kApiCall, op.name = "cudaStreamSynchronize (no cuda_sync record)";
  std::optional<WhatIfEdit> imported_edit = EditForFix(imported, CallPlaces(imported, anchors), *pin);
  ASSERT_TRUE(imported_edit);
  EXPECT_EQ(imported_edit->calls, edit->calls);
  // A loop whose steps are not its own ranges says nothing of where a step begins: one figure.
  Trace unranged = t;
  unranged.ranges.clear();
  StepSplit repeating = FindSteps(unranged);
  EXPECT_FALSE(LoaderHandOverEdit(unranged, repeating, StepAnchors(unranged, repeating), *edit));
}

}  // namespace
}  // namespace streamlab
