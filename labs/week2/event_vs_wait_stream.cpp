// w2-event-vs-wait-stream - an event marks one point; wait_stream waits for everything so far.
// s1 runs step1, records e, then runs step2. s2 either waits on e (so it starts after step1)
// or calls s2.wait_stream(s1) after both steps were submitted (so it starts after step2).
#include "engine/scenario/scenario_builder.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab EventVsWaitStreamLab() {
  Lab lab;
  lab.id = "w2-event-vs-wait-stream";
  lab.week = 2;
  lab.order = 1;
  lab.variants = {"event", "wait-stream"};
  lab.params = {{"kernel_us", 50, 10000, 400, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-event-vs-wait-stream");
    KernelSpec work = Spin(Us(a["kernel_us"]));
    Stream s1 = b.CreateStream("s1");
    Stream s2 = b.CreateStream("s2");
    Event e = b.CreateEvent("e");
    s1.Launch("step1", work);
    s1.Record(e);              // e marks the point after step1
    s1.Launch("step2", work);
    if (a.variant == "event") s2.Wait(e);  // wait for step1 only
    else s2.WaitStream(s1);                // wait for everything submitted to s1: step1 and step2
    s2.Launch("consumer", work);
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "event") return {StartsAfterEnd("consumer", "step1"), OverlapAtLeast("consumer", "step2", 0.8)};
    return {StartsAfterEnd("consumer", "step2")};
  };
  return lab;
}

}  // namespace streamlab
