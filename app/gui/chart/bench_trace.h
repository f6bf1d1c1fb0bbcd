// A synthetic trace of N kernel spans over 32 streams, for measuring the chart's frame
// time (bench/README.md). Not a lab: only the view is being measured.
#pragma once

#include "engine/trace/trace.h"

namespace streamlab {

Trace MakeBenchTrace(long spans);

}  // namespace streamlab
