// NcclGroups: communicators per device group and the four collectives, each NCCL call
// checked. NCCL_NVLS_ENABLE=0 is set before the first communicator (NVLink SHARP needs
// multicast objects the GPU machines here do not lend).
#include "kernels/nccl_collectives.h"

#include <algorithm>
#include <cstdlib>

#include "engine/util/errors.h"

#if STREAMLAB_HAVE_NCCL
#include <nccl.h>
#endif

namespace streamlab {

bool HasCollectives(const Scenario& s) {
  return std::any_of(s.ops.begin(), s.ops.end(), [](const Op& op) { return op.kind == OpKind::kCollective; });
}

namespace {
std::vector<int> DevicesOf(const Scenario& s, int op) {
  std::vector<int> devices;
  for (int p : CollectiveParts(s, op)) devices.push_back(s.streams[s.ops[p].stream].device);
  return devices;
}
}  // namespace

#if STREAMLAB_HAVE_NCCL

namespace {
void CheckNccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess && r != ncclInProgress)
    throw RunError(std::string("NCCL: ") + what + " failed: " + ncclGetErrorString(r) +
                   (r == ncclSystemError || r == ncclUnhandledCudaError ? " (set NCCL_DEBUG=WARN for NCCL's own reason)" : ""));
}
}  // namespace

struct NcclGroups::Comms {
  std::vector<ncclComm_t> comms;
};

NcclGroups::NcclGroups(const Scenario& s) : s_(s) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);  // keep the caller's choice if it made one
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess) visible = 0;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const Op& op = s.ops[i];
    if (op.kind != OpKind::kCollective || op.collective_first != static_cast<int>(i)) continue;
    std::vector<int> devices = DevicesOf(s, static_cast<int>(i));
    if (groups_.count(devices)) continue;
    for (int d : devices)
      if (d >= visible) throw RunError("NCCL: a collective needs GPU " + std::to_string(d) + "; " + std::to_string(visible) + " here");
    auto comms = std::make_unique<Comms>();
    comms->comms.resize(devices.size());
    CheckNccl(ncclCommInitAll(comms->comms.data(), static_cast<int>(devices.size()), devices.data()), "ncclCommInitAll");
    groups_[devices] = std::move(comms);
  }
}

NcclGroups::~NcclGroups() {
  for (auto& [devices, c] : groups_)
    for (ncclComm_t comm : c->comms) (void)ncclCommDestroy(comm);
}

void NcclGroups::GroupStart() { CheckNccl(ncclGroupStart(), "ncclGroupStart"); }
void NcclGroups::GroupEnd() { CheckNccl(ncclGroupEnd(), "ncclGroupEnd"); }

void NcclGroups::Call(int index, void* buffer, cudaStream_t stream) {
  const Op& op = s_.ops[index];
  std::vector<int> parts = CollectiveParts(s_, index);
  size_t rank = static_cast<size_t>(std::find(parts.begin(), parts.end(), index) - parts.begin());
  ncclComm_t comm = groups_.at(DevicesOf(s_, index))->comms[rank];
  size_t n = parts.size(), floats = op.bytes / 4, chunk = floats / n;
  float* f = static_cast<float*>(buffer);
  char* c = static_cast<char*>(buffer);
  switch (op.collective) {
    case CollectiveKind::kAllReduce:
      return CheckNccl(ncclAllReduce(f, f, floats, ncclFloat, ncclSum, comm, stream), "ncclAllReduce");
    case CollectiveKind::kReduceScatter:  // in place: this rank's result is its own chunk
      return CheckNccl(ncclReduceScatter(f, f + rank * chunk, chunk, ncclFloat, ncclSum, comm, stream), "ncclReduceScatter");
    case CollectiveKind::kAllGather:  // in place: this rank's input is its own chunk
      return CheckNccl(ncclAllGather(c + rank * (op.bytes / n), c, op.bytes / n, ncclChar, comm, stream), "ncclAllGather");
    case CollectiveKind::kBroadcast:
      return CheckNccl(ncclBroadcast(c, c, op.bytes, ncclChar, 0, comm, stream), "ncclBroadcast");
  }
}

void NcclGroups::Abort() {
  for (auto& [devices, c] : groups_)
    for (ncclComm_t& comm : c->comms) {
      (void)ncclCommAbort(comm);
      comm = nullptr;
    }
  groups_.clear();
}

std::string NcclGroups::Version() const {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "NCCL (version unknown)";
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

#else  // built without NCCL

struct NcclGroups::Comms {};

NcclGroups::NcclGroups(const Scenario& s) : s_(s) {
  throw RunError("this streamlab-cli was built without NCCL, so its collectives cannot run on a GPU "
                 "(build with nccl.h and libnccl found, or use --backend sim)");
}
NcclGroups::~NcclGroups() = default;
void NcclGroups::GroupStart() {}
void NcclGroups::GroupEnd() {}
void NcclGroups::Call(int, void*, cudaStream_t) {}
void NcclGroups::Abort() {}
std::string NcclGroups::Version() const { return ""; }

#endif

}  // namespace streamlab
