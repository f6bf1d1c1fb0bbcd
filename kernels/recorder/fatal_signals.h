// The recorder's handlers for fatal signals: what was recorded is written (`save`), then the
// signal does what it would have done without the recorder (the program's own handler, else
// the default), so a crashing program keeps its exit status and its trace. A fault in the
// Python sampler's read of another thread's stack is the one exception: that read is
// abandoned and the program goes on (python_sampler.h). Nothing here includes CUDA.
#pragma once

namespace streamlab::recorder {

void InstallFatalSignalHandlers(void (*save)());

}  // namespace streamlab::recorder
