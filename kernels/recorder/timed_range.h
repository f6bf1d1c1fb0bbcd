// record --delay/--duration: a window of the run chosen by time, for a program that cannot be
// edited to call cudaProfilerStart/Stop around the steps to study (a student's own script run
// as it is). A thread of the recorder's own sleeps, then switches recording on, and later off,
// through the same switches as a capture range (cupti_hooks.cpp).
#pragma once

#include <cstdint>

namespace streamlab::recorder {

struct TimedRangeSteps {
  void (*start)();       // switch recording on
  void (*stop)();        // stop logging calls
  void (*after_stop)();  // the GPU records of work launched before the stop have come: switch them off
};

// Starts the thread: `steps.start` `delay_ms` from now, `steps.stop` `duration_ms` after that
// (never when 0), `steps.after_stop` `grace_ms` after the stop. It blocks every signal, so the
// program's own threads keep receiving theirs. False if the thread could not be started.
bool StartTimedRange(uint64_t delay_ms, uint64_t duration_ms, uint64_t grace_ms, TimedRangeSteps steps);

}  // namespace streamlab::recorder
