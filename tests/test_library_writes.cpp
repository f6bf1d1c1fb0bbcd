// Which recorded kernel arguments a library's kernel is known to write (library_writes.h):
// PyTorch's foreach and fused-optimizer kernels take tensor lists, and write one of them.
// Names are as the recorder demangles them from a PyTorch 2.11 run on an H200.
#include <gtest/gtest.h>

#include "engine/analysis/findings_text.h"
#include "engine/analysis/library_writes.h"
#include "engine/trace/trace_json.h"
#include "tests/recorder_log.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Log;
using testing::Races;

const std::string kNs = "at::native::(anonymous namespace)::";
// torch._foreach_lerp_(ema, params, w): lists (ema, params), the result stored in list 0.
const std::string kLerp = "void " + kNs + "multi_tensor_apply_kernel<" + kNs + "TensorListMetadata<2>, " + kNs +
                          "TernaryOpScalarFunctor<float, 2, 2, 0>, at::native::LerpFunctor<float>, float>(" + kNs +
                          "TensorListMetadata<2>, " + kNs + "TernaryOpScalarFunctor<float, 2, 2, 0>, at::native::LerpFunctor<float>, float)";
// AdamW(fused=True).step(): lists (params, grads, exp_avg, exp_avg_sq).
const std::string kFusedAdam = "void " + kNs + "multi_tensor_apply_kernel<" + kNs + "FusedOptimizerTensorListMetadata<4>, " + kNs +
                               "FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, float const*, double, double, "
                               "double, double, double, bool, float const*, float const*>(" + kNs + "FusedOptimizerTensorListMetadata<4>)";

TEST(LibraryWrites, ReadsTheListsAForeachKernelWrites) {
  TensorListLayout lerp = TensorListLayoutOf(kLerp);
  EXPECT_EQ(lerp.lists, 2);
  EXPECT_EQ(lerp.written, std::vector<int>{0});
  EXPECT_EQ(lerp.slots, 64);
  TensorListLayout adam = TensorListLayoutOf(kFusedAdam);
  EXPECT_EQ(adam.lists, 4);
  EXPECT_EQ(adam.slots, 36);
  EXPECT_EQ(adam.written, std::vector<int>{0});
  // An out-of-place foreach op (_foreach_add(a, b)) stores into its third list; a name that
  // says the 32 KB argument layout has 336 tensors a list at depth 3.
  TensorListLayout add = TensorListLayoutOf("void " + kNs + "multi_tensor_apply_kernel<" + kNs + "TensorListMetadata<3, true>, " +
                                            kNs + "BinaryOpListAlphaFunctor<float, 3, 2, 2>, std::plus<float>, float>()");
  EXPECT_EQ(add.written, std::vector<int>{2});
  EXPECT_EQ(add.slots, 336);
  // A reduction writes no list (its output is an argument of its own): nothing is claimed.
  EXPECT_EQ(TensorListLayoutOf("void " + kNs + "multi_tensor_apply_kernel<" + kNs + "TensorListMetadata<1>, " + kNs +
                               "LpNormFunctor<float, (at::native::NormType)1, float, float>, float*, int>()")
                .lists,
            0);
  EXPECT_EQ(TensorListLayoutOf("void at::native::vectorized_elementwise_kernel<4>()").lists, 0);
  EXPECT_EQ(TensorListLayoutOf("void " + kNs + "multi_tensor_apply_kernel<unbalanced").lists, 0);
}

// A slot is one of the launch's tensors only when every list holds an address there (the
// code fills them together). Past the launch's tensors the struct may hold old words that
// point into device memory (heldout6's fused AdamW had such words among its block indices):
// those are claimed by no one.
TEST(LibraryWrites, ASlotCountsOnlyWhereEveryListHoldsAnAddress) {
  // _foreach_lerp_: ema tensors at slots 0 and 1 of list 0 (bytes 0, 8); the parameters at
  // slot 0 of list 1 (byte 512) only, and a stray word at byte 3072.
  Trace t = Log().KernelAt(77, "[4096,8192,12288,16384]", "[0,8,512,3072]", kLerp).Convert();
  std::vector<int> kernels = testing::GpuOpsNamed(t, "at::native::multi_tensor_apply_kernel");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(KnownKernelWrites(t.scenario.ops[kernels[0]]), (std::vector<bool>{true, false, false, false}));
  // Offsets not recorded (an older recording): which list is unknown, nothing is claimed.
  Trace old = Log().Kernel(77, "[4096,8192]", 10000, kLerp).Convert();
  EXPECT_EQ(KnownKernelWrites(old.scenario.ops[kernels[0]]), (std::vector<bool>{false, false}));
}

// heldout6's r2plus1d_ema_side_stream: the fused AdamW step writes the parameters on one
// stream, an EMA's _foreach_lerp_ reads them on another with no wait. The optimizer's write is
// known, so the race is a warning; the same two launches sharing only a gradient (list 1 of
// the optimizer, which it does not store into) stay a note.
TEST(LibraryWrites, AFusedOptimizersParametersRacingAnEmaOnAnotherStreamIsAWarning) {
  // Lists of 36 (288 bytes): parameters 4096, 12288; gradients 20480, 28672; exp_avg and
  // exp_avg_sq 53248.. ; the EMA copies 36864, 45056 (the lerp's lists are 64 long: 512 bytes).
  const std::string adam_ptrs = "[4096,12288,20480,28672,53248,61440,69632,77824]";
  const std::string adam_at = "[0,8,288,296,576,584,864,872]";
  Trace race = Log().KernelAt(77, adam_ptrs, adam_at, kFusedAdam).KernelAt(88, "[36864,45056,4096,12288]", "[0,8,512,520]", kLerp).Convert();
  std::vector<Finding> races = Races(race);
  ASSERT_FALSE(races.empty());
  EXPECT_EQ(races[0].severity, Severity::kWarning);
  std::string text = FindingTexts::Load("en").Render(race, races[0]);
  EXPECT_NE(text.find("its library's code says it writes"), std::string::npos) << text;
  EXPECT_FALSE(FindingTexts::Load("zh").Render(race, races[0]).empty());
  // A saved trace keeps each argument's offset, so the race reads the same from it.
  Trace back = TraceFromJsonText(TraceToJson(race).dump(), "saved.json");
  std::vector<Finding> again = Races(back);
  ASSERT_EQ(again.size(), races.size());
  EXPECT_EQ(again[0].severity, Severity::kWarning);
  Trace grads = Log().KernelAt(77, adam_ptrs, adam_at, kFusedAdam).KernelAt(88, "[36864,20480]", "[0,512]", kLerp).Convert();
  std::vector<Finding> shared = Races(grads);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].severity, Severity::kNote);
}

}  // namespace
}  // namespace streamlab
