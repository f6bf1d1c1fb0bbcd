// The discrete-event GPU model. See sim_gpu.h for the rules it follows.
#include "engine/sim/sim_gpu.h"

#include <algorithm>

#include "engine/util/errors.h"

namespace streamlab {
namespace {
}  // namespace

SimGpu::SimGpu(const DeviceProfile& profile, int device_count, int max_connections, size_t block_records)
    : profile_(profile), devices_(device_count), max_block_records_(block_records) {
  for (Device& d : devices_) {
    d.sms.resize(profile.sm_count);
    d.queues.resize(max_connections + 1);  // the last one holds driver work (module loads)
  }
}

bool SimGpu::AllIdle() const {
  for (const Device& d : devices_)
    if (d.outstanding) return false;
  return true;
}

int SimGpu::Submit(SimItem item) {
  if (item.visible_at < now_) throw RunError("simulator: work submitted in the past");
  int index = static_cast<int>(items_.size());
  Device& d = devices_[item.device];
  size_t queue = item.queue < 0 ? d.queues.size() - 1 : static_cast<size_t>(item.queue) % (d.queues.size() - 1);
  d.queues[queue].push_back(index);
  d.outstanding++;
  Push(item.visible_at, EventKind::kWake, index);
  if (item.group >= 0) groups_[item.group].push_back(index);
  items_.push_back(std::move(item));
  return index;
}

void SimGpu::Push(TimeNs time, EventKind kind, int item, int sm) {
  if (kind == EventKind::kWake && !wakes_.insert(time).second) return;
  events_.push({time, seq_++, kind, item, sm});
}

void SimGpu::RunUntil(const std::function<bool()>& done) {
  Schedule();
  while (!done()) {
    if (events_.empty()) throw RunError("simulator: the run can never finish (deadlock)");
    Step();
  }
}

void SimGpu::AdvanceTo(TimeNs t) {
  Schedule();
  while (!events_.empty() && events_.top().time <= t) Step();
  now_ = std::max(now_, t);
}

bool SimGpu::StepNoLaterThan(TimeNs t) {
  Schedule();
  if (events_.empty() || events_.top().time > t) return false;
  Step();
  return true;
}

void SimGpu::Step() {
  now_ = events_.top().time;
  wakes_.erase(wakes_.begin(), wakes_.upper_bound(now_));
  while (!events_.empty() && events_.top().time == now_) {
    Timed ev = events_.top();
    events_.pop();
    SimItem& it = items_[ev.item];
    if (ev.kind == EventKind::kBlockEnd) {
      Sm& sm = devices_[it.device].sms[ev.sm];
      sm.threads -= it.threads;
      sm.blocks -= 1;
      if (++it.blocks_done == it.grid) Finish(ev.item);
    } else if (ev.kind == EventKind::kCopyEnd) {
      devices_[it.device].engine_busy[static_cast<int>(it.engine)] = false;
      Finish(ev.item);
    }
  }
  Schedule();
}

void SimGpu::Finish(int index) {
  SimItem& it = items_[index];
  it.done = true;
  it.end = now_;
  devices_[it.device].outstanding--;
}

TimeNs SimGpu::ReleaseTime(int dep, const SimItem& item) const {
  const SimItem& d = items_[dep];
  const int stream = item.stream;
  // Both ends in one graph launch: the device resolves the edge. From one launch into the
  // next on a stream: the next launch's own start-up (calibrated where measured).
  bool graph_edge = d.graph >= 0;
  bool next_launch = d.graph >= 0 && item.graph >= 0 && d.graph != item.graph && profile_.graph_launch_gap > 0;
  TimeNs node_gap = profile_.graph_node_gap > 0 ? profile_.graph_node_gap : profile_.same_stream_gap;
  auto gap = [&](int from) {
    if (next_launch) return profile_.graph_launch_gap;
    if (graph_edge) return node_gap;
    return from == stream ? profile_.same_stream_gap : profile_.cross_stream_gap;
  };
  if (d.kind != SimItem::Kind::kMarker) return d.end + gap(d.stream);
  TimeNs release = d.end;
  for (const auto& [from, end] : d.reach) release = std::max(release, end + gap(from));
  return release;
}

// A marker remembers, per stream, the latest work it (transitively) waited for, so the
// release of a chain record -> wait -> kernel costs one cross-stream gap, not three.
void SimGpu::ComputeReach(SimItem& marker) {
  auto merge = [&](int stream, TimeNs end) {
    for (auto& [s, e] : marker.reach) {
      if (s == stream) {
        e = std::max(e, end);
        return;
      }
    }
    marker.reach.emplace_back(stream, end);
  };
  for (int dep : marker.deps) {
    const SimItem& d = items_[dep];
    if (d.kind != SimItem::Kind::kMarker) {
      merge(d.stream, d.end);
    } else {
      for (const auto& [s, e] : d.reach) merge(s, e);
    }
  }
}

void SimGpu::Schedule() {
  bool progress = true;
  while (progress) {
    progress = false;
    for (Device& d : devices_) {
      progress |= DrainQueues(d);
      progress |= DispatchBlocks(d);
      progress |= StartCopies(d);
    }
  }
}

// A hardware queue hands its head item on when the item is visible and its dependencies
// are released; until then it holds back everything behind it, whatever stream that is from.
bool SimGpu::DrainQueues(Device& d) {
  bool progress = false;
  for (std::deque<int>& q : d.queues) {
    while (!q.empty()) {
      const SimItem& it = items_[q.front()];
      if (it.visible_at > now_) break;
      bool deps_done = std::all_of(it.deps.begin(), it.deps.end(),
                                   [&](int dep) { return items_[dep].done; });
      if (!deps_done) break;
      TimeNs eligible = it.visible_at;
      if (it.kind != SimItem::Kind::kMarker)
        for (int dep : it.deps) eligible = std::max(eligible, ReleaseTime(dep, it));
      if (eligible > now_) {
        Push(eligible, EventKind::kWake, q.front());
        break;
      }
      Launch(q.front());
      q.pop_front();
      progress = true;
    }
  }
  return progress;
}

void SimGpu::Launch(int index) {
  SimItem& it = items_[index];
  Device& d = devices_[it.device];
  it.ready = now_;
  it.launch_seq = launches_++;
  switch (it.kind) {
    case SimItem::Kind::kMarker:
      // "ready" = the stream reached the marker; it completes when what it waits for is done.
      it.ready = it.visible_at;
      for (int dep : it.deps)
        if (items_[dep].stream == it.stream) it.ready = std::max(it.ready, items_[dep].end);
      it.ready = std::min(it.ready, now_);
      ComputeReach(it);
      it.start = now_;
      Finish(index);
      break;
    case SimItem::Kind::kKernel:
      d.pending.push_back(index);
      break;
    case SimItem::Kind::kCopy:
      d.engine_queue[static_cast<int>(it.engine)].push_back(index);
      break;
  }
}

// Pending blocks go to the least-loaded SM that has room, highest-priority kernel first,
// then in launch order. Running blocks are never preempted.
bool SimGpu::DispatchBlocks(Device& d) {
  if (d.pending.empty()) return false;
  std::stable_sort(d.pending.begin(), d.pending.end(), [&](int a, int b) {
    const SimItem& x = items_[a];
    const SimItem& y = items_[b];
    return x.priority != y.priority ? x.priority < y.priority : x.launch_seq < y.launch_seq;
  });
  bool progress = false;
  // The SMs by free threads, most first (the lowest index among equals): the least-loaded SM
  // with room is the first one the kernel fits. An SM it does not fit stays so while its blocks
  // are placed (placing blocks only takes room), so it leaves the heap: O(blocks log SMs) a kernel.
  auto less_room = [&](int a, int b) {
    int fa = profile_.max_threads_per_sm - d.sms[a].threads, fb = profile_.max_threads_per_sm - d.sms[b].threads;
    return fa != fb ? fa < fb : a > b;
  };
  std::vector<int> heap;
  for (int index : d.pending) {
    SimItem& k = items_[index];
    if (k.next_block >= k.grid) continue;
    heap.resize(d.sms.size());
    for (size_t s = 0; s < heap.size(); ++s) heap[s] = static_cast<int>(s);
    std::make_heap(heap.begin(), heap.end(), less_room);
    while (k.next_block < k.grid) {
      int best = -1;
      while (!heap.empty() && best < 0) {
        std::pop_heap(heap.begin(), heap.end(), less_room);
        int s = heap.back();
        heap.pop_back();
        const Sm& sm = d.sms[s];
        if (sm.blocks < profile_.max_blocks_per_sm && profile_.max_threads_per_sm - sm.threads >= k.threads) best = s;
      }
      if (best < 0) break;
      d.sms[best].threads += k.threads;
      d.sms[best].blocks += 1;
      if (k.start < 0) k.start = now_;
      if (k.group >= 0) {  // NCCL's blocks wait inside the kernel for the other ranks
        k.held_sms.push_back(best);
        k.next_block++;
        if (k.next_block == k.grid) TryStartCollective(k.group);
        progress = true;
        heap.push_back(best);
        std::push_heap(heap.begin(), heap.end(), less_room);
        continue;
      }
      if (block_records_ < max_block_records_) {
        k.blocks.push_back({k.next_block, best, now_, now_ + k.block_time});
        block_records_++;
      }
      Push(now_ + k.block_time, EventKind::kBlockEnd, index, best);
      k.next_block++;
      progress = true;
      heap.push_back(best);  // with less room now, it may still take another block
      std::push_heap(heap.begin(), heap.end(), less_room);
    }
  }
  std::erase_if(d.pending, [&](int i) { return items_[i].next_block == items_[i].grid; });
  return progress;
}

// The data moves once every rank is inside the collective: all parts end together.
void SimGpu::TryStartCollective(int group) {
  const std::vector<int>& parts = groups_[group];
  if (parts.empty() || static_cast<int>(parts.size()) < items_[parts.front()].group_size) return;
  for (int p : parts)
    if (items_[p].next_block < items_[p].grid) return;
  TimeNs end = now_ + items_[parts.front()].transfer;
  for (int p : parts)
    for (int sm : items_[p].held_sms) Push(end, EventKind::kBlockEnd, p, sm);
}

bool SimGpu::StartCopies(Device& d) {
  bool progress = false;
  for (int e = 0; e < kCopyEngineCount; ++e) {
    if (d.engine_busy[e] || d.engine_queue[e].empty()) continue;
    int index = d.engine_queue[e].front();
    d.engine_queue[e].pop_front();
    SimItem& it = items_[index];
    it.start = now_;
    d.engine_busy[e] = true;
    Push(now_ + it.transfer, EventKind::kCopyEnd, index);
    progress = true;
  }
  return progress;
}

}  // namespace streamlab
