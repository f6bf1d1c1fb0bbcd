// The host's ranges laid out in rows for the chart (app/gui/chart/gantt_ranges.cpp): nesting gives the
// row, no row holds two ranges that overlap (even in a file whose ranges are not nested), each
// row's ends ascend (a frame bisects them), and what is nested too deep is counted, not drawn.
#include <gtest/gtest.h>

#include "app/gui/chart/gantt_ranges.h"

namespace streamlab {
namespace {

std::vector<Lane> HostLanes(int threads) {
  std::vector<Lane> lanes;
  for (int t = 0; t < threads; ++t) lanes.push_back({LaneKind::kHost, -1, -1, "host", "", t});
  lanes.push_back({LaneKind::kStream, 0, 0, "s", "", 0});
  return lanes;
}

// Every row: begins and ends ascending, neighbours not overlapping.
void ExpectRowsWellFormed(const RangeRows& rr) {
  for (size_t d = 0; d < rr.rows.size(); ++d) {
    ASSERT_EQ(rr.rows[d].size(), rr.begins[d].size());
    ASSERT_EQ(rr.rows[d].size(), rr.ends[d].size());
    for (size_t i = 1; i < rr.rows[d].size(); ++i) {
      EXPECT_LE(rr.begins[d][i - 1], rr.begins[d][i]) << "row " << d;
      EXPECT_LE(rr.ends[d][i - 1], rr.ends[d][i]) << "row " << d;
      EXPECT_LE(rr.rows[d][i - 1]->end, rr.rows[d][i]->begin) << "row " << d << " overlaps at " << i;
    }
  }
}

TEST(GanttRanges, NestingGivesTheRowAndThreadsTheirLanes) {
  Trace t;
  t.ranges = {{0, "step", 0, 100}, {0, "forward", 10, 50}, {0, "aten::mm", 20, 30}, {0, "backward", 50, 90},
              {1, "autograd", 60, 80}, {7, "no lane", 0, 10}};
  std::vector<RangeRows> rows = LayOutRanges(t, HostLanes(2));
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(rows[0].rows.size(), 3u);
  EXPECT_EQ(rows[0].rows[0][0]->name, "step");
  ASSERT_EQ(rows[0].rows[1].size(), 2u);  // forward, then backward beginning where it ends
  EXPECT_EQ(rows[0].rows[1][0]->name, "forward");
  EXPECT_EQ(rows[0].rows[1][1]->name, "backward");
  EXPECT_EQ(rows[0].rows[2][0]->name, "aten::mm");
  ASSERT_EQ(rows[1].rows.size(), 1u);
  EXPECT_EQ(rows[1].rows[0][0]->name, "autograd");
  EXPECT_TRUE(rows[2].rows.empty());  // a stream lane: no ranges
  EXPECT_EQ(rows[0].deeper, 0u);
  ExpectRowsWellFormed(rows[0]);
}

TEST(GanttRanges, RangesThatAreNotNestedNeverShareARow) {
  Trace t;
  // Partly overlapping, equal begins, zero-length and backwards (end before begin: left out).
  t.ranges = {{0, "a", 0, 10},  {0, "b", 5, 15},  {0, "c", 8, 12}, {0, "d", 11, 20}, {0, "e", 12, 12},
              {0, "f", 12, 12}, {0, "g", 14, 30}, {0, "h", 3, 1},  {0, "i", 0, 10}};
  std::vector<RangeRows> rows = LayOutRanges(t, HostLanes(1));
  size_t drawn = 0;
  for (const auto& row : rows[0].rows) drawn += row.size();
  EXPECT_EQ(drawn, 8u);  // all but the backwards one
  ExpectRowsWellFormed(rows[0]);
}

TEST(GanttRanges, DeeperThanTheRowsDrawnIsCounted) {
  Trace t;
  for (int i = 0; i < 40; ++i) t.ranges.push_back({0, "frame " + std::to_string(i), i, 1000 - i});
  std::vector<RangeRows> rows = LayOutRanges(t, HostLanes(1));
  EXPECT_EQ(rows[0].rows.size(), kMaxRangeRows);
  EXPECT_EQ(rows[0].deeper, 40 - kMaxRangeRows);
  ExpectRowsWellFormed(rows[0]);
}

TEST(GanttRanges, OneNameOneColour) {
  EXPECT_EQ(RangeColor("aten::mm"), RangeColor("aten::mm"));
  EXPECT_NE(RangeColor("aten::mm"), RangeColor("aten::addmm"));
}

}  // namespace
}  // namespace streamlab
