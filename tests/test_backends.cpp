// The backends' one table (engine/trace/backend.h): every backend has a distinct name that
// reads back, and a name no backend has reads as none.
#include <gtest/gtest.h>

#include <set>

#include "engine/trace/backend.h"

namespace streamlab {
namespace {

TEST(Backends, EachNameReadsBackAsItsBackend) {
  std::set<std::string_view> names;
  for (const auto& [backend, name] : kBackendNames) {
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(BackendName(backend), name);
    EXPECT_EQ(ParseBackend(name), backend);
  }
  EXPECT_FALSE(ParseBackend("gpu").has_value());
  EXPECT_TRUE(OnGpu(Backend::kCuda) && OnGpu(Backend::kTorch));
  EXPECT_FALSE(OnGpu(Backend::kSim) || OnGpu(Backend::kAuto));
}

}  // namespace
}  // namespace streamlab
