// w3-record-stream-hazard - memory freed on one stream while another still reads it.
// PyTorch's caching allocator ties each block to the stream it was allocated on: after
// `del x` the block can be handed out again at once for new work on that stream, even
// though a side stream's kernel is still reading x. The new tensor's writes land in the
// memory the side stream reads, and its result is wrong. x.record_stream(side) makes the
// allocator wait for the side stream's work before reusing the block; an event (the main
// stream waiting for the side stream) orders the reuse instead.
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {
Lab RecordStreamHazardLab() {
  Lab lab;
  lab.id = "w3-record-stream-hazard";
  lab.week = 3;
  lab.order = 2;
  lab.variants = {"hazard", "record-stream", "wait-event"};
  lab.params = {{"read_us", 100, 5000, 1000, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-record-stream-hazard");
    constexpr uint64_t kBytes = 256 << 10;  // small: writing every element adds little to the spin
    Stream main = b.CreateStream("main", {.non_blocking = true});
    Stream side = b.CreateStream("side", {.non_blocking = true});
    Buffer x = b.DeviceBuffer("x", kBytes);
    Buffer out = b.DeviceBuffer("out", kBytes);
    b.CheckContents(x);
    b.CheckContents(out);
    main.Launch("fill_x", Spin(Us(20)), {}, {x});                 // x = 1
    side.WaitStream(main);
    side.Launch("read_x", Spin(Us(a["read_us"])), {x}, {out});    // out = x + 1, read at the end
    // del x: the block goes back to main's pool.
    if (a.variant == "wait-event") main.WaitStream(side);        // reuse only after side is done
    Buffer y = a.variant == "record-stream" ? b.DeviceBuffer("y", kBytes)  // the allocator must wait: fresh block
                                            : b.ReuseMemoryOf("y", x);      // x's block, at once
    main.Memset("fill_y", y, kBytes, 7);
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    // The main stream was not held back: fill_y was done while read_x was still running.
    Expectation not_held_back =
        EndsBeforeEnd("fill_y", "read_x", "fill_y is done before read_x finishes (main is not held back)");
    if (a.variant == "hazard")
      return {not_held_back, ContentsWrong("out"), RacesFlagged(1)};
    if (a.variant == "record-stream") return {not_held_back, ContentsCorrect("out"), RacesFlagged(0)};
    return {StartsAfterEnd("fill_y", "read_x"), ContentsCorrect("out"), RacesFlagged(0)};
  };
  return lab;
}

}  // namespace streamlab
