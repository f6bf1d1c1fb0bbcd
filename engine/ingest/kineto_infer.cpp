// Which record did a Kineto wait capture? Kineto names the waiting stream and the event
// (its cuda_sync record) but, on torch 2.11, not the record: wait_on_stream and
// wait_on_cuda_event_record_corr_id are -1. The record is taken to be the thread's latest
// cudaEventRecord before the wait (PyTorch's wait_stream and Event.record + wait_event make
// them in that order); its stream is Kineto's when given, else the stream whose work ended
// just before the waiting stream's next work started late. When nothing was held back, the
// stream cannot be told, and the record goes on an "unknown" stream with no work. Every
// such choice is written into the calls it concerns, in English and Chinese.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "engine/ingest/kineto.h"

namespace streamlab {
namespace {

constexpr uint64_t kHeldBackNs = 50'000;     // a start this much later than possible was held back
constexpr uint64_t kGpuReleaseNs = 15'000;   // an event releases a waiting stream within this
constexpr uint64_t kHostReleaseNs = 50'000;  // ... and a host thread blocked in a sync within this

struct GpuWork {
  int64_t stream;
  uint64_t submit, submitted, start, end;  // launch call begin and end, GPU start and end
  std::string name;
};

std::string Micro(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f us", static_cast<double>(ns) / 1000.0);
  return text;
}

class RecordInference {
 public:
  RecordInference(Recording& r, const std::vector<const KinetoSync*>& syncs) : r_(r), syncs_(syncs) {}

  void Run() {
    std::map<uint64_t, const RecordedCall*> call_of;  // correlation -> launch call
    for (const RecordedCall& c : r_.calls) call_of.emplace(c.correlation, &c);
    for (const RecordedActivity& a : r_.activity) {
      auto c = call_of.find(a.correlation);
      bool known = c != call_of.end();
      std::string name = a.type == "kernel" ? ShortKernelName(a.name) : a.type == "memcpy" ? "a copy" : "a memset";
      work_.push_back({a.stream_id, known ? c->second->begin : a.begin, known ? c->second->end : a.begin, a.begin, a.end,
                       name});
    }
    std::sort(work_.begin(), work_.end(), [](const GpuWork& a, const GpuWork& b) { return a.submit < b.submit; });
    for (size_t i = 0; i < r_.calls.size(); ++i)
      if (r_.calls[i].role == CallRole::kRecord) records_[r_.calls[i].thread].push_back(i);
    for (auto& [thread, list] : records_)
      std::sort(list.begin(), list.end(), [&](size_t a, size_t b) { return r_.calls[a].begin < r_.calls[b].begin; });
    std::vector<size_t> waits;
    for (size_t i = 0; i < r_.calls.size(); ++i)
      if ((r_.calls[i].role == CallRole::kWaitEvent || r_.calls[i].role == CallRole::kSyncEvent) && syncs_[i]) waits.push_back(i);
    std::sort(waits.begin(), waits.end(), [&](size_t a, size_t b) { return r_.calls[a].begin < r_.calls[b].begin; });
    for (size_t w : waits) Match(w);
    for (auto& [thread, list] : records_) {
      for (size_t i : list) {
        if (event_of_record_.count(i)) continue;
        r_.calls[i].role = CallRole::kOther;  // no wait or sync in the trace used it
        r_.calls[i].function += " (no wait or sync in the trace names its event)";
      }
    }
  }

 private:
  // The thread's latest record before `wait` that is free or already this event's.
  int FindRecord(const RecordedCall& wait, int64_t event_id, int64_t exact_corr) const {
    auto it = records_.find(wait.thread);
    if (exact_corr >= 0) {
      for (size_t i = 0; i < r_.calls.size(); ++i)
        if (r_.calls[i].role == CallRole::kRecord && static_cast<int64_t>(r_.calls[i].correlation) == exact_corr)
          return static_cast<int>(i);
    }
    if (it == records_.end()) return -1;
    for (auto at = it->second.rbegin(); at != it->second.rend(); ++at) {
      if (r_.calls[*at].begin > wait.begin) continue;
      auto owner = event_of_record_.find(*at);
      if (owner == event_of_record_.end() || owner->second == event_id) return static_cast<int>(*at);
    }
    return -1;
  }

  void Match(size_t w) {
    RecordedCall& wait = r_.calls[w];
    const KinetoSync& sync = *syncs_[w];
    if (sync.event_id < 0) return;
    int record = FindRecord(wait, sync.event_id, sync.record_corr);
    if (record < 0) {
      wait.role = CallRole::kOther;
      wait.function += " (the record it waits for is not in the trace)";
      return;
    }
    RecordedCall& rec = r_.calls[record];
    std::string event = "event " + KinetoEventName(sync.event_id);
    bool exact_record = sync.record_corr >= 0;
    std::string en = exact_record ? "" : "the trace does not say which cudaEventRecord " + event + " came from; the "
                                         "thread's last cudaEventRecord before this wait is taken as its record";
    std::string zh = exact_record ? "" : "trace 没有说明 " + event + " 来自哪一次 cudaEventRecord；这里取同一线程在等待之前的"
                                         "最后一次 cudaEventRecord";
    if (event_of_record_.count(static_cast<size_t>(record))) {
      // Already matched (one record, several waits): its stream was decided then.
    } else if (sync.wait_on_stream >= 0) {
      SetStream(rec, sync.wait_on_stream);
    } else {
      std::string why_en, why_zh;
      int64_t stream = StreamFromTiming(wait, rec, sync, why_en, why_zh);
      SetStream(rec, stream);
      en += (en.empty() ? "" : "; ") + why_en;
      zh += (zh.empty() ? "" : ";") + why_zh;
      rec.inferred = std::make_shared<const Inference>(Inference{en, zh});
    }
    rec.event = KinetoEventHandle(sync.event_id);
    event_of_record_[static_cast<size_t>(record)] = sync.event_id;
    if (!rec.inferred && !en.empty()) rec.inferred = std::make_shared<const Inference>(Inference{en, zh});
    wait.inferred = rec.inferred;
  }

  void SetStream(RecordedCall& rec, int64_t stream) {
    rec.stream_id = stream;
    rec.stream = stream == kUnknownStreamId ? 0x7fff0000 : KinetoStreamHandle(stream);
  }

  // The stream whose work ended just before the waiter was released late, or kUnknownStreamId.
  int64_t StreamFromTiming(const RecordedCall& wait, const RecordedCall& rec, const KinetoSync& sync, std::string& en,
                           std::string& zh) const {
    std::string event = "event " + KinetoEventName(sync.event_id);
    uint64_t released = 0, possible = 0, window = kGpuReleaseNs;
    std::string waiter;
    if (wait.role == CallRole::kSyncEvent) {
      released = wait.end;
      possible = wait.begin;
      window = kHostReleaseNs;
      waiter = "the host";
    } else {
      const GpuWork* next = nullptr;
      uint64_t previous_end = 0;
      for (const GpuWork& g : work_) {
        if (g.stream != sync.stream) continue;
        if (g.submit <= wait.begin) previous_end = std::max(previous_end, g.end);
        else if (!next) next = &g;
      }
      if (!next) {
        en = "no later work on " + KinetoStreamName(sync.stream) + " is in the trace, so where " + event +
             " was recorded cannot be told";
        zh = "trace 中 " + KinetoStreamName(sync.stream) + " 之后没有工作，无法判断 " + event + " 记录在哪个流上";
        return kUnknownStreamId;
      }
      released = next->start;
      possible = std::max(next->submitted, previous_end);
      waiter = "the next work on " + KinetoStreamName(sync.stream);
    }
    uint64_t late = released > possible ? released - possible : 0;
    if (late <= kHeldBackNs) {
      en = waiter + " went on " + Micro(late) + " after it could, so this wait held nothing back; the stream " + event +
           " was recorded on cannot be told";
      zh = (wait.role == CallRole::kSyncEvent ? std::string("主机") : KinetoStreamName(sync.stream) + " 的下一个工作") +
           "在可以开始后 " + Micro(late) + " 就开始了，这次等待没有拦住任何工作；" + event + " 记录在哪个流上无法判断";
      return kUnknownStreamId;
    }
    // Work submitted before the record that ended just before the release.
    const GpuWork* cause = nullptr;
    for (const GpuWork& g : work_) {
      if (g.submit >= rec.begin || g.stream == sync.stream || g.end > released + 2000 || g.end + window < released)
        continue;
      if (!cause || g.end > cause->end) cause = &g;
    }
    if (!cause) {
      en = waiter + " was held " + Micro(late) + ", but no work in the trace ended just before it went on; the stream " +
           event + " was recorded on cannot be told";
      zh = "等待方被拦住了 " + Micro(late) + "，但 trace 中没有工作恰在其之前结束；" + event + " 记录在哪个流上无法判断";
      return kUnknownStreamId;
    }
    std::string gap = Micro(released > cause->end ? released - cause->end : 0);
    en = "it was on " + KinetoStreamName(cause->stream) + ", because " + waiter + " was held " + Micro(late) +
         " and went on " + gap + " after " + cause->name.substr(0, 60) + " on that stream ended";
    zh = "它在 " + KinetoStreamName(cause->stream) + " 上：等待方被拦住 " + Micro(late) + "，并在该流上的 " +
         cause->name.substr(0, 60) + " 结束后 " + gap + " 继续";
    return cause->stream;
  }

  Recording& r_;
  const std::vector<const KinetoSync*>& syncs_;
  std::vector<GpuWork> work_;
  std::map<int, std::vector<size_t>> records_;
  std::map<size_t, int64_t> event_of_record_;
};

}  // namespace

void InferEventRecords(Recording& recording, const std::vector<const KinetoSync*>& syncs) {
  RecordInference(recording, syncs).Run();
}

}  // namespace streamlab
