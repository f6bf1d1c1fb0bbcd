// NCCL for the CUDA executor: one communicator per group of GPUs that a scenario's
// collectives use (ncclCommInitAll: one process drives every rank), and one rank's call.
// Built without NCCL, a scenario with collectives fails with a clear RunError.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

class NcclGroups {
 public:
  // Creates the communicators (before any measured call; this takes ~0.1-1 s per group).
  explicit NcclGroups(const Scenario& scenario);
  ~NcclGroups();
  NcclGroups(const NcclGroups&) = delete;
  NcclGroups& operator=(const NcclGroups&) = delete;

  void GroupStart();
  void GroupEnd();
  // Rank `op`'s call of its collective, in place on `buffer`, on `stream`.
  void Call(int op, void* buffer, cudaStream_t stream);
  // Makes every rank's kernel return: the watchdog's way out of a hung collective.
  void Abort();
  // "NCCL 2.28.9", for the trace's notes.
  std::string Version() const;

 private:
  struct Comms;
  const Scenario& s_;
  std::map<std::vector<int>, std::unique_ptr<Comms>> groups_;  // devices in rank order -> comms
};

// True if a scenario has any collective (only then is NCCL needed).
bool HasCollectives(const Scenario& scenario);

}  // namespace streamlab
