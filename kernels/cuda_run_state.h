// The state of one CudaRun (internal to kernels/cuda_run*.cu): the scenario's streams,
// events and buffers, and the per-op probes (timing events, per-block record buffers).
// Setup and buffers live in cuda_run_setup.cu, op dispatch in cuda_run_ops.cu, the pass and
// its clock alignment in cuda_run.cu.
#pragma once

#include <chrono>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/sim/buffer_contents.h"
#include "engine/trace/trace.h"
#include "kernels/cuda_raii.h"
#include "kernels/cuda_run.h"
#include "kernels/device_kernels.cuh"
#include "kernels/nccl_collectives.h"

namespace streamlab {

constexpr int kMaxInstrumentedBlocks = 1 << 16;
constexpr size_t kScratchBytes = 64ull << 20;

inline int64_t HostNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The stream-ordered span of one op: a timing event on each side and, for kernels, a
// buffer of per-block records.
struct OpProbe {
  int device = -1;
  OwnedEvent ready;
  OwnedEvent done;
  OwnedEvent aux;  // wait_stream's internal event
  DeviceMemory timing;
  int blocks = 0;
  OwnedGraphExec graph;  // graph_launch: the instantiated graph of its nodes
};

// Bounds on the offset x in globaltimer = event_time + x, from spans measured both ways:
// the ready event fires before the first block starts, the done event after the last ends.
struct OffsetBounds {
  int64_t lo = std::numeric_limits<int64_t>::min();
  int64_t hi = std::numeric_limits<int64_t>::max();
  void AddReady(int64_t ready_e, int64_t start_g) { hi = std::min(hi, start_g - ready_e); }
  void AddDone(int64_t done_e, int64_t end_g) { lo = std::max(lo, end_g - done_e); }
  int64_t Mid() const { return lo / 2 + hi / 2; }
  // Half the feasible window; if the bounds cross (event resolution), their disagreement.
  int64_t Error() const { return (hi >= lo ? hi - lo : lo - hi) / 2 + 500; }
};

// One device's clock samples for a pass: a reference event, then short instrumented spins
// between pairs of events, so even a run without kernels can align event time with
// %globaltimer. Several samples, because each bounds the offset only to within its own event
// slack (a few us); the tightest bounds over all samples are kept.
struct CalibrationSamples {
  static constexpr int kCount = 8;
  OwnedEvent ref;
  std::vector<OwnedEvent> before, after;
  DeviceMemory timing;  // kCount block records
};

// What a pass read back, in each device's own clocks: event times from the reference event,
// per-block %globaltimer records, and the offset bounds they give.
struct PassReadings {
  std::vector<OffsetBounds> bounds;  // per device
  std::vector<std::vector<BlockTiming>> blocks;  // per op
  std::vector<bool> instrumented;
  std::vector<int64_t> ready_e, done_e;
};

struct CudaRun::State {
  const Scenario& s;
  TimeNs timeout;
  // Per host thread, as in CUDA: the runtime's current device (switched for each stream
  // op) and the device the scenario's set_device ops chose.
  static thread_local int current_device;
  static thread_local int host_device;
  std::vector<OwnedStream> owned_streams;
  std::vector<cudaStream_t> streams;
  std::vector<OwnedEvent> events;
  std::vector<void*> buffers;            // current pointer of each buffer (null = not allocated)
  std::vector<DeviceMemory> device_mem;  // owners of buffers allocated up front
  std::vector<PinnedMemory> pinned_mem;
  std::vector<PageableMemory> pageable_mem;
  std::vector<bool> allocated_by_op;     // buffers a malloc/malloc_host op owns this pass
  std::vector<DeviceMemory> scratch;     // per device, for kernels that name no buffer
  std::vector<OwnedStream> calibration_streams;
  PinnedMemory cancel_mem;
  volatile int* cancel = nullptr;
  // Test hook (tests/gpu/fault_paths.cpp): STREAMLAB_INJECT_FAULT=bad_launch makes the first
  // kernel launch invalid; =illegal_address makes it write through a bad pointer.
  std::string inject_fault;
  std::vector<bool> checked_storage;  // per buffer: spin kernels fill it (buffer_contents.h)
  std::unique_ptr<NcclGroups> nccl;   // only for scenarios with collectives

  State(const Scenario& scenario, TimeNs t) : s(scenario), timeout(t), checked_storage(CheckedStorage(scenario)) {
    if (const char* f = std::getenv("STREAMLAB_INJECT_FAULT")) inject_fault = f;
  }

  void ClearCancel() {
    for (int i = 0; i < kCancelInts; ++i) cancel[i] = 0;
  }

  void UseDevice(int device);
  void Setup();
  // Allocates every buffer that no malloc / malloc_host op allocates and that is not held
  // now (a free op in the last pass released it), zero-filled.
  void EnsureBuffers();
  // Frees what malloc / malloc_host ops allocated and did not free, so the next pass
  // starts from the same state.
  void ReleaseOpAllocations();
  void* BufferPtr(int index) const;
  // Each buffer's memory (aliases share their storage's pointer).
  std::vector<void*> StoragePointers() const;
  void ReleaseIfHeld(int buffer);

  // Op dispatch (cuda_run_ops.cu).
  KernelArgs KernelArgsFor(const Op& op, const OpProbe& probe) const;
  OpProbe MakeProbe(const Op& op);
  // A graph node: no timing events (a kernel's edges come from its block records).
  OpProbe MakeNodeProbe(const Op& op, OpProbe& probe);
  // wait_stream's internal event, and a kernel's per-block record buffer (zeroed).
  void AddAuxAndBlockRecords(const Op& op, OpProbe& probe);
  // Captures each graph_launch's nodes from its stream, instantiates and uploads the graph,
  // before the measured calls (as a program captures once, then replays).
  void CaptureGraphs(std::vector<OpProbe>& probes);
  // Issues op `i` with its real CUDA call; stamps the host time around the call only.
  void Issue(int i, OpProbe& probe, OpRecord& rec, int64_t origin);
  // The op's own CUDA call (`rec` is null while capturing a graph node).
  void Call(int i, OpProbe& probe, OpRecord* rec);
  // All parts of the collective whose first part is `first`: ready events on every rank's
  // stream, ncclGroupStart, one call per rank, ncclGroupEnd (which launches the kernels, so
  // the done events are recorded after it).
  void IssueCollective(int first, std::vector<OpProbe>& probes, Trace& trace, int64_t origin);
  // Issues every op of host thread `thread` in order; graph nodes go with their launch.
  void IssueThread(int thread, std::vector<OpProbe>& probes, Trace& trace, int64_t origin);
  // Runs each host thread's ops on its own std::thread (one thread runs inline); the first
  // failure is rethrown once all have stopped.
  void IssueAll(std::vector<OpProbe>& probes, Trace& trace, int64_t origin);

  // cuda_run.cu: the clock samples, issued and waited for before the ops.
  std::vector<CalibrationSamples> RecordCalibrationSamples();
  PassReadings ReadPass(const std::vector<OpProbe>& probes, std::vector<CalibrationSamples>& samples);
  // Each op's times on the trace's clock (the host's, from `origin`); returns the worst
  // alignment error and adds a note per device.
  TimeNs PlaceOnHostClock(const std::vector<OpProbe>& probes, const PassReadings& readings, int64_t origin,
                          Trace& trace);
};

}  // namespace streamlab
