// w2-fan-out-fan-in - one event releases many streams; events join them back.
// A producer on s0 records `ready`; four consumer streams wait on it and run side by side;
// each records its own event, and s0 waits on all four before the join kernel.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab FanOutFanInLab() {
  Lab lab;
  lab.id = "w2-fan-out-fan-in";
  lab.week = 2;
  lab.order = 4;
  lab.variants = {"fan-out-fan-in"};
  lab.params = {{"kernel_us", 50, 10000, 400, "us"}, {"consumers", 2, 8, 4, "streams"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w2-fan-out-fan-in");
    KernelSpec work = Spin(Us(a["kernel_us"]));
    int n = static_cast<int>(a["consumers"]);
    Stream main = b.CreateStream("main");
    Event ready = b.CreateEvent("ready");
    main.Launch("producer", work);
    main.Record(ready);  // fan out: one event ...
    std::vector<Event> done;
    for (int i = 1; i <= n; ++i) {
      Stream s = b.CreateStream("s" + std::to_string(i));
      s.Wait(ready);     // ... released to every consumer
      s.Launch("consumer" + std::to_string(i), work);
      done.push_back(b.CreateEvent("done" + std::to_string(i)));
      s.Record(done.back());
    }
    for (Event e : done) main.Wait(e);  // fan in: join waits for all of them
    main.Launch("join", work);
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    int n = static_cast<int>(a["consumers"]);
    std::vector<Expectation> checks;
    for (int i = 1; i <= n; ++i) {
      checks.push_back(StartsAfterEnd("consumer" + std::to_string(i), "producer"));
      checks.push_back(StartsAfterEnd("join", "consumer" + std::to_string(i)));
    }
    checks.push_back(OverlapAtLeast("consumer1", "consumer" + std::to_string(n), 0.8));
    return checks;
  };
  return lab;
}

}  // namespace streamlab
