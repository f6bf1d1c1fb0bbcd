// The recorder's call roles and the conversion's reading of them share one table
// (engine/ingest/call_roles.h): every role the recorder can write has a distinct name, and a log
// line with that name is read back as that role.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/ingest/call_roles.h"
#include "engine/ingest/recording.h"

namespace streamlab {
namespace {

TEST(CallRoles, EveryRoleHasItsOwnNameAndReadsBack) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kCallRoleCount; ++i) {
    auto role = static_cast<CallRole>(i);
    std::string_view name = CallRoleName(role);
    EXPECT_FALSE(name.empty()) << i;
    EXPECT_TRUE(names.insert(name).second) << "two roles are named " << name;
    EXPECT_EQ(ParseCallRole(name), role) << name;
  }
  EXPECT_FALSE(ParseCallRole("launch_kernel").has_value());
}

TEST(CallRoles, EachRoleTheRecorderWritesIsUnderstoodByTheConversion) {
  const std::string meta = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":1,\"start\":0}\n";
  for (size_t i = 0; i < kCallRoleCount; ++i) {
    auto role = static_cast<CallRole>(i);
    // Roles the recorder writes; launch_args lines are folded into their launch as they are read.
    if (role == CallRole::kWaitWithoutRecord || role == CallRole::kLaunchArgs) continue;
    std::string line = "{\"t\":\"call\",\"tid\":0,\"fn\":\"f\",\"role\":\"" + std::string(CallRoleName(role)) +
                       "\",\"dom\":0,\"b\":1,\"e\":2,\"corr\":1}\n";
    Recording r = ParseRecording(meta + line, "roles.jsonl");
    ASSERT_EQ(r.calls.size(), 1u) << CallRoleName(role);
    EXPECT_EQ(r.calls[0].role, role) << CallRoleName(role);
  }
}

TEST(CallRoles, ARoleThisBuildDoesNotKnowReadsAsAnyOtherCall) {
  const std::string meta = "{\"t\":\"meta\",\"format\":\"streamlab-record\",\"version\":1,\"pid\":1,\"start\":0}\n";
  Recording r = ParseRecording(
      meta + "{\"t\":\"call\",\"tid\":0,\"fn\":\"f\",\"role\":\"teleport\",\"dom\":0,\"b\":1,\"e\":2,\"corr\":1}\n", "x.jsonl");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].role, CallRole::kOther);
}

}  // namespace
}  // namespace streamlab
