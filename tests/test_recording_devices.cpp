// Programs that drive several GPUs from one process, and programs of many threads, recorded:
// a program that switches devices with cudaSetDevice and uses each device's legacy default
// stream (NVIDIA's simpleP2P: peer access, copies between the GPUs, a kernel on each) converts,
// with one legacy stream per device and each call on the stream of the device it was made on,
// whether the recorder logged each call's device or not (an older recorder did not), and even
// when CUPTI gives two devices' streams one id (its ids are unique only within a context).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/ingest/host_call_of_op.h"
#include "engine/ingest/recording.h"

namespace streamlab {
namespace {

// A recorder log written call by call on one clock; `with_devices`: each call says the device of
// its context ("dev"), as the recorder does since it records multi-GPU programs.
class DeviceLog {
 public:
  explicit DeviceLog(bool with_devices) : with_devices_(with_devices) {
    text_ = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":9,\"start\":0}\n";
  }
  // cudaSetDevice on `thread`: its later calls are made in that device's context.
  DeviceLog& SetDevice(int device, int thread = 0) {
    Call("cudaSetDevice", "set_device", ",\"value\":" + std::to_string(device), 400, thread);
    device_[thread] = device;
    return *this;
  }
  int Call(const std::string& fn, const std::string& role, const std::string& more, int ns = 1000, int thread = 0) {
    int corr = ++corr_;
    std::string dev = with_devices_ ? ",\"dev\":" + std::to_string(device_[thread]) : "";
    text_ += "{\"t\":\"call\",\"tid\":" + std::to_string(thread) + ",\"fn\":\"" + fn + "\",\"role\":\"" + role +
             "\",\"dom\":0,\"b\":" + std::to_string(now_) + ",\"e\":" + std::to_string(now_ + ns) + ",\"corr\":" +
             std::to_string(corr) + more + dev + "}\n";
    now_ += ns + 500;
    return corr;
  }
  // A GPU record of call `corr` on `device`'s stream `sid`, `ns` long, starting now.
  void Work(const std::string& type, int corr, int device, int sid, int ns, const std::string& more) {
    text_ += "{\"t\":\"" + type + "\",\"corr\":" + std::to_string(corr) + ",\"dev\":" + std::to_string(device) +
             ",\"sid\":" + std::to_string(sid) + ",\"b\":" + std::to_string(now_) + ",\"e\":" +
             std::to_string(now_ + ns) + more + "}\n";
    now_ += ns;
  }
  void Kernel(int device, int sid, int thread = 0) {
    Work("kernel", Call("cudaLaunchKernel", "launch", ",\"stream\":0", 3000, thread), device, sid, 20000,
         ",\"grid\":[64,1,1],\"block\":[512,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"_Z12SimpleKernelPfS_\"");
  }
  // cudaMemcpy (synchronous, on the legacy stream) of CUPTI copy kind `kind` between memory kinds.
  void Memcpy(int device, int sid, int kind, int src, int dst) {
    Work("memcpy", Call("cudaMemcpy", "memcpy", ",\"stream\":0,\"size\":65536", 30000), device, sid, 20000,
         ",\"bytes\":65536,\"copy\":" + std::to_string(kind) + ",\"src\":" + std::to_string(src) + ",\"dst\":" +
             std::to_string(dst));
  }
  // A reading of CUPTI's clock and the host's (several processes' logs are aligned by them).
  DeviceLog& Clock(uint64_t cupti, uint64_t host) {
    text_ += "{\"t\":\"clock\",\"cupti\":" + std::to_string(cupti) + ",\"host\":" + std::to_string(host) + ",\"err\":30}\n";
    return *this;
  }
  Recording Parse() const { return ParseRecording(text_, "two_gpus.jsonl"); }
  Trace Convert() const { return TraceFromRecording(Parse()); }

 private:
  bool with_devices_;
  std::string text_;
  std::map<int, int> device_;
  int corr_ = 0;
  long now_ = 1000;
};

constexpr int kPeer = 10, kHtoD = 1, kDtoH = 2;  // CUPTI's copy kinds
constexpr int kDevice = 3, kPinned = 2;           // CUPTI's memory kinds

// simpleP2P, call by call: peer access both ways, a buffer on each GPU, events and 4 ping-pong
// copies on GPU 1's legacy stream, an upload to GPU 0, a kernel on each GPU (each reading the
// other's buffer) with a device sync after it, cudaMemcpyPeerAsync on GPU 0's legacy stream, the
// download, peer access disabled. `ids`: the CUPTI ids of GPU 0's and GPU 1's legacy streams, and
// the one cuptiGetStreamIdEx gave GPU 1's when the events were recorded on it.
DeviceLog SimpleP2P(bool with_devices, int id0, int id1, int id1_events) {
  DeviceLog log(with_devices);
  log.SetDevice(0).Call("cudaDeviceEnablePeerAccess", "other", "", 40000);
  log.SetDevice(1).Call("cudaDeviceEnablePeerAccess", "other", "", 40000);
  log.SetDevice(0).Call("cudaMalloc", "malloc", ",\"size\":65536,\"out\":4096", 5000);
  log.SetDevice(1).Call("cudaMalloc", "malloc", ",\"size\":65536,\"out\":8192", 5000);
  log.Call("cudaMallocHost", "malloc_host", ",\"size\":65536,\"out\":12288", 5000);
  log.Call("cudaEventCreateWithFlags", "event_create", ",\"event\":501,\"flags\":1", 800);
  log.Call("cudaEventCreateWithFlags", "event_create", ",\"event\":502,\"flags\":1", 800);
  std::string events = ",\"stream\":0,\"sid\":" + std::to_string(id1_events);
  log.Call("cudaEventRecord", "record", events + ",\"event\":501", 900);
  for (int i = 0; i < 4; ++i) log.Memcpy(1, id1, kPeer, kDevice, kDevice);
  log.Call("cudaEventRecord", "record", events + ",\"event\":502", 900);
  log.Call("cudaEventSynchronize", "sync_event", ",\"event\":502", 2000);
  log.SetDevice(0).Memcpy(0, id0, kHtoD, kPinned, kDevice);
  log.SetDevice(1).Kernel(1, id1);
  log.Call("cudaDeviceSynchronize", "sync_device", "", 25000);
  log.SetDevice(0).Kernel(0, id0);
  log.Call("cudaDeviceSynchronize", "sync_device", "", 25000);
  int peer = log.Call("cudaMemcpyPeerAsync", "peer_copy", ",\"stream\":0,\"size\":65536,\"dst\":8192,\"src\":4096", 4000);
  log.Work("memcpy", peer, 0, id0, 20000, ",\"bytes\":65536,\"copy\":10,\"src\":3,\"dst\":3");
  log.Memcpy(0, id0, kDtoH, kDevice, kPinned);
  log.SetDevice(0).Call("cudaDeviceDisablePeerAccess", "other", "", 800);
  log.SetDevice(1).Call("cudaDeviceDisablePeerAccess", "other", "", 800);
  log.Call("cudaEventDestroy", "event_destroy", ",\"event\":501", 500);
  log.Call("cudaEventDestroy", "event_destroy", ",\"event\":502", 500);
  log.SetDevice(0).Call("cudaFree", "free", ",\"out\":4096", 3000);
  log.SetDevice(1).Call("cudaFree", "free", ",\"out\":8192", 3000);
  log.Call("cudaFreeHost", "free_host", ",\"out\":12288", 3000);
  return log;
}

// The legacy default streams of a trace: their devices, each once.
std::multiset<int> LegacyDevices(const Scenario& s) {
  std::multiset<int> devices;
  for (const StreamDesc& d : s.streams)
    if (d.kind == StreamKind::kLegacyDefault) devices.insert(d.device);
  return devices;
}

void ExpectEachCallOnItsDevice(const Trace& t) {
  const Scenario& s = t.scenario;
  EXPECT_NO_THROW(ValidateScenario(s));
  EXPECT_EQ(LegacyDevices(s), (std::multiset<int>{0, 1}));
  int kernels = 0, records = 0, peer_calls = 0, copies = 0;
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::kKernel) {
      // The kernel launched after cudaSetDevice(1) ran on GPU 1's stream, the next on GPU 0's.
      EXPECT_EQ(s.streams[op.stream].device, kernels == 0 ? 1 : 0);
      EXPECT_EQ(s.streams[op.stream].kind, StreamKind::kLegacyDefault);
      ++kernels;
    }
    if (op.kind == OpKind::kRecord) {
      EXPECT_EQ(s.streams[op.stream].device, 1) << "events are recorded on GPU 1's legacy stream";
      ++records;
    }
    if (op.kind == OpKind::kMemcpy) ++copies;
    if (op.kind == OpKind::kApiCall && HostCallKindOf(s, op) == HostCallKind::kPeerAccess) {
      EXPECT_GT(op.duration, 0);
      ++peer_calls;
    }
  }
  EXPECT_EQ(kernels, 2);
  EXPECT_EQ(records, 2);
  EXPECT_EQ(copies, 4 + 1 + 1 + 1);  // the ping-pong, the upload, the peer copy, the download
  EXPECT_EQ(peer_calls, 4);          // enabled and disabled both ways, the short ones too
}

TEST(RecordingDevices, TwoGpusLegacyStreamsAndPeerCopiesAsTheRecorderLogsThem) {
  // CUPTI's ids are per context: both legacy streams may be "7".
  ExpectEachCallOnItsDevice(SimpleP2P(true, 7, 7, 7).Convert());
  ExpectEachCallOnItsDevice(SimpleP2P(true, 7, 8, 8).Convert());
}

// Logged by a recorder that did not say each call's device: the thread's cudaSetDevice calls
// place them. The last case failed before ("streams[2]: a device has one legacy default
// stream"): the events' stream id ran no GPU work, so it was taken for GPU 0's legacy stream.
TEST(RecordingDevices, TwoGpusLoggedWithoutEachCallsDevice) {
  ExpectEachCallOnItsDevice(SimpleP2P(false, 7, 7, 7).Convert());
  ExpectEachCallOnItsDevice(SimpleP2P(false, 7, 8, 8).Convert());
  Trace t = SimpleP2P(false, 7, 8, 9).Convert();
  ExpectEachCallOnItsDevice(t);
  bool said = false;
  for (const TraceNote& note : t.notes) said |= note.text.find("legacy default stream") != std::string::npos;
  EXPECT_TRUE(said) << "the id joined to GPU 1's legacy stream is said";
}

// Two threads, each on its own GPU (cudaSetDevice per thread), each launching on the legacy
// stream and recording an event there: each thread's calls go to its own device's stream.
TEST(RecordingDevices, EachThreadUsesTheDeviceItSet) {
  for (bool with_devices : {true, false}) {
    DeviceLog log(with_devices);
    log.SetDevice(0, 0).SetDevice(1, 1);
    for (int round = 0; round < 2; ++round)
      for (int thread = 0; thread < 2; ++thread) {
        log.Kernel(thread, 7, thread);
        log.Call("cudaEventRecord", "record", ",\"stream\":0,\"sid\":7,\"event\":" + std::to_string(600 + thread), 900, thread);
        log.Call("cudaEventSynchronize", "sync_event", ",\"event\":" + std::to_string(600 + thread), 3000, thread);
      }
    Trace t = log.Convert();
    const Scenario& s = t.scenario;
    EXPECT_NO_THROW(ValidateScenario(s));
    EXPECT_EQ(LegacyDevices(s), (std::multiset<int>{0, 1})) << with_devices;
    for (const Op& op : s.ops) {
      if (op.kind == OpKind::kKernel || op.kind == OpKind::kRecord) {
        EXPECT_EQ(s.streams[op.stream].device, op.thread) << ToString(op.kind) << " of thread " << op.thread;
      }
    }
  }
}

// More host threads than a scenario has lanes for: the run still converts, the later threads
// share the last lane, and a note says so.
TEST(RecordingDevices, MoreThreadsThanLanesStillConvert) {
  DeviceLog log(true);
  for (int thread = 0; thread < 70; ++thread) log.Kernel(0, 7, thread);
  Trace t = log.Convert();
  EXPECT_NO_THROW(ValidateScenario(t.scenario));
  EXPECT_EQ(ThreadCount(t.scenario), 64);
  bool said = false;
  for (const TraceNote& note : t.notes) said |= note.text.find("6 host threads beyond the 64th") != std::string::npos;
  EXPECT_TRUE(said);
}

// A program that forks (a child that initialises CUDA itself writes its own log), beside a
// launcher that used CUDA but ran nothing, and a process whose host threads no longer fit in a
// trace's 64 lanes: the run converts, one lane group per process kept, and notes name the others.
TEST(RecordingDevices, AProgramThatForksKeepsEachProcess) {
  auto process = [](int threads, bool work) {
    DeviceLog log(true);
    log.Clock(1000, 1000);
    for (int thread = 0; thread < threads; ++thread) {
      if (work) log.Kernel(0, 7, thread);
      else log.Call("cudaGetDeviceCount", "other", "", 3000, thread);
    }
    return log.Clock(2000000, 2000000).Parse();
  };
  std::vector<Recording> logs{process(2, true), process(3, true), process(1, false), process(60, true)};
  for (int i = 0; i < 4; ++i) logs[i].pid = 100 + i;
  Trace t = TraceFromRecordings(std::move(logs));
  EXPECT_NO_THROW(ValidateScenario(t.scenario));
  EXPECT_EQ(t.scenario.processes, (std::vector<std::string>{"pid 100", "pid 101"}));
  std::string notes;
  for (const TraceNote& note : t.notes) notes += note.text + "\n";
  EXPECT_NE(notes.find("pid 102"), std::string::npos) << notes;  // ran nothing on a GPU
  EXPECT_NE(notes.find("pid 103"), std::string::npos) << notes;  // its 60 threads do not fit
}

}  // namespace
}  // namespace streamlab
