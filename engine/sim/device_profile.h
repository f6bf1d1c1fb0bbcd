// The numbers the simulator needs about a GPU and its host. The built-in default is the
// H200 measured in shared/GPU-FACTS.md; a JSON file can override any field.
#pragma once

#include <string>
#include <vector>

#include "engine/util/json_reader.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

// How far one figure moved between machine starts of the same GPU (in the figure's units):
// the host's call costs, pinning memory, pageable copies. The point figure is one start's.
struct FigureRange {
  std::string field;  // the profile's JSON key, e.g. "launch_host_ns"
  double low = 0, high = 0;
};

struct DeviceProfile {
  std::string name = "NVIDIA H200 (simulated, GPU-FACTS profile)";
  // Where a calibrated profile came from (empty for the built-in one).
  std::string device, driver, calibrated_at;
  // Figures that vary between machine starts, and the calibrations the ranges come from
  // (engine/sim/profile_ranges.h).
  std::vector<FigureRange> ranges;
  std::string ranges_from;
  // Streaming multiprocessors and what fits on one at a time.
  int sm_count = 132;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  // Host-side cost of API calls (time the host thread spends in the call).
  // cudaLaunchKernel / cudaMemcpyAsync submission, as StreamLab measures it on an H200
  // (the launch plus the *ready* timing event recorded before it: 8 us per op).
  TimeNs launch_host = Us(8);
  TimeNs record_host = Us(4);         // cudaEventRecord (with its two timing events: 4 us measured)
  TimeNs wait_host = Us(4);           // cudaStreamWaitEvent (likewise)
  TimeNs query_host = Us(0.5);        // cudaEventQuery
  TimeNs sync_wake = Us(3);           // a blocked sync returns this long after the GPU is done
  TimeNs memset_host = Us(9);         // cudaMemset (legacy stream) returns without waiting
  TimeNs malloc_base = Us(20);        // cudaMalloc: 161 us for 64 MB on the H200
  TimeNs malloc_per_mb = Ns(2200);
  TimeNs free_host = Us(40);          // cudaFree after its device-wide sync
  TimeNs malloc_host_base = Us(50);   // cudaMallocHost pins pages: 24-29 ms for 64 MB on the H200
  TimeNs malloc_host_per_mb = Us(400);
  // The CUDA guide lists page-locked allocation among calls that prevent concurrency; on the
  // H200, cudaMallocHost(8 MB) took 3.9 ms during a 10 ms kernel and did not wait for it.
  bool malloc_host_syncs_device = false;
  TimeNs set_device_host = Us(0.3);
  TimeNs graph_launch_host = Us(2);   // cudaGraphLaunch of an uploaded 11-node graph: 2.2 us on the H200 ...
  TimeNs graph_node_host = Ns(20);    // ... plus this per node
  // A program's host threads start one after another: each one's first call comes this
  // long after the previous thread's (std::thread start-up; 23-56 us apart on the H200 and
  // H100 machines here, in any order).
  TimeNs thread_spawn = Us(30);
  TimeNs module_load = Us(20);        // lazy loading of one function: GPU-side barrier time
  TimeNs module_load_host = Us(20);   // ... and the launch call's extra host time
  // GPU-side latencies.
  TimeNs submit_latency = Us(4);      // host call returns -> the GPU sees the work
  TimeNs same_stream_gap = Us(1);     // back-to-back ops on one stream
  TimeNs cross_stream_gap = Us(6);    // a dependency released by another stream / event
  // Between two nodes of one CUDA graph, timing events included as the labs record them
  // (calibrated; 0 in an older profile: same_stream_gap). A replayed program's graph has no
  // timing events (whatif, below).
  TimeNs graph_node_gap = Us(1);
  // Between one graph launch's last node and the next launch's first, queued on one stream:
  // 2.4-2.9 us on H100s and H200s against 0.7-0.8 us inside a graph (w3-graphs' replays, four
  // machine starts). Calibrated; 0 = graph_node_gap (as before this figure existed).
  TimeNs graph_launch_gap = Ns(2800);
  // A recorded program has no timing events between its ops: back-to-back kernels on a stream,
  // and back-to-back kernels of a CUDA graph, as a probe program measured them
  // (bench/replay_gaps.py). The replay uses them where the recording itself cannot tell
  // (0 = not measured: the gaps above).
  TimeNs replay_stream_gap = 0;
  TimeNs replay_graph_node_gap = 0;
  // The same graph's nodes ran 95 ns apart in some processes, where replay_graph_node_gap's
  // 256 ns came after the process had run other small kernels (100 in-place launches were
  // enough) and a few warm-up passes of the graph's own step were not
  // (bench/graph_node_gaps_pair.py). A fixed program's history is not in its trace: a graph a
  // what-if captures is predicted at both (0 = not measured: one figure).
  TimeNs replay_graph_node_gap_fast = 0;
  // CUPTI's kernel records lengthen each kernel on the GPU: a recorded graph node ran 126-284 ns
  // longer than the same node unrecorded, in 5 chains of 1-29 us kernels, and an eager kernel
  // queued behind another about as much (bench/tiny_kernel_modes.py). A graph a what-if captures
  // is predicted as it runs without the recorder, as its launch's host cost is: each captured
  // kernel at its recorded time less this, at least half of it (0 = not measured: as recorded).
  TimeNs recorded_kernel_gpu_cost = 0;
  // Copy engines and memory.
  double h2d_pinned_gbps = 54.8;
  double d2h_pinned_gbps = 54.8;
  double pageable_gbps = 6.4;         // staged by the host thread (6.3-6.6 GB/s measured here)
  // Device to pageable host, also staged: 12.9 GB/s for 8 MB on an H200 (w3-activation-offload).
  double pageable_d2h_gbps = 12.9;
  double d2d_gbps = 1500;
  double peer_gbps = 375;             // cudaMemcpyPeerAsync, NVLink between two H200s (measured)
  double memset_gbps = 2000;
  // NCCL collectives (ring, NVLink, NCCL_NVLS_ENABLE=0): one part takes
  // nccl_fixed + steps * nccl_step + bytes * bus factor / nccl_bus_gbps once every rank has
  // arrived (CollectiveSteps/CollectiveBusFactor), and holds nccl_channels blocks of
  // nccl_threads threads on SMs from its arrival to its end, which compute kernels cannot use.
  // Measured on two H200s (NVLink, NCCL 2.28.3) with bench/nccl_collectives.sh: all-reduce
  // of 64 MB 272 us and 256 MB 933 us (305 GB/s bus bandwidth, ~50 us fixed); 24 channels
  // (NCCL_DEBUG=INFO). nccl_step and nccl_threads are not measured (two GPUs cannot
  // separate the per-step latency from the fixed cost).
  double nccl_bus_gbps = 305;
  TimeNs nccl_fixed = Us(46);
  TimeNs nccl_step = Us(2);
  int nccl_channels = 24;
  int nccl_threads = 640;
  TimeNs nccl_launch_host = Us(10);  // one rank's ncclAllReduce inside the group (with its ready event)
  TimeNs nccl_group_host = Us(20);   // ncclGroupEnd, which launches every rank's kernel
  TimeNs copy_fixed = Us(2);
  // Kernel cost model for the non-spin kinds (per block).
  double compute_ns_per_fma = 2.0;    // one dependent FMA per thread per iteration
  double sm_memory_gbps = 36;         // HBM bandwidth / SM count
  // Measured on an H200 with w2-myth-check: two 4-block kernels adding to the same 32
  // addresses (20000 adds per thread: 1.95 ms, overlapped), and 43000 shared-memory
  // iterations per thread (one read, one write of the thread's own slot) in 505 us.
  double atomic_ns = 97.0;            // per atomic per thread, contended
  double shared_ns_per_iter = 11.7;
  int priority_greatest = -5;
  int priority_least = 0;
};

Json ProfileToJson(const DeviceProfile& profile);
// Fields not present keep their default. Throws InputError on a bad value.
DeviceProfile ProfileFromJson(const Json& json, const std::string& source);
DeviceProfile LoadProfileFile(const std::string& path);
// A profile by file path, or by the name of one shipped in assets/profiles ("h100",
// "h200"); empty: the built-in profile. Throws InputError naming the shipped ones.
DeviceProfile ResolveProfile(const std::string& name_or_path);
// The shipped profiles' names.
std::vector<std::string> ShippedProfiles();
// A numeric figure by its JSON key ("launch_host_ns"): its value, or false if there is none.
bool ProfileFigure(const DeviceProfile& profile, const std::string& key, double* value);
// Sets a numeric figure by its JSON key (rounded for integer figures); false if there is none.
bool SetProfileFigure(DeviceProfile& profile, const std::string& key, double value);

// How long one block of this kernel runs on this profile.
TimeNs BlockDuration(const DeviceProfile& profile, const KernelSpec& kernel);
// How long the copy engine needs for a transfer of `bytes` at `gbps`.
TimeNs TransferDuration(const DeviceProfile& profile, uint64_t bytes, double gbps);
// How long a collective runs once its last rank has arrived.
TimeNs CollectiveDuration(const DeviceProfile& profile, CollectiveKind kind, uint64_t bytes, int ranks);

}  // namespace streamlab
