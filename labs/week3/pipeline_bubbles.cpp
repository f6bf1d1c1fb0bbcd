// w3-pipeline-bubbles - two pipeline stages on two GPUs, a step of M micro-batches. Stage 0
// runs the first half of the layers, sends its activation to stage 1 (a peer copy) and gets
// the gradient back. Under GPipe every stage runs all forwards, then all backwards; under
// 1F1B each stage alternates one forward and one backward once the pipe is full. Both leave
// each GPU idle for the same share of the step, (stages - 1) / (micro-batches + stages - 1),
// while the pipe fills and drains; 1F1B's gain is memory: stage 0 holds the activations of
// at most two micro-batches at a time instead of all of them.
#include <algorithm>
#include <cmath>
#include <map>

#include "engine/util/format.h"
#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

constexpr int kStages = 2;

// One pass of one micro-batch on one stage, in the order that stage runs them.
struct Pass {
  int stage, micro;
  bool forward;
};

std::vector<Pass> StageOrder(int stage, int m, bool one_f_one_b) {
  std::vector<Pass> order;
  if (!one_f_one_b) {
    for (int i = 0; i < m; ++i) order.push_back({stage, i, true});
    for (int i = 0; i < m; ++i) order.push_back({stage, i, false});
    return order;
  }
  int warmup = std::min(m, kStages - stage - 1), f = 0, b = 0;
  for (; f < warmup; ++f) order.push_back({stage, f, true});
  while (b < m) {
    if (f < m) order.push_back({stage, f++, true});
    order.push_back({stage, b++, false});
  }
  return order;
}

std::string PassName(const Pass& p) {
  return std::string(p.forward ? "F" : "B") + std::to_string(p.stage) + "_" + std::to_string(p.micro);
}

Expectation BubbleNearTheory(int device, int m) {
  double theory = static_cast<double>(kStages - 1) / (m + kStages - 1);
  return {"GPU " + std::to_string(device) + " idle within 8 points of (stages - 1) / (micro-batches + stages - 1) = " +
              FormatPercent(theory),
          [=](const Trace& t) {
            double idle = DeviceIdleShare(t, device);
            return CheckResult{std::abs(idle - theory) <= 0.08, "idle " + FormatPercent(idle)};
          }};
}

// The most micro-batches whose activations stage 0 holds at once: forwards started less
// backwards finished, at each forward's start.
Expectation HeldActivationsAtMost(int m, int most) {
  return {"stage 0 holds at most " + std::to_string(most) + " micro-batches' activations at a time", [=](const Trace& t) {
            int held = 0;
            for (int i = 0; i < m; ++i) {
              TimeNs at = OpNamed(t, "F0_" + std::to_string(i)).start;
              int n = 0;
              for (int j = 0; j < m; ++j) {
                n += OpNamed(t, "F0_" + std::to_string(j)).start <= at;
                n -= OpNamed(t, "B0_" + std::to_string(j)).end <= at;
              }
              held = std::max(held, n);
            }
            return CheckResult{held <= most, "at most " + std::to_string(held)};
          }};
}

}  // namespace

Lab PipelineBubblesLab() {
  Lab lab;
  lab.id = "w3-pipeline-bubbles";
  lab.week = 3;
  lab.order = 11;
  lab.devices = 2;
  lab.variants = {"gpipe", "1f1b"};
  lab.params = {{"micro_batches", 2, 16, 4, "batches"}, {"forward_us", 50, 5000, 300, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-pipeline-bubbles", kStages);
    int m = static_cast<int>(a["micro_batches"]);
    bool one_f_one_b = a.variant == "1f1b";
    TimeNs forward = Us(a["forward_us"]);
    constexpr uint64_t kBytes = 8 << 20;  // one micro-batch's activation at the cut
    Stream stage[kStages] = {b.CreateStream("stage0", {.device = 0}), b.CreateStream("stage1", {.device = 1})};
    // Sends go on their own stream, as pipeline engines do, so they run beside the compute.
    Stream send[kStages] = {b.CreateStream("send0", {.device = 0}), b.CreateStream("send1", {.device = 1})};
    // Work on `from` done -> `by` (a send stream or the other stage) may go on: an event.
    auto hand_over = [&](Stream from, Stream by, const std::string& name, int device) {
      Event e = b.CreateEvent(name, device);
      from.Record(e);
      by.Wait(e);
    };
    std::vector<Buffer> act0, act1, grad1, grad0;
    for (int i = 0; i < m; ++i) {
      std::string id = std::to_string(i);
      act0.push_back(b.DeviceBuffer("act" + id + "_gpu0", kBytes, 0));
      act1.push_back(b.DeviceBuffer("act" + id + "_gpu1", kBytes, 1));
      grad1.push_back(b.DeviceBuffer("grad" + id + "_gpu1", kBytes, 1));
      grad0.push_back(b.DeviceBuffer("grad" + id + "_gpu0", kBytes, 0));
    }
    // The host issues the passes in the order an ideal pipe runs them (forward 1 unit,
    // backward 2), so every event is recorded before a stream waits for it.
    std::vector<Pass> order[kStages] = {StageOrder(0, m, one_f_one_b), StageOrder(1, m, one_f_one_b)};
    std::map<std::string, int> ends;  // a pass's end, in units
    size_t next[kStages] = {0, 0};
    int free_at[kStages] = {0, 0}, current_device = -1;
    std::map<std::string, Event> sent;
    while (next[0] < order[0].size() || next[1] < order[1].size()) {
      // The stage whose next pass can start first in the ideal pipe.
      int pick = -1, pick_start = 0;
      for (int s = 0; s < kStages; ++s) {
        if (next[s] >= order[s].size()) continue;
        const Pass& p = order[s][next[s]];
        std::string dep = p.forward ? (s == 1 ? "F0_" : "") : (s == 0 ? "B1_" : (s == 1 ? "F1_" : ""));
        if (!dep.empty() && !ends.count(dep + std::to_string(p.micro))) continue;
        int start = std::max(free_at[s], dep.empty() ? 0 : ends[dep + std::to_string(p.micro)]);
        if (pick < 0 || start < pick_start) pick = s, pick_start = start;
      }
      const Pass p = order[pick][next[pick]++];
      if (pick != current_device) b.host().SetDevice(current_device = pick);
      std::string id = std::to_string(p.micro), name = PassName(p);
      KernelSpec work = Spin(p.forward ? forward : 2 * forward, 8);
      if (p.forward && p.stage == 0) {
        stage[0].Launch(name, work, {}, {act0[p.micro]});
        hand_over(stage[0], send[0], "act" + id + "_ready", 0);
        send[0].PeerCopy("send_act" + id, act1[p.micro], act0[p.micro], kBytes);
        sent.emplace("act" + id, b.CreateEvent("act" + id + "_sent", 0));
        send[0].Record(sent.at("act" + id));
      } else if (p.forward) {
        stage[1].Wait(sent.at("act" + id));
        stage[1].Launch(name, work, {act1[p.micro]}, {act1[p.micro]});
      } else if (p.stage == 1) {
        stage[1].Launch(name, work, {act1[p.micro]}, {grad1[p.micro]});
        hand_over(stage[1], send[1], "grad" + id + "_ready", 1);
        send[1].PeerCopy("send_grad" + id, grad0[p.micro], grad1[p.micro], kBytes);
        sent.emplace("grad" + id, b.CreateEvent("grad" + id + "_sent", 1));
        send[1].Record(sent.at("grad" + id));
      } else {
        stage[0].Wait(sent.at("grad" + id));
        stage[0].Launch(name, work, {act0[p.micro], grad0[p.micro]}, {grad0[p.micro]});
      }
      free_at[pick] = pick_start + (p.forward ? 1 : 2);
      ends[name] = free_at[pick];
    }
    b.host().SyncEveryDevice();
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    int m = static_cast<int>(a["micro_batches"]);
    std::vector<Expectation> claims = {BubbleNearTheory(0, m), BubbleNearTheory(1, m)};
    if (a.variant == "gpipe")
      claims.push_back(HeldActivationsAtMost(m, m));  // all of them, at the end of the forwards
    else
      claims.push_back(HeldActivationsAtMost(m, kStages));
    claims.push_back(StartsAfterEnd("F1_0", "send_act0"));
    return claims;
  };
  return lab;
}

}  // namespace streamlab
