// w3-autograd-streams - which stream PyTorch's backward kernels run on, and which stream the
// gradients are ready on. Each backward op runs on the stream its forward op used, so a
// forward on a side stream puts the backward on that side stream too. When backward() returns,
// the autograd engine has made the stream that was current at the backward() call wait for
// the backward's last kernels - and only that one. Called from the default stream, the
// gradients are safe to use there; called inside `with torch.cuda.stream(side)`, the default
// stream races with them unless it waits for the side stream first.
//
// The CUDA C++ program places every kernel, copy, record and wait as autograd does, by hand,
// on one host thread; the PyTorch program is a real autograd.Function whose backward() the
// engine calls on its own thread (its body is written by hand below, as the generator writes
// programs op by op and has no backward()).
#include <string>
#include <vector>

#include "engine/scenario/scenario_builder.h"
#include "engine/trace/trace_query.h"
#include "labs/catalogue.h"

namespace streamlab {
namespace {

constexpr uint64_t kBytes = 64 << 10;  // 16384 floats: x, w, the gradient and its use

// The ops the PyTorch program's body names, by their op numbers.
struct AutogradOps {
  int load = -1, wait_batch = -1, fwd = -1, use = -1, wait_side = -1, sync = -1;
  std::vector<int> backward_call;  // what loss.backward() makes happen, in order
};

std::string Join(const std::vector<int>& ops) {
  std::string out;
  for (int op : ops) out += (out.empty() ? "" : "+") + std::to_string(op);
  return out;
}

// The program's thread_0: a real autograd.Function whose forward and backward launch the
// lab's fwd and bwd, and a real loss.backward() called with the variant's current stream.
std::string TorchBody(const AutogradOps& o, bool side_caller) {
  std::string n = std::to_string(kBytes / 4);
  std::string bwd = std::to_string(o.backward_call[side_caller ? 1 : 3]);
  std::string s =
      "weight = torch.zeros(" + n + ", device=\"cuda:0\", requires_grad=True)  # the layer's parameter\n\n\n"
      "class Layer(torch.autograd.Function):\n"
      "    \"\"\"One layer: forward launches fwd; backward, which autograd's engine calls on its own\n"
      "    thread with the stream forward used made current, launches bwd (g = x + 1).\"\"\"\n\n"
      "    @staticmethod\n    def forward(ctx, x, w):\n"
      "        {op:" + std::to_string(o.fwd) + "}\n"
      "        return torch.empty(1, device=\"cuda:0\")  # the loss (its value is not used)\n\n"
      "    @staticmethod\n    def backward(ctx, seed):\n"
      "        {op:" + bwd + "}\n"
      "        return None, buf[\"g\"].view(torch.float32)\n\n\n"
      "def thread_0(tag):\n"
      "    x = buf[\"x\"].view(torch.float32)\n"
      "    weight.grad = buf[\"grad_w\"].view(torch.float32)  # zeros, as zero_grad(set_to_none=False) leaves it\n"
      "    with op_range(tag, " + std::to_string(o.load) + "), torch.cuda.stream(default):\n"
      "        {op:" + std::to_string(o.load) + "}  # the batch arrives on the default stream\n"
      "    with op_range(tag, " + std::to_string(o.wait_batch) + "):\n"
      "        {op:" + std::to_string(o.wait_batch) + "}\n"
      "    with op_range(tag, " + std::to_string(o.fwd) + "), torch.cuda.stream(side):\n"
      "        loss = Layer.apply(x, weight)  # forward on the side stream\n";
  if (side_caller)
    s += "    # backward() called with side current: the engine syncs side, where the grads are already.\n"
         "    with op_range(tag, \"" + Join(o.backward_call) + "\"), torch.cuda.stream(side):\n"
         "        loss.backward()\n";
  else
    s += "    # backward() called with default current: the engine makes side wait for the seed\n"
         "    # gradient it fills on default, and default wait for side once the grads are done.\n"
         "    with op_range(tag, \"" + Join(o.backward_call) + "\"):\n"
         "        loss.backward()\n";
  if (o.wait_side >= 0)
    s += "    with op_range(tag, " + std::to_string(o.wait_side) + "):\n"
         "        torch.cuda.current_stream().wait_stream(side)  # the documented fix\n";
  s += "    # The grads used on the default stream.\n"
       "    with op_range(tag, " + std::to_string(o.use) + "), torch.cuda.stream(default):\n"
       "        {op:" + std::to_string(o.use) + "}\n"
       "    with op_range(tag, " + std::to_string(o.sync) + "):\n"
       "        torch.cuda.synchronize()";
  return s;
}

// bwd ran on the stream fwd ran on. In CUDA C++ and the simulator the lab puts it there; in
// PyTorch the engine chose the stream, and the mapping notes any op it ran elsewhere.
Expectation BackwardOnForwardStream() {
  return {"bwd runs on side, the stream fwd ran on", [](const Trace& t) {
            const Scenario& s = t.scenario;
            int fwd = OpNamed(t, "fwd").op, bwd = OpNamed(t, "bwd").op;
            bool same = s.ops[fwd].stream == s.ops[bwd].stream;
            auto names_bwd = [](const TraceNote& n, const char* var) {
              auto v = n.vars.find(var);
              return v != n.vars.end() && v->second == "bwd";
            };
            for (const TraceNote& n : t.notes)
              if ((n.key == "torch_stream_split" || n.key == "torch_stream_merged") &&
                  (names_bwd(n, "op") || names_bwd(n, "other")))
                same = false;
            return CheckResult{same, "bwd on " + s.streams[s.ops[bwd].stream].name + (same ? "" : " (placement differs)")};
          }};
}

}  // namespace

Lab AutogradStreamsLab() {
  Lab lab;
  lab.id = "w3-autograd-streams";
  lab.week = 3;
  lab.order = 9;
  lab.variants = {"default-caller", "side-caller", "wait-stream"};
  lab.params = {{"fwd_us", 50, 5000, 200, "us"}, {"bwd_us", 100, 20000, 2000, "us"}};

  lab.build = [](const LabArgs& a) {
    ScenarioBuilder b("w3-autograd-streams");
    Stream def = b.LegacyDefaultStream(0, "default");  // PyTorch's default stream
    Stream side = b.CreateStream("side", {.non_blocking = true});
    Buffer x = b.DeviceBuffer("x", kBytes), w = b.DeviceBuffer("w", kBytes), g = b.DeviceBuffer("g", kBytes);
    Buffer grad_w = b.DeviceBuffer("grad_w", kBytes), out = b.DeviceBuffer("out", kBytes);
    Buffer seed = b.DeviceBuffer("seed", 4);
    for (Buffer checked : {x, g, grad_w, out}) b.CheckContents(checked);
    bool side_caller = a.variant != "default-caller";
    AutogradOps o;
    o.load = def.Memset("load_x", x, kBytes, 0x3f);  // x = 0x3f3f3f3f, a float PyTorch adds exactly
    o.wait_batch = side.WaitStream(def);
    o.fwd = side.Launch("fwd", Spin(Us(a["fwd_us"])), {x, w}, {});
    // loss.backward(): the seed gradient (ones_like(loss)) on the stream current at the call.
    o.backward_call.push_back((side_caller ? side : def).Memset("seed", seed, 4, 0));
    if (!side_caller) {  // the engine moves the seed to side, where loss's backward runs
      Event seeded = b.CreateEvent("seed_ready");
      o.backward_call.push_back(def.Record(seeded));
      o.backward_call.push_back(side.Wait(seeded));
    }
    o.backward_call.push_back(side.Launch("bwd", Spin(Us(a["bwd_us"])), {x}, {g}));  // on fwd's stream
    o.backward_call.push_back(side.Copy("accumulate", grad_w, g, kBytes));  // w.grad += g, into zeros
    if (!side_caller) {  // the caller's stream waits for the leaf's stream before backward() returns
      Event done = b.CreateEvent("grads_ready");
      o.backward_call.push_back(side.Record(done));
      o.backward_call.push_back(def.Wait(done));
    }
    if (a.variant == "wait-stream") o.wait_side = def.WaitStream(side);
    o.use = def.Launch("use_grads", Spin(Us(20)), {grad_w}, {out});
    o.sync = b.host().SyncDevice();
    b.TorchSource(TorchBody(o, side_caller));
    return b.Build();
  };

  lab.expectations = [](const LabArgs& a) -> std::vector<Expectation> {
    if (a.variant == "side-caller")
      return {BackwardOnForwardStream(),
              EndsBeforeEnd("use_grads", "accumulate",
                            "use_grads ends before accumulate does: it read the gradient before it was there"),
              ContentsWrong("out"), RacesFlagged(1)};
    return {BackwardOnForwardStream(), StartsAfterEnd("use_grads", "accumulate"), ContentsCorrect("out"),
            RacesFlagged(0)};
  };
  return lab;
}

}  // namespace streamlab
