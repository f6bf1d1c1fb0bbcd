// The simulated GPU: a deterministic discrete-event model of one or more devices.
// Work arrives as SimItems (kernels, copies, zero-length markers for records/waits) with the
// dependencies the host-side rules gave them. The model adds what the hardware does:
// hardware queues that are FIFO across the streams mapped to them, a block scheduler that
// packs blocks onto SMs by priority then arrival (never preempting), and copy engines.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <vector>

#include "engine/sim/device_profile.h"
#include "engine/trace/trace.h"

namespace streamlab {

// Copy engines, plus the driver's module loader (lazy loading), modelled as one more engine.
enum class CopyEngine { kH2D = 0, kD2H = 1, kD2D = 2, kPeer = 3, kModuleLoad = 4 };
constexpr int kCopyEngineCount = 5;

struct SimItem {
  enum class Kind { kKernel, kCopy, kMarker };
  Kind kind = Kind::kMarker;
  int op = -1;
  int device = 0;
  int stream = -1;
  int queue = 0;            // hardware queue (connection) on the device; -1 = none (driver work)
  TimeNs visible_at = 0;    // when the GPU sees the submission
  std::vector<int> deps;    // items that must be done before this one starts
  // Kernels.
  int grid = 0;
  int threads = 0;
  TimeNs block_time = 0;
  int priority = 0;
  // A CUDA graph's node: the graph launch (its op) it belongs to, -1 if none. Its edges inside
  // the graph are resolved by the device, so a cross-stream dependency costs what a same-stream
  // one does (~1 us measured on an H200).
  int graph = -1;
  // A collective's part (a kernel whose blocks stay resident until the collective ends):
  // the group id (its first op), how many parts it has, and `transfer` = how long it runs
  // once the last part's blocks are all resident.
  int group = -1;
  int group_size = 0;
  std::vector<int> held_sms;
  // Copies.
  CopyEngine engine = CopyEngine::kH2D;
  TimeNs transfer = 0;
  // Results.
  bool done = false;
  TimeNs ready = -1;
  TimeNs start = -1;
  TimeNs end = -1;
  std::vector<BlockRecord> blocks;
  // Markers: for each stream, the latest end of the work this marker waited for.
  std::vector<std::pair<int, TimeNs>> reach;
  // Internal progress.
  int next_block = 0;
  int blocks_done = 0;
  int64_t launch_seq = 0;
};

class SimGpu {
 public:
  // `block_records`: how many per-block records a run keeps at most (the run is simulated whole).
  SimGpu(const DeviceProfile& profile, int device_count, int max_connections, size_t block_records);

  // Adds work; item.visible_at must not lie before Now(). Returns the item's index.
  int Submit(SimItem item);
  // Runs the model until `done()` holds; throws RunError if it never can.
  void RunUntil(const std::function<bool()>& done);
  // Processes everything that happens up to and including time t.
  void AdvanceTo(TimeNs t);
  // Processes the next instant that has events, if it is no later than t; false if none is.
  bool StepNoLaterThan(TimeNs t);
  TimeNs Now() const { return now_; }
  const SimItem& item(int index) const { return items_[index]; }
  bool DeviceIdle(int device) const { return devices_[device].outstanding == 0; }
  bool AllIdle() const;

 private:
  struct Sm {
    int threads = 0;
    int blocks = 0;
  };
  struct Device {
    std::vector<Sm> sms;
    std::vector<std::deque<int>> queues;
    std::vector<int> pending;  // launched kernels with blocks still to dispatch
    std::array<std::deque<int>, kCopyEngineCount> engine_queue;
    std::array<bool, kCopyEngineCount> engine_busy{};
    int outstanding = 0;
  };
  enum class EventKind { kWake, kBlockEnd, kCopyEnd };
  struct Timed {
    TimeNs time;
    int64_t seq;
    EventKind kind;
    int item;
    int sm;
    bool operator>(const Timed& o) const {
      return time != o.time ? time > o.time : seq > o.seq;
    }
  };

  void Push(TimeNs time, EventKind kind, int item, int sm = -1);
  void Step();
  void Schedule();
  bool DrainQueues(Device& device);
  bool DispatchBlocks(Device& device);
  bool StartCopies(Device& device);
  void Launch(int index);
  void Finish(int index);
  // Ends every part of collective `group` `transfer` from now if all its parts are resident.
  void TryStartCollective(int group);
  // When a dependency lets an item on `stream` go: work items add the same-stream or
  // cross-stream gap; markers pass through what they waited for.
  TimeNs ReleaseTime(int dep, const SimItem& item) const;
  void ComputeReach(SimItem& marker);

  const DeviceProfile& profile_;
  std::vector<Device> devices_;
  std::vector<SimItem> items_;
  std::map<int, std::vector<int>> groups_;  // collective group -> its parts' items
  std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> events_;
  std::set<TimeNs> wakes_;
  TimeNs now_ = 0;
  int64_t seq_ = 0;
  int64_t launches_ = 0;
  size_t block_records_ = 0;
  size_t max_block_records_ = 0;
};

}  // namespace streamlab
