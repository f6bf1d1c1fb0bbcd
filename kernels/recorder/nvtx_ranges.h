// NVTX ranges a program pushes and pops (torch.cuda.nvtx.range, emit_nvtx(), a C++ program's
// nvtxRangePushA), logged as calls: the conversion turns them into ranges on the host lanes.
#pragma once

#include <cupti.h>

namespace streamlab::recorder {

// Logs a range's push (with its name) or pop on the calling thread; other NVTX calls are not logged.
void OnNvtx(CUpti_CallbackId id, const CUpti_NvtxData* d);

}  // namespace streamlab::recorder
