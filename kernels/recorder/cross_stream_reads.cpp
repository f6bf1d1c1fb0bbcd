// The last copies' destinations per stream, and the check of a launch's addresses against
// them (cross_stream_reads.h). A small table under a mutex: copies are few next to launches,
// and a launch takes the lock only while a destination from another stream than its own is
// live (g_single_stream says when every live one is on one stream). Each stream keeps at most
// kPerStream: a stream's own stream of memsets (cuDNN's workspaces, dozens a step on the
// default stream) must not push out the one copy a side stream made a step ago.
#include "kernels/recorder/cross_stream_reads.h"

#include <atomic>
#include <mutex>

namespace streamlab::recorder {
namespace {

constexpr int kDestinations = 32;
constexpr int kPerStream = 8;
constexpr int kStacksPerCopy = 4;
constexpr uint64_t kMixed = ~uint64_t{0};

struct Destination {
  uint64_t begin = 0;
  uint64_t end = 0;  // 0: free
  uint64_t stream = 0;
  uint64_t noted = 0;  // when, in notes: the oldest is replaced first
  int stacks_left = 0;
};

std::mutex g_mutex;
Destination g_table[kDestinations];
uint64_t g_notes = 0;
std::atomic<int> g_live{0};
// The one stream every live destination was written on, or kMixed. A launch on that stream
// cannot read another stream's copy: it returns without the lock.
std::atomic<uint64_t> g_single_stream{0};

void Recount() {
  int live = 0;
  uint64_t single = 0;
  for (const Destination& d : g_table) {
    if (d.end == 0) continue;
    single = live++ == 0 ? d.stream : (single == d.stream ? single : kMixed);
  }
  g_live.store(live, std::memory_order_relaxed);
  g_single_stream.store(single, std::memory_order_relaxed);
}

// Where a new destination on `stream` goes: the stream's oldest once it holds kPerStream, else
// a free place, else the oldest of all.
Destination& PlaceFor(uint64_t stream) {
  Destination *own_oldest = nullptr, *free = nullptr, *oldest = &g_table[0];
  int own = 0;
  for (Destination& d : g_table) {
    if (d.end == 0) {
      free = free ? free : &d;
      continue;
    }
    if (d.noted < oldest->noted || oldest->end == 0) oldest = &d;
    if (d.stream != stream) continue;
    ++own;
    if (!own_oldest || d.noted < own_oldest->noted) own_oldest = &d;
  }
  if (own >= kPerStream) return *own_oldest;
  return free ? *free : *oldest;
}

}  // namespace

void NoteCopyDestination(uint64_t stream, uint64_t dst, uint64_t bytes) {
  if (dst == 0 || bytes == 0) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Destination& d : g_table)
    if (d.end != 0 && d.begin < dst + bytes && dst < d.end) d.end = 0;
  PlaceFor(stream) = {dst, dst + bytes, stream, ++g_notes, kStacksPerCopy};
  Recount();
}

bool ReadsAnotherStreamsCopy(uint64_t stream, const LaunchAddresses& launch) {
  if (launch.count == 0 || g_live.load(std::memory_order_relaxed) == 0) return false;
  if (g_single_stream.load(std::memory_order_relaxed) == stream) return false;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Destination& d : g_table) {
    if (d.end == 0 || d.stream == stream) continue;
    for (int i = 0; i < launch.count; ++i) {
      if (launch.at[i] < d.begin || launch.at[i] >= d.end) continue;
      if (--d.stacks_left <= 0) {
        d.end = 0;
        Recount();
      }
      return true;
    }
  }
  return false;
}

}  // namespace streamlab::recorder
