// torch.profiler's ranges made to nest before they become push/pop marks
// (engine/ingest/range_nesting.h): a record_function begun inside its __enter__ frame keeps its
// length, and every imported range nests.
#include <gtest/gtest.h>

#include <map>

#include "engine/ingest/range_nesting.h"
#include "engine/ingest/open_trace.h"
#include "engine/trace/trace_json.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

struct R {
  int thread;
  uint64_t begin, end;
};

TEST(RangeNesting, TheShorterOfTwoOverlappingRangesIsCut) {
  // A frame [0, 30] in which an annotation [20, 1000] begins; inside the annotation, a range
  // that outlives it [900, 1200]; a nested one [100, 200]; another thread untouched.
  std::vector<R> ranges{{0, 0, 30}, {0, 20, 1000}, {0, 900, 1200}, {0, 100, 200}, {1, 10, 25}};
  NestRanges(ranges);
  EXPECT_EQ(ranges[0].end, 20u);    // the frame ends where the annotation begins
  EXPECT_EQ(ranges[1].end, 1000u);  // the annotation keeps its length
  EXPECT_EQ(ranges[2].end, 1000u);  // the shorter one that outlived it ends with it
  EXPECT_EQ(ranges[3].end, 200u);
  EXPECT_EQ(ranges[4].end, 25u);
  for (const R& r : ranges) EXPECT_GE(r.end, r.begin);
}

TEST(RangeNesting, NestedRangesAreLeftAlone) {
  std::vector<R> ranges{{0, 0, 100}, {0, 0, 50}, {0, 50, 100}, {0, 60, 70}, {0, 100, 100}};
  std::vector<R> before = ranges;
  NestRanges(ranges);
  for (size_t i = 0; i < ranges.size(); ++i) EXPECT_EQ(ranges[i].end, before[i].end) << i;
}

// grad_scaler_step.py under torch.profiler with Python frames (H100): each studied step is a
// record_function("step"), begun inside record_function.__enter__'s frame. Paired as a stack,
// a step's range took the frame's end (about 20 us); each holds a 1.5 ms read, so it is longer.
TEST(RangeNesting, AStepAnnotationKeepsItsLength) {
  Trace t = LoadTraceFile(testing::SourcePath("tests/fixtures/kineto/grad_scaler_step_stack.json.xz"));
  int steps = 0;
  for (const HostRange& r : t.ranges)
    if (r.name == "step") {
      ++steps;
      EXPECT_GT(r.end - r.begin, Ms(1.4)) << r.begin;
    }
  EXPECT_EQ(steps, 3);
  // Every range of a thread nests in the ones around it.
  std::map<int, std::vector<const HostRange*>> by_thread;
  for (const HostRange& r : t.ranges) by_thread[r.thread].push_back(&r);
  for (auto& [thread, list] : by_thread) {
    std::stable_sort(list.begin(), list.end(), [](const HostRange* a, const HostRange* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end > b->end;
    });
    std::vector<TimeNs> open;
    for (const HostRange* r : list) {
      while (!open.empty() && open.back() <= r->begin) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(r->end, open.back()) << r->name << " overlaps the range around it";
      }
      open.push_back(r->end);
    }
  }
}

}  // namespace
}  // namespace streamlab
