// NVTX ranges logged as calls (nvtx_ranges.h).
#include "kernels/recorder/nvtx_ranges.h"

#include <generated_nvtx_meta.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "kernels/recorder/call_log.h"

namespace streamlab::recorder {

namespace {

// An NVTX range's name, without what torch.autograd.profiler.emit_nvtx() appends to each op's
// (", seq = 12, op_id = 40, sizes = [...]"): the op's name is what a finding names, and the
// rest would use up the record's 63 characters.
void CopyRangeName(char* out, size_t size, const char* message) {
  size_t n = std::strlen(message);
  for (const char* tail : {", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "})
    if (const char* at = std::strstr(message, tail)) n = std::min(n, static_cast<size_t>(at - message));
  n = std::min(n, size - 1);
  std::memcpy(out, message, n);
  out[n] = '\0';
}

}  // namespace

void OnNvtx(CUpti_CallbackId id, const CUpti_NvtxData* d) {
  CallRecord r;
  r.domain = 2;
  cuptiGetTimestamp(&r.begin);
  r.end = r.begin;
  r.function = d->functionName;
  if (id == CUPTI_CBID_NVTX_nvtxRangePushA) {
    const auto* p = static_cast<const nvtxRangePushA_params*>(d->functionParams);
    r.role = Role::kNvtxPush;
    if (p->message) CopyRangeName(r.text, sizeof(r.text), p->message);
  } else if (id == CUPTI_CBID_NVTX_nvtxRangePushEx) {
    const auto* p = static_cast<const nvtxRangePushEx_params*>(d->functionParams);
    r.role = Role::kNvtxPush;
    if (p->eventAttrib && p->eventAttrib->messageType == NVTX_MESSAGE_TYPE_ASCII && p->eventAttrib->message.ascii)
      CopyRangeName(r.text, sizeof(r.text), p->eventAttrib->message.ascii);
  } else if (id == CUPTI_CBID_NVTX_nvtxRangePop) {
    r.role = Role::kNvtxPop;
  } else {
    return;
  }
  Append(CurrentThreadLog(), r);
}

}  // namespace streamlab::recorder
