// w1-host-sync-scopes - what the host waits for: the device, one stream, or one event.
// s1 runs a short kernel, s2 a long one. cudaDeviceSynchronize waits for both;
// cudaStreamSynchronize(s1) and cudaEventSynchronize(e) wait only for s1's kernel. The
// difference is scope - what the host needs finished - not a cheaper call.
#include "engine/scenario/scenario_builder.h"
#include "engine/util/format.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {

Lab HostSyncScopesLab() {
  Lab lab;
  lab.id = "w1-host-sync-scopes";
  lab.week = 1;
  lab.order = 3;
  lab.variants = {"device", "stream", "event"};
  lab.params = {{"short_us", 50, 5000, 300, "us"}, {"long_us", 200, 20000, 2000, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w1-host-sync-scopes");
    Stream s1 = b.CreateStream("s1");
    Stream s2 = b.CreateStream("s2");
    Event done = b.CreateEvent("done");
    s1.Launch("short", Spin(Us(a["short_us"])));
    s1.Record(done);
    s2.Launch("long", Spin(Us(a["long_us"])));
    if (a.variant == "device") b.host().SyncDevice();      // waits for everything
    if (a.variant == "stream") s1.Synchronize();           // waits for s1 only
    if (a.variant == "event") b.host().SyncEvent(done);    // waits for what `done` captured
    b.host().Work("use the result", Us(50));
    b.host().SyncDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    bool narrow = a.variant != "device";
    return {{narrow ? "the host resumes after short, before long ends" : "the host resumes only after long ends",
             [narrow](const Trace& t) {
               // The first sync is the op after the two launches and the record.
               const OpRecord* sync = nullptr;
               for (size_t i = 0; i < t.ops.size(); ++i) {
                 OpKind k = t.scenario.ops[i].kind;
                 if (k == OpKind::kSyncDevice || k == OpKind::kSyncStream || k == OpKind::kSyncEvent) {
                   sync = &t.ops[i];
                   break;
                 }
               }
               const OpRecord& s = OpNamed(t, "short");
               const OpRecord& l = OpNamed(t, "long");
               TimeNs tol = t.clock_error + Us(1);
               bool ok = narrow ? (sync->ret >= s.end - tol && sync->ret < l.end)
                                : sync->ret >= l.end - tol;
               return CheckResult{ok, "host resumed " + FormatDuration(sync->ret - s.end) + " after short ended, " +
                                          FormatDuration(l.end - sync->ret) + " before long ended"};
             }}};
  };
  return lab;
}

}  // namespace streamlab
