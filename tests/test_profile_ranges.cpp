// Figures that vary between machine starts: a profile's ranges load, save and fail clearly,
// the profiles at both ends move each figure the right way, and a simulated run that
// depends on a ranged figure says what its GPU time would be at both ends.
#include <gtest/gtest.h>

#include "engine/scenario/scenario_builder.h"
#include "engine/sim/profile_ranges.h"
#include "engine/trace/trace_query.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

DeviceProfile Ranged() {
  DeviceProfile p;
  p.ranges = {{"malloc_host_per_mb_ns", 300e3, 800e3}, {"pageable_gbps", 6, 9}};
  p.ranges_from = "two starts";
  return p;
}

TEST(ProfileRanges, RoundTripThroughJson) {
  DeviceProfile back = ProfileFromJson(ProfileToJson(Ranged()), "test");
  ASSERT_EQ(back.ranges.size(), 2u);
  EXPECT_EQ(back.ranges[0].field, "malloc_host_per_mb_ns");
  EXPECT_EQ(back.ranges[1].high, 9);
  EXPECT_EQ(back.ranges_from, "two starts");
  EXPECT_FALSE(ProfileToJson(DeviceProfile{}).contains("ranges"));
}

TEST(ProfileRanges, BadRangesAreClearErrors) {
  auto error = [](Json ranges) {
    Json j = ProfileToJson(DeviceProfile{});
    j["ranges"] = std::move(ranges);
    return testing::InputErrorOf([&] { ProfileFromJson(j, "p.json"); });
  };
  EXPECT_NE(error(Json{{"no_such_ns", {1, 2}}}).find("no numeric figure \"no_such_ns\""), std::string::npos);
  EXPECT_NE(error(Json{{"launch_host_ns", {5, 2}}}).find("0 <= low <= high"), std::string::npos);
  EXPECT_NE(error(Json{{"launch_host_ns", 3}}).find("expected [low, high]"), std::string::npos);
  EXPECT_NE(error(Json::array()).find("[low, high] pairs"), std::string::npos);
}

TEST(ProfileRanges, BoundsMoveCostsAndBandwidthsOppositeWays) {
  DeviceProfile fast = ProfileAtBound(Ranged(), RangeBound::kFast), slow = ProfileAtBound(Ranged(), RangeBound::kSlow);
  EXPECT_EQ(fast.malloc_host_per_mb, 300000);
  EXPECT_EQ(slow.malloc_host_per_mb, 800000);
  EXPECT_EQ(fast.pageable_gbps, 9);
  EXPECT_EQ(slow.pageable_gbps, 6);
  EXPECT_TRUE(fast.ranges.empty());
}

TEST(ProfileRanges, ARunThatPinsMemorySaysItsRange) {
  ScenarioBuilder b("pin");
  Stream s = b.CreateStream("s");
  Buffer pinned = b.PinnedBuffer("p", 64ull << 20);
  s.Launch("before", Spin(Us(100), 1));
  b.host().MallocHost(pinned);
  s.Launch("after", Spin(Us(100), 1));
  b.host().SyncDevice();
  Scenario scenario = b.Build();
  DeviceProfile p = Ranged();
  std::optional<TraceNote> note = RangeNote(p, scenario, testing::Simulate(scenario, p));
  ASSERT_TRUE(note.has_value());
  EXPECT_EQ(note->vars.at("figures"), "malloc_host_per_mb_ns");
  // The GPU waits for the host to pin 64 MB between its two kernels: 300 against 800 us per MB.
  TimeNs fast = GpuMakespan(testing::Simulate(scenario, ProfileAtBound(p, RangeBound::kFast)));
  TimeNs slow = GpuMakespan(testing::Simulate(scenario, ProfileAtBound(p, RangeBound::kSlow)));
  EXPECT_NEAR(static_cast<double>(slow - fast), 64 * 500e3, 100e3);
  EXPECT_NE(note->text.find("two starts"), std::string::npos);
  // Without ranges, or with ranges this run does not touch, nothing is said.
  EXPECT_FALSE(RangeNote(DeviceProfile{}, scenario, testing::Simulate(scenario)).has_value());
  DeviceProfile unused;
  unused.ranges = {{"peer_gbps", 100, 400}};
  EXPECT_FALSE(RangeNote(unused, scenario, testing::Simulate(scenario, unused)).has_value());
}

}  // namespace
}  // namespace streamlab
