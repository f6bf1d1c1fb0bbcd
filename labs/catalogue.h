// The lab catalogue: every lab of the course, in week and order.
#pragma once

#include <string>
#include <vector>

#include "engine/classroom/lab.h"

namespace streamlab {

const std::vector<Lab>& AllLabs();
// Throws InputError naming the known labs when `id` is unknown.
const Lab& FindLab(const std::string& id);

// The GPUs a collective lab's variant runs on: 4 for a "-4gpu" variant, else 2 (what its
// variant_devices says too), for the labs' builders and claims.
int CollectiveLabGpus(const std::string& variant);

// One function per lab file.
Lab FifoVsStreamsLab();
Lab GpuIsFullLab();
Lab HostSyncScopesLab();
Lab TimingDoneRightLab();
Lab HardwareQueuesLab();
Lab PinnedVsPageableLab();
Lab EventVsWaitStreamLab();
Lab EventChainLab();
Lab WaitBeforeWorkLab();
Lab FanOutFanInLab();
Lab LegacyDefaultStallLab();
Lab ImplicitSyncZooLab();
Lab LazyLoadingLab();
Lab PriorityLab();
Lab MultiGpuBasicsLab();
Lab CommComputeOverlapLab();
Lab StragglerLab();
Lab CommPriorityLab();
Lab CopyComputePipelineLab();
Lab TrainingStepPipelineLab();
Lab MythCheckLab();
Lab NsysBridgeLab();
Lab RecordStreamHazardLab();
Lab ThreadPerStreamLab();
Lab GraphsLab();
Lab ActivationOffloadLab();
Lab PipelineBubblesLab();
Lab PrefetchWeightsLab();
Lab AutogradStreamsLab();

}  // namespace streamlab
