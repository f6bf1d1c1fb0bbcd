// Which stream of the scenario each recorded use of a stream is. CUPTI numbers streams per
// context, so two GPUs' streams (their legacy default streams above all) can share an id: a
// recorded stream is a (device, CUPTI id). Its device comes from the GPU record; for a call, from
// the context the call was made in (the recorder's "dev") when it names the legacy or per-thread
// stream (handle 0, 1 or 2: the stream of the current device), else from what the stream's other
// uses said. A program that switches devices with cudaSetDevice uses each device's legacy stream
// through handle 0; each device has one, so a second id taken for it (a log that does not say a
// call's device) joins the first.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "engine/ingest/recording.h"
#include "engine/scenario/scenario.h"

namespace streamlab {

class RecordedStreams {
 public:
  // Streams are appended to `scenario` as they are first used.
  RecordedStreams(const Recording& recording, Scenario& scenario);
  // Reads what the log says of each stream id's device; `main_device`: the device with the most
  // GPU work, taken for a stream nothing places.
  void Index(int device_count, int main_device);

  // The stream of GPU record `a`, launched by call `c` on scenario thread `thread`.
  int OfWork(const RecordedActivity& a, const RecordedCall& c, int thread);
  // A graph replay's node that CUDA ran on a stream of the graph's own (the program made none).
  int OfGraphStream(const RecordedActivity& a, int thread);
  // The stream call `c` names; -1 when the log does not identify it.
  int OfCall(const RecordedCall& c, int thread);
  // A call made on `thread` (in time order): its context's device, or the device it set.
  void Follow(const RecordedCall& c, int thread);
  // The device `thread` uses now: the last one its calls were made on or set, else `fallback`.
  int DeviceOf(int thread, int fallback) const;
  // How many stream ids were joined to a device's one legacy stream (said in a note).
  size_t joined_legacy() const { return joined_legacy_; }

 private:
  using Key = std::pair<int, int64_t>;  // (device, CUPTI stream id)
  int Stream(int64_t sid, int device, uint64_t handle, bool per_thread, int thread);
  int DeviceOfId(int64_t sid) const;  // the one device id `sid` was seen on, -1 if none or several
  int HintOf(const RecordedCall& c, int thread) const;
  static bool Special(uint64_t handle);

  const Recording& r_;
  Scenario& s_;
  int device_count_ = 1, main_device_ = 0;
  std::map<int64_t, std::set<int>> devices_of_id_;            // CUPTI id -> the devices it was seen on
  std::map<int64_t, std::vector<const RecordedCall*>> created_;  // CUPTI id -> its create calls
  std::map<Key, int> stream_of_key_;
  std::map<std::pair<uint64_t, int>, int> stream_of_handle_;  // (handle, device of a special handle or -1)
  std::map<int, int> legacy_of_device_;
  std::map<int, int> device_of_thread_;
  std::set<int> python_threads_;
  size_t joined_legacy_ = 0;
};

}  // namespace streamlab
