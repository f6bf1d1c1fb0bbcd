// Races in recorded programs: ops on two streams handed one address (a kernel's argument, a
// copy's or memset's end) with nothing ordering them. Built from small recorder logs, so each
// ordering (an event wait, a sync, a query that saw the work done) is tested on its own; the
// recordings of the course's examples are in test_recording.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/analysis/analyzer.h"
#include "engine/analysis/findings_text.h"
#include "engine/ingest/recording.h"
#include "engine/trace/trace_json.h"
#include "engine/whatif/order_races.h"
#include "engine/whatif/replay_steps.h"
#include "engine/whatif/whatif.h"
#include "tests/recorder_log.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

using testing::Log;

using testing::Races;
TEST(RecordedRaces, TwoStreamsHandedOneAddressUnorderedIsAPossibleRace) {
  Trace t = Log().Kernel(77, "[4096,8192]").Kernel(88, "[4096]").Addresses(2).Convert();
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].address, 4096u);
  // Neither says whether it writes: a note, worded as a possibility.
  EXPECT_EQ(races[0].severity, Severity::kNote);
  std::string text = FindingTexts::Load("en").Render(t, races[0]);
  EXPECT_NE(text.find("Possible data race at address 0x1000"), std::string::npos) << text;
  EXPECT_NE(text.find("read or write not recorded"), std::string::npos) << text;
  EXPECT_NE(text.find("inferred"), std::string::npos) << text;
  EXPECT_NE(text.find("overlapped"), std::string::npos) << text;  // both ran at once here
  EXPECT_FALSE(FindingTexts::Load("zh").Render(t, races[0]).empty());
  // The notes say what the check rests on.
  EXPECT_TRUE(std::any_of(t.notes.begin(), t.notes.end(), [](const TraceNote& n) { return n.key == "addresses_recorded"; }));
}

// PyTorch's own kernels say which argument they write: a TensorIterator kernel's data array
// holds its outputs first, and softmax forward takes (output, input, classes). So a softmax on a
// side stream whose output a default-stream kernel reads, unordered (heldout5's distillation
// loop), is a race one side is known to write: a warning, not a note. The same two launches
// from kernels nobody knows stay a note, and so does a kernel that only reads the first
// address another one was handed (the address is not its own first).
TEST(RecordedRaces, APyTorchKernelsOutputIsAKnownWrite) {
  const std::string softmax = "_ZN2at6native19cunn_SoftMaxForwardEv";
  const std::string elementwise = "_ZN2at6native29vectorized_elementwise_kernelEv";
  Trace known = Log().Kernel(77, "[4096,8192]", 10000, softmax).Kernel(88, "[12288,4096]", 10000, elementwise).Addresses(2).Convert();
  std::vector<Finding> races = Races(known);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].address, 4096u);
  EXPECT_EQ(races[0].severity, Severity::kWarning);
  Trace unknown = Log().Kernel(77, "[4096,8192]").Kernel(88, "[12288,4096]").Addresses(2).Convert();
  ASSERT_EQ(Races(unknown).size(), 1u);
  EXPECT_EQ(Races(unknown)[0].severity, Severity::kNote);
  // Both read 4096 (neither has it first): no write is known.
  Trace reads = Log().Kernel(77, "[8192,4096]", 10000, elementwise).Kernel(88, "[12288,4096]", 10000, elementwise).Addresses(2).Convert();
  ASSERT_EQ(Races(reads).size(), 1u);
  EXPECT_EQ(Races(reads)[0].severity, Severity::kNote);
}

// PyTorch's foreach kernels (optimizer.step()) are handed dozens of tensors in one launch:
// the addresses past a record's 8 follow in launch_args records and are compared too.
// `whatif --fix races`: each flagged pair ordered by an event in the replay. The two 10 us
// kernels ran side by side; ordered, the second starts once the first has ended, and the run's
// GPU time grows by about a kernel.
TEST(RecordedRaces, OrderingTheRacesInTheReplayPutsTheSecondAfterTheFirst) {
  Trace t = Log().Kernel(77, "[4096,8192]").Kernel(88, "[4096]").Addresses(2).Convert();
  std::vector<RacePair> pairs = FlaggedRaces(t, Analyze(t));
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_LT(t.ops[pairs[0].first].submit, t.ops[pairs[0].second].submit);
  StepSplit steps = FindSteps(t);
  std::vector<int> anchors = StepAnchors(t, steps);
  Replay replay = BuildReplay(t, DeviceProfile{});
  WhatIfEdit e;
  e.kind = EditKind::kOrderRaces;
  e.calls = {pairs[0].first, pairs[0].second};
  WhatIfRun run = RunWhatIf(t, steps, anchors, replay, {e});
  const Trace& p = run.predicted;
  int first = -1, second = -1;
  for (size_t i = 0; i < p.ops.size(); ++i)
    if (p.scenario.ops[i].kind == OpKind::kKernel) (first < 0 ? first : second) = static_cast<int>(i);
  ASSERT_GE(second, 0);
  EXPECT_GE(p.ops[second].start, p.ops[first].end);
  EXPECT_GT(run.after, run.before + 8000);
  // Unedited, the replay runs them side by side, as recorded.
  Trace plain = RunWhatIf(t, steps, anchors, replay, {}).predicted;
  std::vector<int> kernels;
  for (size_t i = 0; i < plain.ops.size(); ++i)
    if (plain.scenario.ops[i].kind == OpKind::kKernel) kernels.push_back(static_cast<int>(i));
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_LT(plain.ops[kernels[1]].start, plain.ops[kernels[0]].end);
}

TEST(RecordedRaces, ALaunchHandedManyAddressesIsComparedOnAllOfThem) {
  const std::string first8 = "[4096,8192,12288,16384,20480,24576,28672,32768]";
  Trace t = Log().KernelHandedMany(77, first8, "[36864,40960]").Memset(88, 40960).Addresses(1).Convert();
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].address, 40960u);  // the tenth address
  EXPECT_EQ(t.scenario.ops[races[0].op].addresses.size() + t.scenario.ops[races[0].other].addresses.size(), 11u);
  EXPECT_FALSE(testing::HasNote(t, "addresses_more"));
  // More than the recorder keeps: the trace says the rest are not compared.
  Trace crowded = Log().KernelHandedMany(77, first8, "[36864]", true).Addresses(1).Convert();
  EXPECT_TRUE(testing::HasNote(crowded, "addresses_more"));
  EXPECT_EQ(Log().KernelHandedMany(77, first8, "[36864]").Convert().ops.size(),
            Log().Kernel(77, first8).Convert().ops.size());  // the extra record is no call of its own
}

TEST(RecordedRaces, AKnownWriteMakesItAWarning) {
  Trace t = Log().Kernel(77, "[4096]").Memset(88, 4096).Convert();
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].severity, Severity::kWarning);
  EXPECT_NE(FindingTexts::Load("en").Render(t, races[0]).find("it writes there"), std::string::npos);
}

// Stream 77 zeroes the buffer and then a kernel uses it; stream 88's kernel, unordered, is
// handed it too. The nearer pair (two kernels) is only a note, but the memset behind it writes
// there for certain: that pair is reported as well, a warning. Ordered before 88's kernel (an
// event after the memset), it is not; nor is it looked for when the nearer pair has a write.
TEST(RecordedRaces, AKnownWriteBehindAKernelOnTheSameStreamIsStillFound) {
  std::vector<Finding> races = Races(Log().Memset(77, 4096).Kernel(77, "[4096]").Kernel(88, "[4096]").Convert());
  ASSERT_EQ(races.size(), 2u);
  std::sort(races.begin(), races.end(), [](const Finding& a, const Finding& b) { return a.op < b.op; });
  EXPECT_EQ(races[0].severity, Severity::kWarning);  // the memset and 88's kernel
  EXPECT_EQ(races[1].severity, Severity::kNote);     // the two kernels
  EXPECT_EQ(races[0].other, races[1].other);
  std::vector<Finding> ordered =
      Races(Log().Memset(77, 4096).Record(77, 5).Kernel(77, "[4096]").Wait(88, 5).Kernel(88, "[4096]").Convert());
  ASSERT_EQ(ordered.size(), 1u);
  EXPECT_EQ(ordered[0].severity, Severity::kNote);
  // Many kernels between them: still found, one warning however many kernels.
  Log many;
  many.Memset(77, 4096);
  for (int i = 0; i < 100; ++i) many.Kernel(77, "[4096]");
  std::vector<Finding> far = Races(many.Kernel(88, "[4096]").Convert());
  EXPECT_EQ(std::count_if(far.begin(), far.end(), [](const Finding& f) { return f.severity == Severity::kWarning; }), 1);
  EXPECT_EQ(far.size(), 2u);
}

// A memset knows its bytes: a kernel handed an address inside them (a view into the tensor)
// touches that memory too. Past its end, or ordered, it does not race; the pair is reported
// once, also when the kernel was handed the memset's own address as well.
TEST(RecordedRaces, AnAddressInsideACopysBytesIsTheSameMemory) {
  Trace t = Log().Memset(88, 4096).Kernel(77, "[6144]").Convert();
  std::vector<Finding> races = Races(t);
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].address, 6144u);
  EXPECT_EQ(races[0].severity, Severity::kWarning);
  std::string text = FindingTexts::Load("en").Render(t, races[0]);
  EXPECT_NE(text.find("from 0x1000 on"), std::string::npos) << text;
  EXPECT_NE(text.find("covers the address"), std::string::npos) << text;
  EXPECT_NE(FindingTexts::Load("zh").Render(t, races[0]).find("0x1000"), std::string::npos);
  EXPECT_TRUE(Races(Log().Memset(88, 4096).Kernel(77, "[8192]").Convert()).empty());  // just past its end
  EXPECT_TRUE(Races(Log().Memset(88, 4096).Record(88, 5).Wait(77, 5).Kernel(77, "[6144]").Convert()).empty());
  EXPECT_EQ(Races(Log().Memset(88, 4096).Kernel(77, "[4096,6144]").Convert()).size(), 1u);
  // One pair per copy and other stream, however many kernels there use it.
  EXPECT_EQ(Races(Log().Memset(88, 4096).Kernel(77, "[6144]").Kernel(77, "[7168]").Convert()).size(), 1u);
}

TEST(RecordedRaces, DifferentAddressesOrOneStreamAreNoRace) {
  EXPECT_TRUE(Races(Log().Kernel(77, "[4096]").Kernel(88, "[8192]").Convert()).empty());
  EXPECT_TRUE(Races(Log().Kernel(77, "[4096]").Kernel(77, "[4096]").Convert()).empty());
}

TEST(RecordedRaces, AnEventWaitOrASyncOrdersThem) {
  EXPECT_TRUE(Races(Log().Kernel(77, "[4096]").Record(77, 5).Wait(88, 5).Kernel(88, "[4096]").Convert()).empty());
  EXPECT_TRUE(Races(Log().Kernel(77, "[4096]").SyncStream(77).Kernel(88, "[4096]").Convert()).empty());
  // A wait registered before the producer's record captured an earlier record (or none).
  EXPECT_EQ(Races(Log().Wait(88, 5).Kernel(77, "[4096]").Record(77, 5).Kernel(88, "[4096]").Convert()).size(), 1u);
}

// PyTorch's caching allocator after record_stream: the block is reused on the main stream
// only once a query of the event recorded on the side stream answered "done".
TEST(RecordedRaces, AQueryThatSawTheWorkDoneOrdersWhatTheHostDidNext) {
  Log done;
  done.Kernel(88, "[4096]").Record(88, 5).Pause(20000).Query(5, true).Memset(77, 4096);
  EXPECT_TRUE(Races(done.Convert()).empty());
  Log busy;
  busy.Kernel(88, "[4096]").Record(88, 5).Query(5, false).Memset(77, 4096);
  EXPECT_EQ(Races(busy.Convert()).size(), 1u);
}

// PyTorch's cudaMallocAsync backend: a tensor used on the side stream is freed there
// (cudaFreeAsync) and its memory handed to the main stream by cudaMallocAsync. CUDA reuses it
// only after the free's stream got there, so the two kernels are ordered, also when the new
// block is a piece of the freed one; a block that was not freed, or freed after the second
// allocation, orders nothing.
TEST(RecordedRaces, MemoryFreedOnOneStreamAndAllocatedOnAnotherOrdersThem) {
  auto reuse = [](uint64_t freed, uint64_t allocated) {
    Log log;
    log.MallocAsync(88, 4096, 8192).Kernel(88, "[4096,8192]").FreeAsync(88, freed);
    log.MallocAsync(77, allocated, 2048).Kernel(77, "[" + std::to_string(allocated) + "]");
    return Races(log.Convert());
  };
  EXPECT_TRUE(reuse(4096, 4096).empty());
  EXPECT_TRUE(reuse(4096, 8192).empty());  // a piece inside the freed block
  Log not_freed;
  not_freed.Kernel(88, "[4096]").MallocAsync(77, 4096, 2048).Kernel(77, "[4096]");
  EXPECT_EQ(Races(not_freed.Convert()).size(), 1u);
  Log freed_later;
  freed_later.Kernel(88, "[4096]").MallocAsync(77, 4096, 2048).FreeAsync(88, 4096).Kernel(77, "[4096]");
  EXPECT_EQ(Races(freed_later.Convert()).size(), 1u);
  // Work on the free's stream after the free is not ordered by it.
  Log after_free;
  after_free.MallocAsync(88, 4096, 8192).FreeAsync(88, 4096).Kernel(88, "[4096]").MallocAsync(77, 4096, 8192);
  after_free.Kernel(77, "[4096]");
  EXPECT_EQ(Races(after_free.Convert()).size(), 1u);
}

// A saved trace keeps the allocations and frees (and their streams), so the order holds
// after saving; an allocation on a kernel is refused.
TEST(RecordedRaces, PoolOrderSurvivesASavedTraceAndOnlyCallsAllocate) {
  Log log;
  log.MallocAsync(88, 4096, 8192).Kernel(88, "[4096]").FreeAsync(88, 4096).MallocAsync(77, 4096, 8192);
  log.Kernel(77, "[4096]");
  Trace t = log.Convert();
  std::string saved = TraceToJson(t).dump();
  EXPECT_NE(saved.find("\"use\":\"allocate\""), std::string::npos);
  EXPECT_NE(saved.find("\"use\":\"free\""), std::string::npos);
  EXPECT_TRUE(Races(TraceFromJsonText(saved, "saved.json")).empty());
  EXPECT_TRUE(Races(TraceFromJson(ParseJson(saved, "saved.json"), "saved.json")).empty());
  std::string kernel_allocates = saved;
  size_t at = kernel_allocates.find("\"use\":\"argument\"");
  ASSERT_NE(at, std::string::npos);
  kernel_allocates.replace(at, 18, "\"use\":\"allocate\"");
  EXPECT_THROW(TraceFromJsonText(kernel_allocates, "bad.json"), InputError);
}

TEST(RecordedRaces, AddressesAndQueryResultsSurviveASavedTrace) {
  Log log;
  log.Kernel(88, "[4096]").Record(88, 5).Query(5, true).Kernel(77, "[8192,4096]").Memset(88, 8192);
  Trace t = log.Convert();
  std::string saved = TraceToJson(t).dump();
  for (const Trace& back : {TraceFromJson(ParseJson(saved, "saved.json"), "saved.json"),
                            TraceFromJsonText(saved, "saved.json")}) {
    ASSERT_EQ(back.scenario.ops.size(), t.scenario.ops.size());
    for (size_t i = 0; i < t.scenario.ops.size(); ++i) {
      EXPECT_EQ(back.scenario.ops[i].query_ready, t.scenario.ops[i].query_ready) << i;
      ASSERT_EQ(back.scenario.ops[i].addresses.size(), t.scenario.ops[i].addresses.size()) << i;
      for (size_t k = 0; k < t.scenario.ops[i].addresses.size(); ++k) {
        EXPECT_EQ(back.scenario.ops[i].addresses[k].at, t.scenario.ops[i].addresses[k].at);
        EXPECT_EQ(back.scenario.ops[i].addresses[k].use, t.scenario.ops[i].addresses[k].use);
      }
    }
    std::vector<Finding> before = Races(t), after = Races(back);
    ASSERT_EQ(before.size(), 1u);  // the memset at 8192 against the kernel on 77
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0].op, before[0].op);
    EXPECT_EQ(after[0].other, before[0].other);
  }
  EXPECT_NE(saved.find("\"at\":\"0x2000\""), std::string::npos);
  EXPECT_NE(saved.find("\"ready\":true"), std::string::npos);
}

TEST(RecordedRaces, MalformedAddressesAreRefused) {
  std::string base = Log().text();
  auto with = [&](const std::string& more) {
    return base + "{\"t\":\"call\",\"tid\":0,\"fn\":\"cudaLaunchKernel\",\"role\":\"launch\",\"dom\":0,\"b\":90000,"
                  "\"e\":91000,\"corr\":99,\"stream\":77" + more + "}\n";
  };
  EXPECT_NE(testing::InputErrorOf([&] { ParseRecording(with(",\"ptrs\":[1,2,3,4,5,6,7,8,9]"), "x.jsonl"); }).find("ptrs"),
            std::string::npos);
  EXPECT_NE(testing::InputErrorOf([&] { ParseRecording(with(",\"ptrs\":[-4]"), "x.jsonl"); }).find("ptrs"),
            std::string::npos);
  EXPECT_NE(testing::InputErrorOf([&] { ParseRecording(with(",\"ptrs\":\"0x10\""), "x.jsonl"); }).find("ptrs"),
            std::string::npos);
  // Offsets: one per address, each a byte offset.
  EXPECT_NE(testing::InputErrorOf([&] { ParseRecording(with(",\"ptrs\":[4096,8192],\"ptr_at\":[0]"), "x.jsonl"); }).find("ptr_at"),
            std::string::npos);
  EXPECT_NE(testing::InputErrorOf([&] { ParseRecording(with(",\"ptrs\":[4096],\"ptr_at\":[70000]"), "x.jsonl"); }).find("ptr_at"),
            std::string::npos);
  // A saved trace's address must be hex text.
  Trace t = Log().Kernel(77, "[4096]").Convert();
  std::string saved = TraceToJson(t).dump();
  size_t at = saved.find("\"0x1000\"");
  ASSERT_NE(at, std::string::npos);
  std::string bad = saved.substr(0, at) + "\"4096\"" + saved.substr(at + 8);
  EXPECT_NE(testing::InputErrorOf([&] { TraceFromJsonText(bad, "bad.json"); }).find("expected an address"),
            std::string::npos);
  EXPECT_NE(testing::InputErrorOf([&] { TraceFromJson(ParseJson(bad, "bad.json"), "bad.json"); }).find("expected an address"),
            std::string::npos);
}

// An older recorder's log (no address count) and a log whose driver could not read arguments
// say that races between kernels are not checked.
TEST(RecordedRaces, NotesSayWhenAddressesWereNotRecorded) {
  auto keys = [](const Trace& t) {
    std::vector<std::string> out;
    for (const TraceNote& n : t.notes) out.push_back(n.key);
    return out;
  };
  std::vector<std::string> old = keys(Log().Kernel(77, "[4096]").Convert());
  EXPECT_NE(std::find(old.begin(), old.end(), "no_memory_access"), old.end());
  Log unsupported;
  unsupported.Kernel(77, "[]");
  std::string text = unsupported.text() + "{\"t\":\"addresses\",\"supported\":0,\"read\":0,\"unread\":0}\n";
  std::vector<std::string> none = keys(TraceFromRecording(ParseRecording(text, "x.jsonl")));
  EXPECT_NE(std::find(none.begin(), none.end(), "addresses_unsupported"), none.end());
}

// Arguments read, but no launch handed memory the recorder saw allocated (a program that
// allocates another way): the trace says "no race found" rests on nothing. One launch with an
// address is enough to drop the note.
TEST(RecordedRaces, NotesSayWhenNoLaunchPointedIntoKnownMemory) {
  auto has = [](const Trace& t, const std::string& key) {
    return std::any_of(t.notes.begin(), t.notes.end(), [&](const TraceNote& n) { return n.key == key; });
  };
  Trace blind = Log().Kernel(77, "[]").Kernel(88, "[]").Addresses(2).Convert();
  EXPECT_TRUE(has(blind, "addresses_recorded"));
  EXPECT_TRUE(has(blind, "addresses_none_found"));
  Trace seen = Log().Kernel(77, "[]").Kernel(88, "[4096]").Addresses(2).Convert();
  EXPECT_TRUE(has(seen, "addresses_recorded"));
  EXPECT_FALSE(has(seen, "addresses_none_found"));
}

}  // namespace
}  // namespace streamlab
