// A small builder so a lab reads like the CUDA program it models:
//   Stream s1 = b.CreateStream("s1");  s1.Launch("k1", Spin(Us(500)));
//   s1.Record(e1);  s2.Wait(e1);  b.Host().SyncDevice();
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

class ScenarioBuilder;

struct StreamOptions {
  bool non_blocking = false;
  int priority = 0;
  int device = 0;
};

// Kernel specs by kind. Spin kernels are the workhorse: each block runs for `per_block`.
KernelSpec Spin(TimeNs per_block, int grid = 4, int block = 128, int function_slot = 0);
KernelSpec Compute(int64_t fma_iterations, int grid, int block = 256);
KernelSpec MemoryStream(int64_t bytes_per_block, int grid, int block = 256);
KernelSpec Atomics(int64_t adds_per_thread, int grid, int block = 128);
KernelSpec SharedMemoryTiles(int64_t iterations, int grid, int block = 256);

class Event {
 public:
  int index() const { return index_; }

 private:
  friend class ScenarioBuilder;
  explicit Event(int index) : index_(index) {}
  int index_;
};

class Buffer {
 public:
  int index() const { return index_; }

 private:
  friend class ScenarioBuilder;
  explicit Buffer(int index) : index_(index) {}
  int index_;
};

class Stream {
 public:
  int index() const { return index_; }
  // Each returns the op id it appended.
  int Launch(const std::string& name, KernelSpec kernel, std::vector<Buffer> reads = {},
             std::vector<Buffer> writes = {});
  int Record(Event event);
  int Wait(Event event);             // cudaStreamWaitEvent(this, event)
  int WaitStream(Stream other);      // this.wait_stream(other)
  int Copy(const std::string& name, Buffer dst, Buffer src, uint64_t bytes);  // cudaMemcpyAsync
  int Memset(const std::string& name, Buffer dst, uint64_t bytes, int value = 0);
  int PeerCopy(const std::string& name, Buffer dst, Buffer src, uint64_t bytes);
  int Synchronize();                 // cudaStreamSynchronize(this), a host op

 private:
  friend class ScenarioBuilder;
  Stream(ScenarioBuilder* b, int index) : b_(b), index_(index) {}
  ScenarioBuilder* b_;
  int index_;
};

class Host {
 public:
  int SyncDevice();
  // cudaSetDevice(g) + cudaDeviceSynchronize() for every GPU of the scenario, in order: the end of
  // a multi-GPU program (cudaDeviceSynchronize waits for the current device only).
  void SyncEveryDevice();
  int SyncEvent(Event event);
  int Query(Event event);
  int Work(const std::string& name, TimeNs duration);
  int Malloc(Buffer buffer);
  int Free(Buffer buffer);
  int MallocHost(Buffer buffer);
  int SetDevice(int device);
  int Memcpy(const std::string& name, Buffer dst, Buffer src, uint64_t bytes);  // cudaMemcpy
  int Memset(const std::string& name, Buffer dst, uint64_t bytes, int value = 0);  // cudaMemset

 private:
  friend class ScenarioBuilder;
  explicit Host(ScenarioBuilder* b) : b_(b) {}
  ScenarioBuilder* b_;
};

class ScenarioBuilder {
 public:
  friend class Host;
  explicit ScenarioBuilder(std::string name, int device_count = 1);

  Stream CreateStream(const std::string& name, StreamOptions options = {});
  // Named "legacy" ("legacy1", ...) unless `name` says otherwise (PyTorch calls it the default stream).
  Stream LegacyDefaultStream(int device = 0, const std::string& name = "");
  // cudaStreamPerThread as seen by host thread `thread`.
  Stream PerThreadDefaultStream(int device = 0, int thread = 0);
  Event CreateEvent(const std::string& name, int device = 0);
  Buffer DeviceBuffer(const std::string& name, uint64_t bytes, int device = 0);
  Buffer PinnedBuffer(const std::string& name, uint64_t bytes);
  Buffer PageableBuffer(const std::string& name, uint64_t bytes);
  // A new tensor that gets the memory of `freed` back from a caching allocator.
  Buffer ReuseMemoryOf(const std::string& name, Buffer freed);
  // Model this buffer's contents and compare them with program order after the run.
  void CheckContents(Buffer buffer);
  // Ops appended from now on are called by host thread `thread` (0 = the main thread).
  void OnThread(int thread) { thread_ = thread; }
  // Ops appended between these are the nodes of one cudaGraphLaunch on `launch_stream`
  // (captured from those same calls before the run). Returns the launch op's id.
  int BeginGraph(Stream launch_stream, const std::string& name);
  void EndGraph();
  // One NCCL collective over the GPUs of `streams` (one stream per GPU), in place on each
  // GPU's buffer: ncclGroupStart, one call per rank, ncclGroupEnd. Part k is named
  // "<name>_gpu<device>". Returns the first part's op id.
  int Collective(const std::string& name, CollectiveKind kind, const std::vector<Stream>& streams,
                 const std::vector<Buffer>& buffers, uint64_t bytes);
  Host host() { return Host(this); }
  RunSettings& settings() { return scenario_.settings; }
  // The PyTorch program's hand-written body (Scenario::torch_source).
  void TorchSource(std::string python) { scenario_.torch_source = std::move(python); }

  int Append(Op op);
  // The legacy default stream of the host's current device, declared on first use.
  int LegacyStreamIndex();
  // Validates and returns the finished scenario.
  Scenario Build() const;

 private:
  Buffer AddBuffer(const std::string& name, MemoryKind kind, uint64_t bytes, int device);
  Stream AddStream(StreamDesc desc);
  Scenario scenario_;
  int current_device_ = 0;
  int thread_ = 0;
  int graph_ = -1;
};

}  // namespace streamlab
