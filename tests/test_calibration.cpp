// Calibration, tested without a GPU: the calibration scenarios run on the simulator with a
// known profile give that profile back, figure by figure - for the built-in H200 profile
// and for one with every figure changed, so a fit that ignored its trace would fail.
#include <gtest/gtest.h>

#include "engine/sim/calibration.h"
#include "tests/test_util.h"

namespace streamlab {
namespace {

Calibration CalibrateSimulator(const DeviceProfile& truth, int devices) {
  std::vector<CalibrationRun> runs = CalibrationRuns(truth.sm_count, devices);
  std::vector<Trace> traces;
  for (const CalibrationRun& r : runs) traces.push_back(testing::Simulate(r.scenario, truth));
  return FitProfile(runs, traces, DeviceProfile{});
}

void ExpectRecovered(const DeviceProfile& truth, const Calibration& c) {
  Json want = ProfileToJson(truth), got = ProfileToJson(c.profile);
  ASSERT_GE(c.figures.size(), 30u);
  for (const CalibratedFigure& f : c.figures) {
    double expected = want.at(f.field).get<double>();
    // 2 % or 300 ns: medians of simulated runs land on the figure, rounded to the ns.
    EXPECT_NEAR(got.at(f.field).get<double>(), expected, std::max(0.02 * expected, 300.0)) << f.field << " (" << f.how << ")";
  }
}

TEST(Calibration, TheSimulatorsOwnProfileComesBack) {
  DeviceProfile truth;
  ExpectRecovered(truth, CalibrateSimulator(truth, 2));
}

TEST(Calibration, EveryFigureIsReadFromTheRun) {
  DeviceProfile t;
  t.sm_count = 114;
  t.max_threads_per_sm = 1024;
  t.max_blocks_per_sm = 16;
  t.launch_host = Us(5.5);
  t.record_host = Us(2.5);
  t.wait_host = Us(1.5);
  t.query_host = Us(0.8);
  t.sync_wake = Us(5);
  t.memset_host = Us(14);
  t.malloc_base = Us(35);
  t.malloc_per_mb = Ns(900);
  t.free_host = Us(70);
  t.malloc_host_base = Us(80);
  t.malloc_host_per_mb = Us(250);
  t.set_device_host = Us(0.6);
  t.graph_launch_host = Us(3.5);
  t.graph_node_host = Ns(150);
  t.graph_node_gap = Ns(700);
  t.graph_launch_gap = Ns(2300);
  t.module_load = Us(45);
  t.thread_spawn = Us(41);
  t.module_load_host = Us(33);
  t.submit_latency = Us(7);
  t.same_stream_gap = Us(2);
  t.cross_stream_gap = Us(9);
  t.h2d_pinned_gbps = 25;
  t.d2h_pinned_gbps = 21;
  t.pageable_gbps = 9;
  t.pageable_d2h_gbps = 14;
  t.d2d_gbps = 1100;
  t.peer_gbps = 150;
  t.memset_gbps = 1600;
  t.copy_fixed = Us(3);
  t.compute_ns_per_fma = 2.6;
  t.sm_memory_gbps = 20;
  t.atomic_ns = 60;
  t.shared_ns_per_iter = 9;
  Calibration c = CalibrateSimulator(t, 2);
  ExpectRecovered(t, c);
  EXPECT_EQ(c.profile.sm_count, 114);
}

TEST(Calibration, OneGpuKeepsPeerBandwidthAndSaysSo) {
  DeviceProfile truth;
  truth.peer_gbps = 99;
  Calibration c = CalibrateSimulator(truth, 1);
  EXPECT_EQ(c.profile.peer_gbps, DeviceProfile{}.peer_gbps);
  EXPECT_NE(c.kept.front().find("peer_gbps"), std::string::npos);
}

}  // namespace
}  // namespace streamlab
