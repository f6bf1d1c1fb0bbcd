// A trace's notes in both languages: each English template has a Chinese one with the same
// {values}, and the notes of recorded, imported, merged and cut traces are all said in
// Chinese, filled from the trace (an older file's free sentences stay English).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "engine/analysis/findings_text.h"
#include "engine/ingest/recording.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "engine/util/assets.h"
#include "engine/util/format.h"
#include "engine/util/json_reader.h"
#include "engine/util/plain_file.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

std::set<std::string> VarsOf(const std::string& tpl) {
  std::set<std::string> vars;
  for (size_t open = tpl.find('{'); open != std::string::npos; open = tpl.find('{', open + 1))
    if (size_t close = tpl.find('}', open); close != std::string::npos) vars.insert(tpl.substr(open + 1, close - open - 1));
  return vars;
}

TEST(TraceNotes, EveryNoteHasAChineseTemplateWithTheSameValues) {
  Json texts = ParseJson(ReadTextFile(AssetsDir() + "/analyzer.json"), "analyzer.json");
  for (const auto& [key, english] : EnglishNoteTemplates()) {
    ASSERT_TRUE(texts["zh"].contains("note." + key)) << key;
    EXPECT_EQ(VarsOf(texts["zh"]["note." + key].get<std::string>()), VarsOf(english)) << key;
    // One English source: the table in trace_note.cpp, which makes each note's sentence.
    EXPECT_FALSE(texts["en"].contains("note." + key)) << key;
  }
  for (auto it = texts["zh"].begin(); it != texts["zh"].end(); ++it) {
    bool known = it.key().rfind("note.", 0) != 0 || EnglishNoteTemplates().count(it.key().substr(5));
    EXPECT_TRUE(known) << it.key();
  }
  EXPECT_EQ(VarsOf(texts["zh"]["note_process"].get<std::string>()), (std::set<std::string>{"process", "note"}));
  EXPECT_THROW(Note("no_such_note"), std::logic_error);
}

// Recorded (fresh from raw logs), imported from torch.profiler, merged from two processes,
// and cut to fit: the notes StreamLab makes for them.
std::vector<Trace> TracesWithNotes() {
  std::vector<Trace> traces;
  for (const char* log : {"legacy_stall.raw.jsonl", "graph_replay.raw.jsonl"})
    traces.push_back(LoadTraceFile(testing::SourcePath(std::string("tests/fixtures/recorded/") + log)));
  traces.push_back(LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/ddp-balanced")));
  for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath("tests/fixtures/kineto")))
    if (e.path().extension() == ".json") traces.push_back(LoadTraceFile(e.path().string()));
  Recording r = ReadRecordingFile(testing::SourcePath("tests/fixtures/recorded/legacy_stall.raw.jsonl"));
  traces.push_back(TraceFromRecording(r, nullptr, 10));
  return traces;
}

TEST(TraceNotes, RecordedImportedMergedAndCutTracesAreNotedInChinese) {
  FindingTexts en = FindingTexts::Load("en"), zh = FindingTexts::Load("zh");
  std::set<std::string> keys;
  for (const Trace& t : TracesWithNotes()) {
    ASSERT_FALSE(t.notes.empty());
    for (const TraceNote& note : t.notes) {
      ASSERT_FALSE(note.key.empty()) << "a note with no Chinese: " << note.text;
      keys.insert(note.key);
      std::string english = FillTemplate(EnglishNoteTemplates().at(note.key), note.vars);
      EXPECT_EQ(note.text, note.process.empty() ? english : note.process + ": " + english);
      EXPECT_EQ(en.RenderNote(note), note.text);
      std::string chinese = zh.RenderNote(note);
      EXPECT_NE(chinese, note.text);
      EXPECT_EQ(chinese.find('{'), std::string::npos) << chinese;
      for (const auto& [name, value] : note.vars) EXPECT_NE(chinese.find(value), std::string::npos) << chinese;
      if (!note.process.empty()) {
        EXPECT_EQ(chinese.rfind(note.process + "：", 0), 0u) << chinese;  // a Chinese sentence follows: full-width
      }
    }
  }
  // The kinds these sources make: what was recorded or imported, Kineto's inferences, the
  // processes' clocks and matched collectives, and the cut.
  for (const char* key : {"recorded", "imported", "kineto_no_args", "process_clock", "processes_timeline",
                          "collectives_matched", "cut.record"})
    EXPECT_TRUE(keys.count(key)) << key;
}

TEST(TraceNotes, ASavedTraceKeepsItsNotesKeysAndAnOlderOneIsRecognisedByItsSentences) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/recorded/legacy_stall.raw.jsonl"));
  t.notes.push_back(TraceNote("a sentence of someone else's"));
  Trace back = TraceFromJson(TraceToJson(t), "saved");
  ASSERT_EQ(back.notes.size(), t.notes.size());
  FindingTexts zh = FindingTexts::Load("zh");
  for (size_t i = 0; i < t.notes.size(); ++i) EXPECT_EQ(zh.RenderNote(back.notes[i]), zh.RenderNote(t.notes[i]));
  Json old = TraceToJson(t);
  old.erase("note_keys");  // as StreamLab wrote traces before notes had keys
  Trace recognised = TraceFromJson(old, "old");
  ASSERT_EQ(recognised.notes.size(), t.notes.size());
  for (size_t i = 0; i < t.notes.size(); ++i) {
    EXPECT_EQ(recognised.notes[i].key, t.notes[i].key) << t.notes[i].text;
    EXPECT_EQ(recognised.notes[i].vars, t.notes[i].vars) << t.notes[i].text;
  }
  EXPECT_EQ(zh.RenderNote(recognised.notes.back()), "a sentence of someone else's");
  // A process's note, and the older merged form with the clock after the first note.
  TraceNote first = NoteFromText("rank 1 (pid 9): CUPTI dropped 12 activity records: some GPU work is missing");
  EXPECT_EQ(first.key, "cupti_dropped");
  EXPECT_EQ(first.process, "rank 1 (pid 9)");
  std::vector<TraceNote> notes;
  AddNoteFromText(notes, "rank 0 (pid 7): CUPTI dropped 3 activity records: some GPU work is missing; its clock pair "
                         "read to within 41 ns, drift 0 ppm over the run");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1].key, "process_clock");
  EXPECT_EQ(notes[1].vars.at("error"), "41");
  EXPECT_EQ(notes[1].process, "rank 0 (pid 7)");
  EXPECT_EQ(NoteFromText("left out: rank 2 used CUDA but ran no GPU work").vars.at("process"), "rank 2");
  EXPECT_EQ(NoteFromText("left out: rank 2: no clock pair").vars.at("error"), "no clock pair");
  EXPECT_EQ(NoteFromText("CUPTI dropped  activity records: some GPU work is missing").key, "");  // no value
  EXPECT_EQ(NoteFromText("CUPTI dropped 3 activity records").key, "");
}

// Every trace committed before notes had keys (recorded programs, GPU and PyTorch lab runs)
// has its notes said in Chinese.
TEST(TraceNotes, EveryCommittedTraceIsNotedInChinese) {
  size_t traces = 0;
  for (const char* dir : {"tests/fixtures/recorded", "tests/fixtures/torch", "tests/fixtures/gpu", "tests/fixtures/gpu-facts"}) {
    for (const auto& e : std::filesystem::directory_iterator(testing::SourcePath(dir))) {
      if (!IsJsonFileName(e.path().string())) continue;
      ++traces;
      for (const TraceNote& note : LoadTraceFile(e.path().string()).notes)
        EXPECT_FALSE(note.key.empty()) << e.path() << ": " << note.text;
    }
  }
  EXPECT_GT(traces, 40u);
}

// Axis labels: ticks 0.5 ms apart 6.4 s into a run must not all read "6.40 s".
TEST(FormatTick, ALabelHasTheDigitsItsTicksNeed) {
  EXPECT_EQ(FormatTick(6'399'500'000, 500'000), "6.3995 s");
  EXPECT_NE(FormatTick(6'399'500'000, 500'000), FormatTick(6'400'000'000, 500'000));
  EXPECT_EQ(FormatTick(1'500'000, 500'000), "1.5 ms");
  EXPECT_EQ(FormatTick(500'000, 500'000), "500 us");
  EXPECT_EQ(FormatTick(23'000'000, 1'000'000), "23 ms");
  EXPECT_EQ(FormatTick(0, 100), "0 ns");
  EXPECT_EQ(FormatTick(2'000'000'001, 1), "2.000000001 s");
  EXPECT_EQ(FormatTick(-1'500'000, 500'000), "-1.5 ms");  // before the origin a comparison aligns on
}

}  // namespace
}  // namespace streamlab
