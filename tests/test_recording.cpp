// Recorded programs (streamlab-cli record) captured on an H100 (tests/fixtures/recorded/):
// each loads as a trace, and the finding it was written to show holds on it. Plus the raw
// log's parser (located errors, a cut-off last line) and the kernel-name and occupancy
// helpers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "tests/recorder_log.h"
#include "engine/trace/trace_json.h"
#include "engine/util/errors.h"
#include "engine/util/json_reader.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

Trace Fixture(const std::string& name) {
  return LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/" + name));
}

using testing::FindingsOfKind;
using testing::GpuOpsNamed;

int Count(const Analysis& a, FindingKind kind) { return static_cast<int>(FindingsOfKind(a, kind).size()); }

const Finding* DelayOf(const Analysis& a, int op) {
  for (const Finding& f : a.findings)
    if (f.kind == FindingKind::kStartDelay && f.op == op) return &f;
  return nullptr;
}

TEST(Recording, EveryFixtureLoadsAsARecordedTrace) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/recorded"))) {
    if (e.is_directory()) continue;  // several processes' logs, from H200s: test_recording_merge.cpp
    Trace t = LoadTraceFile(e.path().string());
    EXPECT_EQ(t.backend, "record") << e.path();
    EXPECT_TRUE(t.scenario.recorded) << e.path();
    EXPECT_EQ(t.device_name, "NVIDIA H100 80GB HBM3") << e.path();
    EXPECT_NO_THROW(ValidateScenario(t.scenario)) << e.path();
    EXPECT_NO_THROW(Analyze(t)) << e.path();
    ++n;
  }
  EXPECT_GE(n, 12);
}

// The recorder logs the device addresses among each launch's arguments: the examples whose
// point is a race show it, the ones written correctly do not (recorded on an H100).
TEST(Recording, RacesShowWhereTheExamplesHaveThem) {
  auto races = [](const Trace& t) { return testing::AnalyzedFindingsOfKind(t, FindingKind::kAddressRace); };
  // t.add_(1) on s1 and t * 2 on s2, nothing between them.
  Trace two = Fixture("one_tensor_two_streams.json");
  std::vector<Finding> r = races(two);
  ASSERT_EQ(r.size(), 1u);
  std::vector<int> elementwise = GpuOpsNamed(two, "at::native::vectorized_elementwise_kernel");
  ASSERT_GE(elementwise.size(), 2u);
  EXPECT_EQ(r[0].op, elementwise[elementwise.size() - 2]);  // t.add_(1)
  EXPECT_EQ(r[0].other, elementwise.back());                // t * 2
  EXPECT_NE(two.scenario.ops[r[0].op].stream, two.scenario.ops[r[0].other].stream);
  // record_stream keeps x's block from the main stream until the side stream is done; left
  // out, z = torch.zeros(...) gets x's address at once while the side stream still reads x.
  EXPECT_TRUE(races(Fixture("record_stream.json")).empty());
  Trace without = Fixture("record_stream_without.json");
  r = races(without);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(without.scenario.streams[without.scenario.ops[r[0].other].stream].kind, StreamKind::kLegacyDefault);
  // The raw log gives the same finding as the trace `record --out` wrote from it.
  Trace raw = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/record_stream_without.raw.jsonl"));
  std::vector<Finding> from_raw = races(raw);
  ASSERT_EQ(from_raw.size(), 1u);
  EXPECT_EQ(from_raw[0].address, r[0].address);
  // The same op (by when it was submitted: the trace was written by an older conversion, which
  // left out short calls the conversion now keeps, so op numbers differ).
  EXPECT_EQ(raw.ops[from_raw[0].op].submit, without.ops[r[0].op].submit);
  EXPECT_EQ(raw.scenario.ops[from_raw[0].op].name, without.scenario.ops[r[0].op].name);
  // The same under PyTorch's other allocators. Expandable segments map memory with cuMemMap
  // (no cudaMalloc), which the recorder follows too. The cudaMallocAsync backend frees x on
  // a stream of its own that waited for the side stream (record_stream) and hands x's memory
  // to z: that reuse orders z after the side stream's read, so only the program without
  // record_stream has the race.
  EXPECT_EQ(races(Fixture("one_tensor_two_streams_expandable.json")).size(), 1u);
  EXPECT_TRUE(races(Fixture("record_stream_async.json")).empty());
  EXPECT_EQ(races(Fixture("record_stream_without_async.json")).size(), 1u);
  // A prefetcher: correct as written; without the main stream's wait, each batch's copy
  // (a known write) races the GEMM handed that batch; without record_stream, a later copy
  // reuses a block the main stream may still read.
  EXPECT_TRUE(races(Fixture("prefetch_overlap.json")).empty());
  Trace no_wait = Fixture("prefetch_overlap_without_wait.json");
  r = races(no_wait);
  EXPECT_EQ(r.size(), 4u);
  for (const Finding& f : r) {
    EXPECT_EQ(f.severity, Severity::kWarning);
    EXPECT_NE(no_wait.scenario.ops[f.op].kind, no_wait.scenario.ops[f.other].kind);  // a copy and a kernel
  }
  r = races(Fixture("prefetch_overlap_without_record_stream.json"));
  EXPECT_EQ(r.size(), 2u);
  for (const Finding& f : r) EXPECT_EQ(f.severity, Severity::kWarning);
  // Two GEMMs on two streams read the same x and y: each address is a possible race only
  // (a note), since nothing says either kernel writes there.
  for (const Finding& f : races(Fixture("default_plus_side_stream.json"))) EXPECT_EQ(f.severity, Severity::kNote);
  // The correctly ordered examples have none.
  for (const char* name : {"event_chain.json", "fan_out_fan_in.json", "sync_scopes.json", "pageable_vs_pinned.json",
                           "wait_stream_before_work.json", "item_every_step.json", "launch_bound.json"})
    EXPECT_TRUE(races(Fixture(name)).empty()) << name;
}

TEST(Recording, WaitStreamBeforeWorkCapturedNothingAndKernelsRanInSubmissionOrder) {
  Trace t = Fixture("wait_stream_before_work.json");
  Analysis a = Analyze(t);
  EXPECT_EQ(Count(a, FindingKind::kWaitCapturedNothing), 2);  // b.wait_stream(a), c.wait_stream(b)
  std::vector<int> spins = GpuOpsNamed(t, "at::cuda::spin_kernel");
  ASSERT_GE(spins.size(), 3u);
  int c = spins[spins.size() - 3], b = spins[spins.size() - 2], x = spins.back();  // submitted c, b, a
  EXPECT_LT(t.ops[c].start, t.ops[b].start);
  EXPECT_LT(t.ops[b].start, t.ops[x].start);
  EXPECT_GT(OverlapFraction(t.ops[c], t.ops[x]), 0.9);  // nothing ordered them
}

TEST(Recording, EventChainEachStageWaitsForTheEventBeforeIt) {
  Trace t = Fixture("event_chain.json");
  Analysis a = Analyze(t);
  std::vector<int> spins = GpuOpsNamed(t, "at::cuda::spin_kernel");
  ASSERT_GE(spins.size(), 3u);
  int s1 = spins[spins.size() - 3], s2 = spins[spins.size() - 2], s3 = spins.back();
  EXPECT_GE(t.ops[s2].start, t.ops[s1].end);
  EXPECT_GE(t.ops[s3].start, t.ops[s2].end);
  for (auto [op, before] : {std::pair{s2, s1}, std::pair{s3, s2}}) {
    const Finding* f = DelayOf(a, op);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->cause, Cause::kEventWait);
    EXPECT_EQ(f->because, std::vector<int>{before});
  }
}

TEST(Recording, PageableNonBlockingCopyBlockedTheHost) {
  Trace t = Fixture("pageable_vs_pinned.json");
  Analysis a = Analyze(t);
  EXPECT_EQ(Count(a, FindingKind::kPageableAsyncCopy), 1);  // the pinned copy is not flagged
}

TEST(Recording, LegacyStreamBetweenBlockingStreamsSerialises) {
  for (const char* name : {"legacy_stall.json", "legacy_stall.raw.jsonl"}) {
    Trace t = Fixture(name);
    Analysis a = Analyze(t);
    int legacy = 0;
    for (const Finding& f : a.findings)
      legacy += f.kind == FindingKind::kStartDelay && f.cause == Cause::kLegacyBarrier;
    EXPECT_EQ(legacy, 2) << name;  // the legacy kernel after s1, s2's kernel after it
    std::vector<int> spins = GpuOpsNamed(t, "Spin");
    ASSERT_EQ(spins.size(), 6u) << name;
    EXPECT_GE(t.ops[spins[2]].start, t.ops[spins[1]].end) << name;
    EXPECT_GE(t.ops[spins[3]].start, t.ops[spins[2]].end) << name;
  }
}

TEST(Recording, ACrashedProgramStillLeavesItsWork) {
  Trace t = Fixture("crash_midway.json");
  EXPECT_NE(t.notes.front().text.find("killed by signal"), std::string::npos);
  EXPECT_GE(GpuOpsNamed(t, "at::cuda::spin_kernel").size(), 3u);  // warm-up + the two before abort()
}

TEST(Recording, StreamsKeepTheirKinds) {
  Trace t = Fixture("legacy_stall.json");
  int legacy = 0, blocking = 0;
  for (const StreamDesc& s : t.scenario.streams) {
    legacy += s.kind == StreamKind::kLegacyDefault;
    blocking += s.kind == StreamKind::kCreated && !s.non_blocking;
  }
  EXPECT_EQ(legacy, 1);
  EXPECT_EQ(blocking, 2);  // cudaStreamCreate gives blocking streams
  Trace torch = Fixture("event_chain.json");
  for (const StreamDesc& s : torch.scenario.streams) {
    if (s.kind == StreamKind::kCreated) {
      EXPECT_TRUE(s.non_blocking) << s.name;  // torch.cuda.Stream()
    }
  }
}

TEST(Recording, ExecutorsRefuseToReRunARecording) {
  Trace t = Fixture("event_chain.json");
  EXPECT_THROW(SimExecutor().Run(t.scenario, RunOptions{}), InputError);
}

TEST(Recording, MalformedLogsNameTheLine) {
  const std::string meta = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":1,\"start\":0}\n";
  try {
    ParseRecording(meta + "{\"t\":\"call\",\"tid\":0}\n{}\n", "x.jsonl");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.jsonl:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ParseRecording(meta + "not json\n{}\n", "x.jsonl"), InputError);
  EXPECT_THROW(ParseRecording("{\"t\":\"call\"}\n", "x.jsonl"), InputError);  // no meta line
  // A program killed mid-write leaves a cut-off last line: the rest is kept.
  Recording r = ParseRecording(meta + "{\"t\":\"thread\",\"tid\":0,\"os_tid\":5}\n{\"t\":\"ca", "x.jsonl");
  EXPECT_EQ(r.os_thread.at(0), 5);
  // Nothing but metadata: no GPU work, said plainly.
  EXPECT_THROW(TraceFromRecording(ParseRecording(meta, "x.jsonl")), InputError);
}

// A damaged log's times can be any 64-bit number: a call that ends centuries after the first
// one is refused by name, not summed into an overflowed "host blocked" (fuzz_recording found
// that sum overflowing).
TEST(Recording, TimesMoreThanADayApartAreRefused) {
  const std::string head =
      "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":1,\"start\":1}\n"
      "{\"t\":\"call\",\"tid\":0,\"fn\":\"cudaLaunchKernel\",\"role\":\"launch\",\"dom\":0,\"b\":1,\"e\":5,"
      "\"corr\":4,\"stream\":0}\n"
      "{\"t\":\"kernel\",\"corr\":4,\"dev\":0,\"sid\":7,\"b\":10,\"e\":20,\"grid\":[1,1,1],\"block\":[32,1,1],"
      "\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"graph\":0,\"name\":\"k\"}\n";
  auto sync_ending_at = [&](const std::string& end) {
    return head + "{\"t\":\"call\",\"tid\":0,\"fn\":\"cudaDeviceSynchronize\",\"role\":\"sync_device\",\"dom\":0,"
                  "\"b\":30,\"e\":" + end + ",\"corr\":8}\n";
  };
  EXPECT_NO_THROW(TraceFromRecording(ParseRecording(sync_ending_at("86400000000000"), "x.jsonl")));
  std::string error = testing::InputErrorOf(
      [&] { TraceFromRecording(ParseRecording(sync_ending_at("7590700108848722580"), "x.jsonl")); });
  EXPECT_NE(error.find("more than a day"), std::string::npos) << error;
  EXPECT_NE(error.find("7590700108848722580"), std::string::npos) << error;
  // CUPTI's own "no timestamp" (start and end 0) is not a time: that record is left out, said in
  // a note, and the rest of the run is explained.
  std::string untimed = head +
      "{\"t\":\"call\",\"tid\":0,\"fn\":\"cudaLaunchKernel\",\"role\":\"launch\",\"dom\":0,\"b\":30,\"e\":35,"
      "\"corr\":5,\"stream\":0}\n"
      "{\"t\":\"kernel\",\"corr\":5,\"dev\":0,\"sid\":7,\"b\":0,\"e\":0,\"grid\":[1,1,1],\"block\":[32,1,1],"
      "\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"graph\":0,\"name\":\"k\"}\n";
  Trace t = TraceFromRecording(ParseRecording(untimed, "x.jsonl"));
  EXPECT_TRUE(std::any_of(t.notes.begin(), t.notes.end(), [](const TraceNote& n) {
    return n.key == "cupti_untimed" && n.text.find("1 GPU records") != std::string::npos;
  }));
  EXPECT_EQ(std::count_if(t.ops.begin(), t.ops.end(), [](const OpRecord& r) { return r.gpu; }), 1);
}

// Two GPUs each copy from pageable host memory (as a program that drives both from one
// process does): host memory is one buffer, GPU memory one per device, and the scenario is
// valid (it used to name two "pageable host memory" buffers and fail to load).
TEST(Recording, CopiesOnTwoGpusShareOneHostBuffer) {
  std::string log = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
  for (int dev = 0; dev < 2; ++dev) {
    std::string corr = std::to_string(dev + 1), sid = std::to_string(10 + dev), t0 = std::to_string(1000 + dev * 10000);
    log += "{\"t\":\"call\",\"tid\":0,\"fn\":\"cudaMemcpy\",\"role\":\"memcpy\",\"dom\":0,\"b\":" + t0 + ",\"e\":" +
           std::to_string(9000 + dev * 10000) + ",\"corr\":" + corr + ",\"stream\":0}\n";
    log += "{\"t\":\"memcpy\",\"corr\":" + corr + ",\"dev\":" + std::to_string(dev) + ",\"sid\":" + sid + ",\"b\":" +
           std::to_string(2000 + dev * 10000) + ",\"e\":" + std::to_string(8000 + dev * 10000) +
           ",\"bytes\":4096,\"copy\":1,\"src\":1,\"dst\":3}\n";  // HtoD, pageable -> device
  }
  Trace t = TraceFromRecording(ParseRecording(log, "two_gpus.jsonl"));
  EXPECT_NO_THROW(ValidateScenario(t.scenario));
  std::vector<std::string> names;
  for (const BufferDesc& b : t.scenario.buffers) names.push_back(b.name);
  EXPECT_EQ(std::count(names.begin(), names.end(), "pageable host memory"), 1) << names.size();
  EXPECT_EQ(std::count(names.begin(), names.end(), "GPU 1 memory"), 1);
}

// A log written with --capture-range cudaProfilerApi: the stream was created before the range
// (its kind still counts), one kernel ran before it and one after (neither was recorded by the
// library, but a log may still hold them: they are left out), and the wait inside the range
// is on an event recorded before it, which is said to be unknown rather than "captured nothing".
TEST(Recording, ACaptureRangeKeepsOnlyItsOwnCalls) {
  auto call = [](const std::string& fn, const std::string& role, int b, int e, int corr, const std::string& more) {
    return "{\"t\":\"call\",\"tid\":0,\"fn\":\"" + fn + "\",\"role\":\"" + role + "\",\"dom\":0,\"b\":" +
           std::to_string(b) + ",\"e\":" + std::to_string(e) + ",\"corr\":" + std::to_string(corr) + more + "}\n";
  };
  auto kernel = [](int corr, int b, int e) {
    return "{\"t\":\"kernel\",\"corr\":" + std::to_string(corr) + ",\"dev\":0,\"sid\":13,\"b\":" + std::to_string(b) +
           ",\"e\":" + std::to_string(e) +
           ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"graph\":0,\"name\":\"_Z1kv\"}\n";
  };
  std::string log = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
  log += call("cudaStreamCreateWithFlags", "stream_create", 1000, 2000, 1, ",\"stream\":77,\"sid\":13,\"flags\":1");
  log += call("cudaLaunchKernel", "launch", 3000, 4000, 2, ",\"stream\":77") + kernel(2, 5000, 6000);
  log += call("cudaProfilerStart", "capture_start", 100000, 100000, 0, "");
  log += call("cudaStreamWaitEvent", "wait_event", 101000, 102000, 3, ",\"stream\":77,\"sid\":13,\"event\":55");
  log += call("cudaLaunchKernel", "launch", 103000, 104000, 4, ",\"stream\":77") + kernel(4, 105000, 115000);
  log += call("cudaProfilerStop", "capture_stop", 120000, 120000, 0, "");
  log += call("cudaLaunchKernel", "launch", 130000, 131000, 5, ",\"stream\":77") + kernel(5, 132000, 133000);
  Trace t = TraceFromRecording(ParseRecording(log, "range.jsonl"));
  ASSERT_EQ(t.scenario.ops.size(), 2u);  // the wait and the kernel inside the range
  EXPECT_EQ(t.scenario.ops[0].kind, OpKind::kWaitEvent);
  EXPECT_NE(t.ops[0].inferred.find("before the capture range"), std::string::npos);
  EXPECT_FALSE(t.ops[0].inferred_zh.empty());
  EXPECT_EQ(t.scenario.ops[1].kind, OpKind::kKernel);
  EXPECT_EQ(t.ops[1].start, 105000 - 101000);  // time starts with the range's first call
  EXPECT_TRUE(t.scenario.streams[t.scenario.ops[1].stream].non_blocking);  // created before the range
  bool noted = false;
  for (const TraceNote& n : t.notes) noted |= n.text.find("only between cudaProfilerStart and cudaProfilerStop") != std::string::npos;
  EXPECT_TRUE(noted);
  Analysis a = Analyze(t);
  EXPECT_EQ(Count(a, FindingKind::kWaitCapturedNothing), 0);
}

// A capture range's slow first launch (H100: 6.05 ms, CUPTI switching GPU activity recording on
// or the kernel's first launch), and another thread's launch made meanwhile, which waited for it
// (6.16 ms): both are said as inferred, and the GPU idle time behind them is said as the
// range's slow start, not as a blocking call to move out of the loop. A slow launch later is not.
TEST(Recording, TheRangesSlowFirstLaunchesAreSaidAsInferred) {
  auto call = [](int tid, const std::string& fn, const std::string& role, int b, int e, int corr, const std::string& more) {
    return "{\"t\":\"call\",\"tid\":" + std::to_string(tid) + ",\"fn\":\"" + fn + "\",\"role\":\"" + role +
           "\",\"dom\":0,\"b\":" + std::to_string(b) + ",\"e\":" + std::to_string(e) + ",\"corr\":" +
           std::to_string(corr) + more + "}\n";
  };
  auto launch = [&](int tid, int corr, int b, int e, int start, int end) {
    return call(tid, "cudaLaunchKernel", "launch", b, e, corr, ",\"stream\":77") + "{\"t\":\"kernel\",\"corr\":" +
           std::to_string(corr) + ",\"dev\":0,\"sid\":13,\"b\":" + std::to_string(start) + ",\"e\":" +
           std::to_string(end) + ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"_Z1kv\"}\n";
  };
  std::string log = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
  log += call(0, "cudaStreamCreateWithFlags", "stream_create", 1000, 2000, 1, ",\"stream\":77,\"sid\":13,\"flags\":1");
  log += call(0, "cudaProfilerStart", "capture_start", 100000, 100000, 0, "");
  log += launch(1, 2, 101000, 102000, 103000, 110000);            // thread 1's first launch: quick
  log += launch(0, 3, 111000, 6111000, 6112000, 6120000);         // thread 0's first: CUPTI starting
  log += launch(1, 4, 112000, 6115000, 6116000, 6125000);         // thread 1, meanwhile: waited for it
  log += launch(1, 5, 7000000, 7600000, 7601000, 7610000);        // thread 1 later: slow on its own
  Trace t = TraceFromRecording(ParseRecording(log, "switch_on.jsonl"));
  ASSERT_EQ(t.scenario.ops.size(), 4u);
  EXPECT_FALSE(t.ops[0].slow_range_start);
  EXPECT_TRUE(t.ops[1].slow_range_start);
  EXPECT_NE(t.ops[1].inferred.find("first launch of the capture range"), std::string::npos) << t.ops[1].inferred;
  EXPECT_TRUE(t.ops[2].slow_range_start);
  EXPECT_NE(t.ops[2].inferred.find("another thread's slow first launch"), std::string::npos) << t.ops[2].inferred;
  EXPECT_FALSE(t.ops[2].inferred_zh.empty());
  EXPECT_FALSE(t.ops[3].slow_range_start);
  EXPECT_TRUE(t.ops[3].inferred.empty());
  Trace saved = TraceFromJsonText(TraceToJson(t).dump(), "saved.json");
  EXPECT_TRUE(saved.ops[1].slow_range_start);
  EXPECT_FALSE(saved.ops[3].slow_range_start);
  Analysis a = Analyze(t);
  TimeNs recorder = a.figures.idle_by_cause[static_cast<int>(IdleCause::kRangeStart)];
  EXPECT_GT(recorder, Ms(5));
  EXPECT_EQ(a.figures.idle_by_cause[static_cast<int>(IdleCause::kHostCall)], 0);
  bool said = false;
  for (const Finding* f : FindingsOfKind(a, FindingKind::kGpuIdle)) said |= f->idle == IdleCause::kRangeStart;
  EXPECT_TRUE(said);
}

// A call that blocked one host thread did not hold another thread's submissions: the later
// launch is said to be submitted late only after a slow call of its own thread.
TEST(Recording, ABlockingCallHoldsOnlyItsOwnThread) {
  auto log_with = [](int slow_thread) {
    std::string log = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
    auto launch = [&](int tid, int corr, int b, int e, int start) {
      log += "{\"t\":\"call\",\"tid\":" + std::to_string(tid) + ",\"fn\":\"cudaLaunchKernel\",\"role\":\"launch\"," +
             "\"dom\":0,\"b\":" + std::to_string(b) + ",\"e\":" + std::to_string(e) + ",\"corr\":" +
             std::to_string(corr) + ",\"stream\":0}\n{\"t\":\"kernel\",\"corr\":" + std::to_string(corr) +
             ",\"dev\":0,\"sid\":7,\"b\":" + std::to_string(start) + ",\"e\":" + std::to_string(start + 5000) +
             ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"name\":\"_Z1kv\"}\n";
    };
    launch(0, 1, 1000, 2000, 3000);
    launch(slow_thread, 2, 10000, 5010000, 20000);  // a launch call that blocked 5 ms
    launch(0, 3, 5015000, 5016000, 5030000);        // thread 0, right after it returned
    return TraceFromRecording(ParseRecording(log, "threads.jsonl"));
  };
  auto held_by_slow_call = [](const Trace& t) {
    Analysis a = Analyze(t);
    for (const Finding* f : FindingsOfKind(a, FindingKind::kStartDelay))
      if (f->cause == Cause::kHostLate && f->op == 2) return true;
    return false;
  };
  EXPECT_TRUE(held_by_slow_call(log_with(0)));
  EXPECT_FALSE(held_by_slow_call(log_with(1)));
}

// The call that held the host was a kernel's launch: the text names it as a launch, not by the
// kernel's name alone ("blocked in _Z1kv and only then submitted _Z1kv" read as if a kernel
// waited for itself). graph_exec_update.cu's first Fill loaded its module (130 us, H100).
TEST(Recording, AHostLateDelayNamesTheLaunchThatHeldTheHost) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/graph_exec_update.raw.jsonl"));
  Analysis a = Analyze(t);
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  int said = 0;
  for (const Finding* f : FindingsOfKind(a, FindingKind::kStartDelay)) {
    if (f->cause != Cause::kHostLate || t.scenario.ops[f->op].name != "Fill") continue;
    std::string text = en.Render(t, *f);
    EXPECT_EQ(text.find("in Fill and only then"), std::string::npos) << text;
    if (text.find("in an earlier launch of Fill and only then submitted Fill") == std::string::npos) continue;
    ++said;
    EXPECT_NE(zh.Render(t, *f).find("更早一次 Fill 的启动调用"), std::string::npos) << zh.Render(t, *f);
  }
  EXPECT_EQ(said, 1);  // the second Fill, after the first one's launch
}

// record --delay 6 --duration 0.06 of training_loop.py (H100): the calls of the window only, the
// timer thread's start and stop marks on no lane, and the GPU records of the grace period after
// the stop (work launched later) neither placed nor counted as records without a call.
TEST(Recording, ATimedWindowHoldsItsCallsAndSaysWhen) {
  std::string path = testing::SourcePath("tests/fixtures/recorded/training_loop_timed.raw.jsonl.xz");
  Recording r = ParseRecording(ReadTextFile(path), path);
  uint64_t start = 0, stop = 0;
  for (const RecordedCall& c : r.calls) {
    if (c.role == CallRole::kCaptureStart) start = c.begin;
    if (c.role == CallRole::kCaptureStop) stop = c.begin;
  }
  ASSERT_GT(stop, start);
  size_t after_stop = 0;
  for (const RecordedActivity& a : r.activity) after_stop += a.begin > stop ? 1 : 0;
  ASSERT_GT(after_stop, 100u);  // the grace period's records are in the log
  Trace t = TraceFromRecording(r);
  EXPECT_GT(t.scenario.ops.size(), 500u);
  bool said = false;
  for (const TraceNote& n : t.notes) {
    EXPECT_NE(n.key, "unplaced_activity") << n.text;
    EXPECT_NE(n.key, "capture_range") << n.text;
    if (n.key != "timed_range") continue;
    said = true;
    EXPECT_EQ(n.vars.at("after"), "6.01 s");
    EXPECT_EQ(n.vars.at("us"), "60402");
  }
  EXPECT_TRUE(said);
  std::set<int> threads;
  for (const Op& op : t.scenario.ops) threads.insert(op.thread);
  EXPECT_EQ(threads.size(), 2u);  // the main thread and autograd's: not the recorder's timer
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (!t.ops[i].graph_replay) {
      EXPECT_LE(t.ops[i].submit, static_cast<TimeNs>(stop - start)) << i;
    }
  }
  EXPECT_FALSE(Analyze(t).findings.empty());
}

// A run longer than one trace holds is cut at the first call that would not fit: the ops
// before it are the whole run's first ops, unchanged, and the first note says where it was
// cut and how to record a later part. (The real limit, kMaxScenarioOps, is lowered here.)
TEST(Recording, ARunTooLongForOneTraceIsCutWithANote) {
  std::string path = testing::SourcePath("tests/fixtures/recorded/legacy_stall.raw.jsonl");
  Recording r = ParseRecording(ReadTextFile(path), path);
  Trace whole = TraceFromRecording(r);
  ASSERT_GT(whole.scenario.ops.size(), 10u);
  for (const TraceNote& n : whole.notes) EXPECT_FALSE(IsCutNote(n)) << n.text;
  Trace cut = TraceFromRecording(r, nullptr, 8);
  ASSERT_LE(cut.scenario.ops.size(), 8u);
  ASSERT_GE(cut.scenario.ops.size(), 4u);
  for (size_t i = 0; i < cut.scenario.ops.size(); ++i) {
    EXPECT_EQ(cut.scenario.ops[i].name, whole.scenario.ops[i].name) << i;
    EXPECT_EQ(cut.ops[i].submit, whole.ops[i].submit) << i;
    EXPECT_EQ(cut.ops[i].end, whole.ops[i].end) << i;
  }
  EXPECT_EQ(cut.notes.front().key, "cut.record");
  const std::string& note = cut.notes.front().text;
  EXPECT_NE(note.find("only the first " + std::to_string(cut.scenario.ops.size()) + " ops"), std::string::npos) << note;
  EXPECT_NE(note.find("later calls and their GPU work are left out"), std::string::npos) << note;
  EXPECT_NE(note.find("--capture-range cudaProfilerApi"), std::string::npos) << note;
  ValidateScenario(cut.scenario);
  Analysis a = Analyze(cut);
  EXPECT_FALSE(a.summarised_only);
}

// A log with more lines than are read stops there, with a note, and converts what was read;
// the cut's note then says "at least" of what came after.
TEST(Recording, ALogLongerThanTheLineLimitIsReadUpToIt) {
  std::ifstream file(testing::SourcePath("tests/fixtures/recorded/legacy_stall.raw.jsonl"));
  Recording r = ParseRecording(file, "legacy_stall.raw.jsonl", 20);
  EXPECT_TRUE(r.read_partly);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().text.find("longer than 20 lines"), std::string::npos) << r.notes.back().text;
  Trace t = TraceFromRecording(r, nullptr, 9);  // 11 ops in the first 20 lines
  EXPECT_NE(t.notes.front().text.find("of at least"), std::string::npos) << t.notes.front().text;
  bool said = false;
  for (const TraceNote& n : t.notes) said |= n.text.find("only those were read") != std::string::npos;
  EXPECT_TRUE(said);
}

// What bounds a trace file depends on its kind: a recorder's log is read line by line, so its
// size is not refused; a torch.profiler trace may be up to 1 GiB; anything else up to 256 MiB.
// (Sparse files: the sizes cost no disk.)
TEST(Recording, FileSizeLimitsDependOnTheFormat) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("streamlab_sizes_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto sized = [&](const std::string& name, const std::string& start, uintmax_t bytes) {
    std::string path = (dir / name).string();
    std::ofstream(path) << start;
    fs::resize_file(path, bytes);
    return path;
  };
  auto error_of = [](const std::string& path) { return testing::InputErrorOf([&] { LoadTraceFile(path); }); };
  std::string meta = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
  // Read line by line, so not refused for its size; but its second "line" (300 MB of zero
  // bytes) is refused before it is held.
  std::string raw = error_of(sized("raw.7.jsonl", meta, uintmax_t{300} << 20));
  EXPECT_EQ(raw.find("larger than"), std::string::npos) << raw;
  EXPECT_NE(raw.find("raw.7.jsonl:2: a line longer than 1 MiB"), std::string::npos) << raw;
  EXPECT_NE(error_of(sized("other.json", "{\"kind\":", uintmax_t{300} << 20)).find("larger than 256 MiB"),
            std::string::npos);
  EXPECT_NE(error_of(sized("kineto.json", "{\"traceEvents\":[", uintmax_t{1100} << 20)).find("larger than 1024 MiB"),
            std::string::npos);
  fs::remove_all(dir);
}

// torch.cuda.graph's pattern: capture on s1 (handle 77), s2 (88) joins through an event and
// rejoins; the captured calls build nodes and run nothing; the replay's kernels name the
// instantiated nodes, which lead back to the ranges they were captured in.
TEST(Recording, GraphCapturesRunNothingAndReplaysNameTheirCaptureRange) {
  auto call = [](const std::string& fn, const std::string& role, int b, int e, int corr, const std::string& more) {
    return "{\"t\":\"call\",\"tid\":0,\"fn\":\"" + fn + "\",\"role\":\"" + role + "\",\"dom\":" +
           (role.rfind("nvtx", 0) == 0 ? "2" : "0") + ",\"b\":" + std::to_string(b) + ",\"e\":" + std::to_string(e) +
           ",\"corr\":" + std::to_string(corr) + more + "}\n";
  };
  auto kernel = [](int corr, int sid, int b, int e, int node) {
    return "{\"t\":\"kernel\",\"corr\":" + std::to_string(corr) + ",\"dev\":0,\"sid\":" + std::to_string(sid) +
           ",\"b\":" + std::to_string(b) + ",\"e\":" + std::to_string(e) +
           ",\"grid\":[1,1,1],\"block\":[32,1,1],\"regs\":16,\"ssmem\":0,\"dsmem\":0,\"graph\":2,\"node\":" +
           std::to_string(node) + ",\"name\":\"_Z1kv\"}\n";
  };
  std::string log = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":7,\"start\":0}\n";
  log += call("cudaStreamCreateWithFlags", "stream_create", 100, 200, 1, ",\"stream\":77,\"sid\":13,\"flags\":1");
  log += call("cudaStreamCreateWithFlags", "stream_create", 300, 400, 2, ",\"stream\":88,\"sid\":14,\"flags\":1");
  log += call("cudaStreamBeginCapture", "begin_capture", 1000, 1100, 3, ",\"stream\":77,\"sid\":13");
  log += call("nvtxRangePushA", "nvtx_push", 1200, 1200, 0, ",\"text\":\"capture:a\"");
  log += call("cudaLaunchKernel", "launch", 1300, 9300, 4, ",\"stream\":77");  // 8 us: kept as a call
  log += call("graph node created", "graph_node", 1400, 1400, 4, ",\"out\":101");
  log += call("nvtxRangePop", "nvtx_pop", 9400, 9400, 0, "");
  log += call("cudaEventRecord", "record", 9500, 9600, 5, ",\"stream\":77,\"sid\":13,\"event\":55");
  log += call("cudaStreamWaitEvent", "wait_event", 9700, 9800, 6, ",\"stream\":88,\"sid\":14,\"event\":55");
  log += call("nvtxRangePushA", "nvtx_push", 9900, 9900, 0, ",\"text\":\"capture:b\"");
  log += call("cudaLaunchKernel", "launch", 10000, 10100, 7, ",\"stream\":88");
  log += call("graph node created", "graph_node", 10050, 10050, 7, ",\"out\":102");
  log += call("nvtxRangePop", "nvtx_pop", 10200, 10200, 0, "");
  log += call("cudaEventRecord", "record", 10300, 10400, 8, ",\"stream\":88,\"sid\":14,\"event\":66");
  log += call("cudaStreamWaitEvent", "wait_event", 10500, 10600, 9, ",\"stream\":77,\"sid\":13,\"event\":66");
  log += call("cudaStreamEndCapture", "end_capture", 10700, 10800, 10, ",\"stream\":77,\"sid\":13");
  log += call("graph node cloned", "graph_node_clone", 11000, 11000, 0, ",\"out\":201,\"parent\":101");
  log += call("graph node cloned", "graph_node_clone", 11000, 11000, 0, ",\"out\":202,\"parent\":102");
  // After the capture, s2 waits on 55 for real: no longer part of any capture.
  log += call("cudaEventRecord", "record", 11500, 11600, 11, ",\"stream\":77,\"sid\":13,\"event\":55");
  log += call("cudaStreamWaitEvent", "wait_event", 11700, 11800, 12, ",\"stream\":88,\"sid\":14,\"event\":55");
  log += call("cudaGraphLaunch", "graph_launch", 20000, 20500, 13, ",\"stream\":77,\"sid\":13");
  log += kernel(13, 13, 21000, 22000, 201) + kernel(13, 150, 21000, 23000, 202);
  Trace t = TraceFromRecording(ParseRecording(log, "graph.jsonl"));
  int captured_calls = 0, records = 0, waits = 0;
  std::vector<int> replayed;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.scenario.ops[i];
    if (op.kind == OpKind::kApiCall && op.name.find("captured into a CUDA graph") != std::string::npos) ++captured_calls;
    records += op.kind == OpKind::kRecord;
    waits += op.kind == OpKind::kWaitEvent;
    if (t.ops[i].graph_replay) replayed.push_back(static_cast<int>(i));
  }
  EXPECT_EQ(captured_calls, 6);  // every captured call, however short: its time built the graph
  EXPECT_EQ(records, 1);         // only the record and wait after the capture ran
  EXPECT_EQ(waits, 1);
  ASSERT_EQ(replayed.size(), 2u);
  EXPECT_EQ(t.ops[replayed[0]].captured_in, "capture:a");
  EXPECT_EQ(t.ops[replayed[1]].captured_in, "capture:b");
  EXPECT_EQ(t.ops[replayed[1]].start, 21000 - 100);
  EXPECT_NE(t.ops[replayed[1]].inferred.find("replayed from a CUDA graph (captured in range capture:b)"), std::string::npos);
  // The node CUDA ran on a stream of the graph's own is not put on the launch stream.
  EXPECT_EQ(t.scenario.streams[t.scenario.ops[replayed[0]].stream].name, "stream 13");
  EXPECT_EQ(t.scenario.streams[t.scenario.ops[replayed[1]].stream].name, "graph stream 150");
  Trace back = TraceFromJson(TraceToJson(t), "round trip");
  EXPECT_TRUE(back.ops[replayed[1]].graph_replay);
  EXPECT_EQ(back.ops[replayed[1]].captured_in, "capture:b");
  EXPECT_NO_THROW(Analyze(t));
}

TEST(Recording, KernelNamesAndOccupancy) {
  std::string full;
  EXPECT_EQ(ShortKernelName("_ZN2at4cuda12_GLOBAL__N_111spin_kernelEl", &full), "at::cuda::spin_kernel");
  EXPECT_NE(full.find("anonymous namespace"), std::string::npos);
  EXPECT_EQ(ShortKernelName("_Z4Spinx"), "Spin");
  EXPECT_EQ(ShortKernelName("not_mangled"), "not_mangled");
  // A name the demangler refuses (a real 1.6 kB cutlass name did) keeps its leading names.
  EXPECT_EQ(ShortKernelName("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11thr"),
            "cutlass_cudnn_train::Kernel");
  EXPECT_EQ(ShortKernelName("_Z99short"), "_Z99short");  // a length past the end: left as it is
  RecordedDevice h100{0, "H100", 132, 64, 32, 65536, 233472, ""};
  EXPECT_EQ(EstimateBlocksPerSm(h100, 128, 16, 0), 16);    // warps: 64 / 4
  EXPECT_EQ(EstimateBlocksPerSm(h100, 256, 128, 0), 2);    // registers: 65536 / (128 * 256)
  EXPECT_EQ(EstimateBlocksPerSm(h100, 32, 16, 0), 32);     // the block limit
  EXPECT_EQ(EstimateBlocksPerSm(RecordedDevice{}, 128, 16, 0), 0);  // unknown device
}

}  // namespace
}  // namespace streamlab

namespace streamlab {
namespace {

// torch.compile's autotuning created (and destroyed) 8 742 events in one run: a recording holds
// as many objects as its calls made; the 4 096 limit is for scenarios written by hand.
TEST(Recording, AProgramMayMakeMoreEventsThanAScenarioFileMayAskFor) {
  testing::Log log;
  for (int e = 1; e <= 5000; ++e) log.Record(77, e);
  Trace t = log.Kernel(77, "[4096]").Convert();
  EXPECT_GT(t.scenario.events.size(), 4096u);
  Scenario by_hand = t.scenario;
  by_hand.recorded = false;
  EXPECT_THROW(ValidateScenario(by_hand), InputError);
}

}  // namespace
}  // namespace streamlab
