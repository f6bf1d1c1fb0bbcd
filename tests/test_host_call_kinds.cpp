// The kinds of host calls (engine/ingest/host_call_kinds.h) the analysis splits the host's time
// inside CUDA into: every kind has its own name and reads back; the recorder's roles and call
// names map to the kind the account expects; a recorded call keeps its kind through the
// conversion (the trace's op says the same as the recorded call); and a loop that captures its
// graph again every iteration keeps every capture, update and destroy call, however short, as
// a host call with its duration.
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/ingest/host_call_kinds.h"
#include "engine/ingest/host_call_of_op.h"
#include "engine/ingest/recording.h"
#include "tests/recorder_log.h"

namespace streamlab {
namespace {

TEST(HostCallKinds, EveryKindHasItsOwnNameAndReadsBack) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kHostCallKindCount; ++i) {
    auto kind = static_cast<HostCallKind>(i);
    std::string_view name = HostCallKindName(kind);
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(ParseHostCallKind(name), kind) << name;
  }
  EXPECT_FALSE(ParseHostCallKind("graph").has_value());
  // The account's words (tests/corpus/README.md) for what a call held the host in.
  for (const char* word : {"launch", "blocking_launch", "sync", "pageable_copy", "allocation", "free", "graph_build",
                           "module_load", "context", "peer_access", "other"})
    EXPECT_TRUE(ParseHostCallKind(word).has_value()) << word;
}

TEST(HostCallKinds, CallNamesOfEveryVersionAndVariantHaveTheirKind) {
  struct Case {
    const char* name;
    HostCallKind kind;
  };
  const Case cases[] = {
      {"cudaStreamBeginCapture", HostCallKind::kGraphBuild}, {"cudaStreamBeginCapture_ptsz", HostCallKind::kGraphBuild},
      {"cuStreamBeginCapture_v2", HostCallKind::kGraphBuild}, {"cudaStreamEndCapture", HostCallKind::kGraphBuild},
      {"cudaGraphInstantiate_v12000", HostCallKind::kGraphBuild}, {"cudaGraphInstantiateWithFlags", HostCallKind::kGraphBuild},
      {"cudaGraphUpload_ptsz", HostCallKind::kGraphBuild}, {"cudaGraphExecUpdate", HostCallKind::kGraphBuild},
      {"cuGraphExecUpdate_v2", HostCallKind::kGraphBuild}, {"cudaGraphExecKernelNodeSetParams", HostCallKind::kGraphBuild},
      {"cudaGraphDestroy", HostCallKind::kGraphBuild}, {"cudaGraphExecDestroy", HostCallKind::kGraphBuild},
      {"cudaStreamUpdateCaptureDependencies", HostCallKind::kGraphBuild},
      {"cudaGraphGetNodes", HostCallKind::kOther}, {"cuGraphKernelNodeGetParams_v2", HostCallKind::kOther},
      {"cudaGraphLaunch", HostCallKind::kLaunch}, {"cuGraphLaunch_ptsz", HostCallKind::kLaunch},
      {"cudaGraphicsMapResources", HostCallKind::kOther}, {"cudaStreamGetCaptureInfo", HostCallKind::kOther},
      {"cudaStreamIsCapturing", HostCallKind::kOther}, {"cudaThreadExchangeStreamCaptureMode", HostCallKind::kOther},
      {"cudaLaunchKernel", HostCallKind::kLaunch}, {"cuLaunchKernelEx", HostCallKind::kLaunch},
      {"cudaLaunchHostFunc", HostCallKind::kLaunch}, {"cudaEventRecordWithFlags", HostCallKind::kLaunch},
      {"cudaStreamWaitEvent", HostCallKind::kLaunch}, {"cudaMemPrefetchAsync", HostCallKind::kLaunch},
      {"cudaMemcpyAsync", HostCallKind::kLaunch}, {"cudaMemcpyPeerAsync", HostCallKind::kLaunch},
      {"cuMemsetD32Async", HostCallKind::kLaunch}, {"cudaMemcpy", HostCallKind::kBlockingLaunch},
      {"cudaMemcpyPeer", HostCallKind::kBlockingLaunch}, {"cudaMemcpyToSymbol", HostCallKind::kBlockingLaunch},
      {"cuMemcpyHtoD_v2", HostCallKind::kBlockingLaunch}, {"cudaMemset", HostCallKind::kBlockingLaunch},
      {"cudaDeviceSynchronize", HostCallKind::kSync}, {"cuCtxSynchronize", HostCallKind::kSync},
      {"cudaStreamSynchronize", HostCallKind::kSync}, {"cudaEventSynchronize", HostCallKind::kSync},
      {"cudaDeviceEnablePeerAccess", HostCallKind::kPeerAccess}, {"cudaDeviceDisablePeerAccess", HostCallKind::kPeerAccess},
      {"cuCtxEnablePeerAccess", HostCallKind::kPeerAccess}, {"cudaIpcOpenMemHandle", HostCallKind::kPeerAccess},
      {"cudaDeviceCanAccessPeer", HostCallKind::kOther},
      {"cudaMalloc", HostCallKind::kAllocation}, {"cudaMallocAsync_ptsz", HostCallKind::kAllocation},
      {"cudaMallocManaged", HostCallKind::kAllocation}, {"cudaHostRegister", HostCallKind::kAllocation},
      {"cudaMemPoolCreate", HostCallKind::kAllocation}, {"cuMemCreate", HostCallKind::kAllocation},
      {"cudaFree", HostCallKind::kFree}, {"cudaFreeHost", HostCallKind::kFree}, {"cudaHostUnregister", HostCallKind::kFree},
      {"cudaMemPoolTrimTo", HostCallKind::kFree}, {"cuMemUnmap", HostCallKind::kFree}, {"cuMemRelease", HostCallKind::kFree},
      {"cudaMemGetInfo", HostCallKind::kOther}, {"cudaMemPoolGetAttribute", HostCallKind::kOther},
      {"cuModuleLoadData", HostCallKind::kModuleLoad}, {"cuLibraryLoadData", HostCallKind::kModuleLoad},
      {"cudaSetDevice", HostCallKind::kContext}, {"cudaDeviceReset", HostCallKind::kContext},
      {"cuDevicePrimaryCtxRetain", HostCallKind::kContext}, {"cuCtxSetCurrent", HostCallKind::kOther},
      {"cudaGetDevice", HostCallKind::kOther}, {"cudaGetDeviceProperties_v2", HostCallKind::kOther},
      {"cudaStreamCreateWithFlags", HostCallKind::kOther}, {"cudaEventDestroy", HostCallKind::kOther},
  };
  for (const Case& c : cases) EXPECT_EQ(HostCallKindOfName(c.name), c.kind) << c.name;
}

TEST(HostCallKinds, RolesSayWhatTheirCallsDo) {
  EXPECT_EQ(ClassifyHostCall(CallRole::kSyncStream, "cudaStreamSynchronize"), HostCallKind::kSync);
  EXPECT_EQ(ClassifyHostCall(CallRole::kBeginCapture, "cuStreamBeginCapture_v2"), HostCallKind::kGraphBuild);
  EXPECT_EQ(ClassifyHostCall(CallRole::kGraphEdit, "cudaGraphExecUpdate"), HostCallKind::kGraphBuild);
  EXPECT_EQ(ClassifyHostCall(CallRole::kMemcpyAsync, "cudaMemcpyAsync"), HostCallKind::kLaunch);
  EXPECT_EQ(ClassifyHostCall(CallRole::kMemcpyAsync, "cudaMemcpyAsync", true), HostCallKind::kPageableCopy);
  EXPECT_EQ(ClassifyHostCall(CallRole::kMemcpy, "cudaMemcpy"), HostCallKind::kBlockingLaunch);
  EXPECT_EQ(ClassifyHostCall(CallRole::kMemcpy, "cudaMemcpy", true), HostCallKind::kPageableCopy);
  EXPECT_EQ(ClassifyHostCall(CallRole::kLaunch, "cudaLaunchKernel", true), HostCallKind::kLaunch);  // not a copy
  EXPECT_EQ(ClassifyHostCall(CallRole::kOther, "cudaMemcpy2D", true), HostCallKind::kPageableCopy);
  EXPECT_EQ(ClassifyHostCall(CallRole::kOther, "cudaGraphInstantiate"), HostCallKind::kGraphBuild);
  EXPECT_EQ(ClassifyHostCall(CallRole::kMallocAsync, "cudaMallocAsync"), HostCallKind::kAllocation);
  EXPECT_EQ(ClassifyHostCall(CallRole::kFreeHost, "cudaFreeHost"), HostCallKind::kFree);
  EXPECT_EQ(ClassifyHostCall(CallRole::kSetDevice, "cudaSetDevice"), HostCallKind::kContext);
  EXPECT_EQ(ClassifyHostCall(CallRole::kModuleLoad, "module loaded"), HostCallKind::kModuleLoad);
  EXPECT_EQ(ClassifyHostCall(CallRole::kContextCreated, "context created"), HostCallKind::kContext);
  // A role that says no more than "a call" is read by its name.
  EXPECT_EQ(ClassifyHostCall(CallRole::kOther, "cudaDeviceEnablePeerAccess"), HostCallKind::kPeerAccess);
  EXPECT_EQ(ClassifyHostCall(CallRole::kOther, "cudaGetDeviceCount"), HostCallKind::kOther);
}

// One recorded call of each role that the conversion makes an op of, then the ops' kinds: each
// op of the trace says the kind its recorded call had (role + name), through the trace's own
// OpKind and name, so a saved trace read back says it too.
TEST(HostCallKinds, ARecordedCallKeepsItsKindInTheTrace) {
  testing::Log log;
  struct Made {
    std::string fn, role;
  };
  std::vector<Made> made;
  auto call = [&](const std::string& fn, const std::string& role, const std::string& more, int ns) {
    log.AnyCall(fn, role, more, ns);
    made.push_back({fn, role});
  };
  call("cudaMalloc", "malloc", ",\"size\":4096,\"out\":4096", 3000);
  call("cudaHostRegister", "host_register", ",\"out\":8192,\"size\":4096", 900);
  call("cudaStreamSynchronize", "sync_stream", ",\"stream\":77,\"sid\":13", 900);
  call("cudaDeviceSynchronize", "sync_device", "", 900);
  call("cudaEventCreateWithFlags", "event_create", ",\"event\":5,\"flags\":2", 600);
  call("cudaEventRecord", "record", ",\"stream\":77,\"sid\":13,\"event\":5", 600);
  call("cudaEventSynchronize", "sync_event", ",\"event\":5", 900);
  call("cudaEventDestroy", "event_destroy", ",\"event\":5", 500);
  call("cudaStreamBeginCapture", "begin_capture", ",\"stream\":88,\"sid\":14", 400);
  call("cudaStreamEndCapture", "end_capture", ",\"stream\":88,\"sid\":14", 400);
  call("cudaGraphInstantiate", "other", "", 25000);
  call("cudaGraphExecUpdate", "graph_edit", "", 1500);
  call("cudaGraphDestroy", "other", "", 700);  // short: the recorder keeps it for its kind
  call("cudaDeviceEnablePeerAccess", "other", "", 900);
  call("cudaSetDevice", "set_device", "", 400);
  call("cudaFree", "free", ",\"out\":4096", 2500);
  call("cudaFreeHost", "free_host", ",\"out\":8192", 700);
  log.Kernel(77, "[4096]");
  made.push_back({"cudaLaunchKernel", "launch"});
  Trace t = log.Convert();
  // Each recorded call above is an op, in order; its kind through the trace is the call's own.
  size_t next = 3;  // the Log's three stream creations come first
  for (const Made& m : made) {
    ASSERT_LT(next, t.scenario.ops.size()) << m.fn;
    const Op& op = t.scenario.ops[next++];
    HostCallKind recorded = ClassifyHostCall(*ParseCallRole(m.role), m.fn);
    EXPECT_EQ(HostCallKindOf(t.scenario, op), recorded) << m.fn << " became " << ToString(op.kind) << " " << op.name;
  }
  EXPECT_EQ(next, t.scenario.ops.size());
}

// A loop that captures its step into a new graph every iteration (what graph_recapture_loop.cu
// does): cudaStreamBeginCapture and cudaStreamEndCapture took 0.4-1 us on an H200, the update
// 1.5-2 us, the destroy under 1 us. Each is a host call of the trace with its duration, of kind
// graph_build, and so are the launches captured between them; the replays still run.
TEST(HostCallKinds, EveryCallOfAGraphCapturedEveryIterationIsAHostCall) {
  testing::Log log;
  const int iterations = 3;
  for (int it = 0; it < iterations; ++it) {
    uint64_t node = 10 * (it + 1);
    log.AnyCall("cudaStreamBeginCapture", "begin_capture", ",\"stream\":77,\"sid\":13", 450);
    log.CapturedKernel(77, "[4096]", node).CapturedKernel(77, "[4096]", node + 1);
    log.AnyCall("cudaStreamEndCapture", "end_capture", ",\"stream\":77,\"sid\":13", 380);
    if (it == 0) {
      log.SlowCall("cudaGraphInstantiate", 30000).Instantiate({node, node + 1});
    } else {
      log.ExecUpdate(500, {{1010, node}, {1011, node + 1}});
    }
    log.Replay(77, {{10, 77}, {11, 77}}, 500);
    log.SyncStream(77);
    log.AnyCall("cudaGraphDestroy", "other", "", 700);
  }
  Trace t = log.Convert();
  std::map<std::string, int> calls;
  for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind != OpKind::kApiCall) continue;
    ++calls[op.name];
    const OpRecord& rec = t.ops[i];
    EXPECT_EQ(op.duration, rec.ret - rec.submit) << op.name;
    EXPECT_GT(op.duration, 0) << op.name;
    if (op.name.rfind("cudaGraphLaunch", 0) != 0 && op.name.rfind("cudaStreamCreate", 0) != 0) {
      EXPECT_EQ(HostCallKindOf(t.scenario, op), HostCallKind::kGraphBuild) << op.name;
    }
  }
  EXPECT_EQ(calls["cudaStreamBeginCapture"], iterations);
  EXPECT_EQ(calls["cudaStreamEndCapture"], iterations);
  EXPECT_EQ(calls["cudaGraphExecUpdate"], iterations - 1);
  EXPECT_EQ(calls["cudaGraphInstantiate"], 1);
  EXPECT_EQ(calls["cudaGraphDestroy"], iterations);
  EXPECT_EQ(calls["cudaLaunchKernel" + std::string(kCapturedIntoGraph)], 2 * iterations);
  EXPECT_EQ(calls["cudaGraphLaunch"], iterations);
  // The begin call's duration is its own (0.45 us), not folded into the host's own work.
  for (const Op& op : t.scenario.ops) {
    if (op.name == "cudaStreamBeginCapture") {
      EXPECT_EQ(op.duration, 450);
    }
  }
  int kernels = 0;
  for (const Op& op : t.scenario.ops) kernels += op.kind == OpKind::kKernel;
  EXPECT_EQ(kernels, 2 * iterations);  // the replays' nodes; the captured launches ran nothing
}

// A short call of no role and no kind (a cudaGetDevice the recorder kept with
// STREAMLAB_RECORD_RUNTIME=all) is bookkeeping and stays out; one of a kind stays in.
TEST(HostCallKinds, OnlyShortCallsOfNoKindAreLeftOut) {
  testing::Log log;
  log.AnyCall("cudaGetDevice", "other", "", 300).AnyCall("cudaIpcGetMemHandle", "other", "", 300).Kernel(77, "[4096]");
  Trace t = log.Convert();
  std::set<std::string> names;
  for (const Op& op : t.scenario.ops) names.insert(op.name);
  EXPECT_FALSE(names.count("cudaGetDevice"));
  EXPECT_TRUE(names.count("cudaIpcGetMemHandle"));
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

// simpleAssert: its one kernel hits a device-side assert, and CUPTI could not time it (start and
// end 0). The run still converts: its calls are the trace, and a note says what was left out.
TEST(RecordingDevices, ARunWhoseOnlyKernelCuptiCouldNotTimeStillConverts) {
  testing::Log log;
  log.AnyCall("cudaLaunchKernel", "launch", ",\"stream\":77,\"sid\":13", 26000);
  log.Line(R"({"t":"kernel","corr":4,"dev":0,"sid":13,"b":0,"e":0,"grid":[2,1,1],"block":[32,1,1],"regs":32,"ssmem":0,"dsmem":0,"graph":0,"node":0,"name":"_Z10testKerneli"})");
  log.AnyCall("cudaDeviceSynchronize", "sync_device", ",\"status\":710", 5000);
  Trace t = log.Convert();
  EXPECT_FALSE(t.ops.empty());
  EXPECT_TRUE(std::any_of(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return n.key == "cupti_untimed"; }));
}

}  // namespace
}  // namespace streamlab
