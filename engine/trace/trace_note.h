// A note a trace carries about itself: what it holds, what it leaves out, what is inferred.
// Each note is an English sentence (the trace file's "notes", which any reader can show)
// and, for StreamLab's own notes, the key and values it was made from, so that a view can
// say it in the reader's language (assets/analyzer.json's "note.<key>" templates).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace streamlab {

struct TraceNote {
  std::string text;                         // the English sentence
  std::string key;                          // "" for a free sentence (an older file's note)
  std::map<std::string, std::string> vars;  // the values in the sentence
  std::string process;                      // a merged run's process it is about ("" for all)

  TraceNote() = default;
  // A free sentence, said in English in every language.
  TraceNote(std::string english) : text(std::move(english)) {}  // NOLINT(google-explicit-constructor)
};

using NoteVars = std::map<std::string, std::string>;

// The note `key` with its values: its English text is the key's template, filled. Throws
// std::logic_error for a key that is not in the table (a mistake in StreamLab, not input).
TraceNote Note(const std::string& key, NoteVars vars = {});
// The same note, about one process of a merged run ("rank1: ...").
TraceNote ForProcess(TraceNote note, const std::string& process);
// Every key and its English template (tests hold the Chinese templates to the same {vars}).
const std::map<std::string, std::string>& EnglishNoteTemplates();
// A note of a trace saved before notes had keys: the key and values whose template gives
// exactly `text` (perhaps after a process's "name: "), or a free note if none does.
TraceNote NoteFromText(const std::string& text);
// The same, added to `notes`; such a trace's note on a merged process's clock followed its
// first note ("rank 0 (pid 7): recorded with CUPTI: ...; its clock pair ..."): two notes now.
void AddNoteFromText(std::vector<TraceNote>& notes, const std::string& text);
// True if `note` says a run was cut to fit one trace (record prints it when it ends).
bool IsCutNote(const TraceNote& note);

}  // namespace streamlab
