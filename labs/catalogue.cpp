// The catalogue lists each lab once; labs live one per file under labs/weekN/.
#include "labs/catalogue.h"

#include <algorithm>

#include "engine/util/errors.h"

namespace streamlab {

const std::vector<Lab>& AllLabs() {
  static const std::vector<Lab> labs = [] {
    std::vector<Lab> all{FifoVsStreamsLab(),    GpuIsFullLab(),       HostSyncScopesLab(), TimingDoneRightLab(),
                         HardwareQueuesLab(),   PinnedVsPageableLab(), EventVsWaitStreamLab(),
                         EventChainLab(),       WaitBeforeWorkLab(),  FanOutFanInLab(),
                         LegacyDefaultStallLab(), ImplicitSyncZooLab(), LazyLoadingLab(),
                         MythCheckLab(),        PriorityLab(),        MultiGpuBasicsLab(),
                         NsysBridgeLab(),       CommComputeOverlapLab(), CopyComputePipelineLab(),
                         RecordStreamHazardLab(), ThreadPerStreamLab(), GraphsLab(),
                         TrainingStepPipelineLab(), StragglerLab(), CommPriorityLab(),
                         ActivationOffloadLab(), PipelineBubblesLab(), PrefetchWeightsLab(),
                         AutogradStreamsLab()};
    std::stable_sort(all.begin(), all.end(), [](const Lab& a, const Lab& b) {
      return a.week != b.week ? a.week < b.week : a.order < b.order;
    });
    return all;
  }();
  return labs;
}

const Lab& FindLab(const std::string& id) {
  for (const Lab& lab : AllLabs())
    if (lab.id == id) return lab;
  std::string known;
  for (const Lab& lab : AllLabs()) known += (known.empty() ? "" : ", ") + lab.id;
  throw InputError("unknown lab \"" + id + "\" (labs: " + known + ")");
}

int CollectiveLabGpus(const std::string& variant) { return variant.ends_with("-4gpu") ? 4 : 2; }

}  // namespace streamlab
