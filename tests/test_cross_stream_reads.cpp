// The recorder's check of a launch's addresses against the copies other streams made
// (kernels/recorder/cross_stream_reads.h): the launches whose Python line a race or a wait
// needs get their stack, a bounded number of times a copy, and launches on the copy's own
// stream or away from its destination never do.
#include <gtest/gtest.h>

#include <initializer_list>

#include "kernels/recorder/cross_stream_reads.h"

namespace streamlab::recorder {
namespace {

LaunchAddresses Launch(std::initializer_list<uint64_t> addresses) {
  LaunchAddresses a;
  for (uint64_t at : addresses) a.at[a.count++] = at;
  return a;
}

// The module keeps one table per process: each test uses addresses of its own.
TEST(CrossStreamReads, AKernelReadingAnotherStreamsCopyDestinationGetsItsStack) {
  constexpr uint64_t kSide = 0x5000, kDefault = 0;
  NoteCopyDestination(kSide, 0x7000'0000, 4096);  // the prefetcher's copy, on its side stream
  EXPECT_FALSE(ReadsAnotherStreamsCopy(kSide, Launch({0x7000'0010})));      // its own stream: ordered
  EXPECT_FALSE(ReadsAnotherStreamsCopy(kDefault, Launch({0x7000'1000})));   // just past the end
  EXPECT_FALSE(ReadsAnotherStreamsCopy(kDefault, Launch({0x6fff'ffff})));   // just before it
  EXPECT_TRUE(ReadsAnotherStreamsCopy(kDefault, Launch({0x1234, 0x7000'0fff})));  // the last byte
}

TEST(CrossStreamReads, EachCopyLendsOnlyItsFirstReadersAStack) {
  constexpr uint64_t kSide = 0x6000, kDefault = 0;
  NoteCopyDestination(kSide, 0x8000'0000, 1 << 20);
  int stacks = 0;
  for (int i = 0; i < 100; ++i) stacks += ReadsAnotherStreamsCopy(kDefault, Launch({0x8000'0100})) ? 1 : 0;
  EXPECT_EQ(stacks, 4);
  // The next step's copy into the same buffer: its first readers are read again.
  NoteCopyDestination(kSide, 0x8000'0000, 1 << 20);
  EXPECT_TRUE(ReadsAnotherStreamsCopy(kDefault, Launch({0x8000'0100})));
}

TEST(CrossStreamReads, ALaterCopyIntoTheBufferMakesItsStreamTheWriter) {
  constexpr uint64_t kSide = 0x7000, kDefault = 0;
  NoteCopyDestination(kSide, 0x9000'0000, 4096);
  NoteCopyDestination(kDefault, 0x9000'0000, 4096);  // refilled on the default stream
  EXPECT_FALSE(ReadsAnotherStreamsCopy(kDefault, Launch({0x9000'0040})));
  EXPECT_TRUE(ReadsAnotherStreamsCopy(kSide, Launch({0x9000'0040})));
}

// heldout7's prefetcher, recorded on an H200: between the side stream's copy of the next batch
// and the step that reads it, the default stream made dozens of memsets (cuDNN's workspaces).
// They must not push the side stream's copy out of the table.
TEST(CrossStreamReads, AStreamsOwnManyCopiesKeepAnotherStreamsCopy) {
  constexpr uint64_t kSide = 0x9000, kDefault = 0;
  NoteCopyDestination(kSide, 0xb000'0000, 77 << 20);  // the next batch
  for (uint64_t i = 0; i < 500; ++i) NoteCopyDestination(kDefault, 0xc000'0000 + i * 4096, 4096);
  EXPECT_TRUE(ReadsAnotherStreamsCopy(kDefault, Launch({0xb000'0000})));
  // And the default stream's own latest copies stay known to a reader on the side stream.
  EXPECT_TRUE(ReadsAnotherStreamsCopy(kSide, Launch({0xc000'0000 + 499 * 4096})));
}

TEST(CrossStreamReads, NoDestinationNoAddressesNoStack) {
  EXPECT_FALSE(ReadsAnotherStreamsCopy(0, Launch({})));
  NoteCopyDestination(0x8000, 0, 4096);  // no destination: nothing noted
  NoteCopyDestination(0x8000, 0xa000'0000, 0);
  EXPECT_FALSE(ReadsAnotherStreamsCopy(0, Launch({0xa000'0000})));
}

}  // namespace
}  // namespace streamlab::recorder
