// A recorded program's Python stacks (kernels/recorder/python_stack.h): the text CPython's
// crash-report dumper wrote at a call ("  File "/x/train.py", line 42 in step", innermost
// first), read into frames, and the frames made ranges around the call, so the analyzer names
// the line of the program that made it, as it names torch.profiler's frames.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/ingest/recording.h"

namespace streamlab {

// A recorded frame's range name: "train.py:42 in step". torch.profiler's frames are named
// "train.py(42): step" with the line where it first saw the frame; this form says the line is
// the one the call was made on.
std::string RecordedFrameName(std::string_view file, int line, std::string_view function);

// A file as torch.profiler names it: a library's path from its package (torch/amp/...), a
// module of Python's own from its library folder (contextlib.py), and the program's own files
// by their name.
std::string FramePath(std::string_view path);

// The frames of a dumped stack as range names, outermost first. Lines that are not a frame
// (the header, "<no Python frame>", "...", a line cut short) are skipped; at most 256 frames.
std::vector<std::string> FramesOfTraceback(std::string_view text);

// Each call that has a stack gets its frames as range marks around it (outermost first), on
// its thread; each thread's marks stay in time order beside those already there.
void AddPythonStackMarks(Recording& r);

}  // namespace streamlab
