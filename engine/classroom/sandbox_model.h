// The sandbox: a scenario the student builds by hand. Every edit goes through one of these
// actions, which applies it to a copy and validates the result; an edit that would make an
// invalid scenario is refused with the reason and changes nothing. The same actions drive
// the editor's buttons and the scripted test (`streamlab --sandbox-script FILE`). Saved
// files are the scenario JSON `streamlab-cli run FILE` accepts.
#pragma once

#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace streamlab {

class SandboxModel {
 public:
  SandboxModel();
  const Scenario& scenario() const { return scenario_; }
  // The reason the last edit was refused (empty after a successful one).
  const std::string& refusal() const { return refusal_; }

  // Each returns true if the edit was made.
  bool AddStream(const std::string& name, bool non_blocking, int priority);
  bool AddEvent(const std::string& name);
  bool AddKernel(int stream, const std::string& name, double us, int grid);
  bool AddCopy(int stream, const std::string& name, double megabytes, bool pinned);  // host -> device
  bool AddRecord(int stream, int event);
  bool AddWaitEvent(int stream, int event);
  bool AddWaitStream(int stream, int other);
  bool AddSyncDevice();
  bool AddSyncStream(int stream);
  bool AddHostWork(double us);
  bool SetStream(int stream, bool non_blocking, int priority);
  bool RemoveStream(int stream);
  // A kernel's time per block (spin kernels; for a grid that fits on the GPU at once, the
  // kernel's time) and grid; grid <= 0 keeps it. Refused for an op that is not a kernel.
  bool SetKernel(int op, double us, int grid);
  bool DuplicateOp(int op, const std::string& name);  // a copy of the op, at the end
  bool MoveOp(int op, int delta);  // moves the op by delta places (-1 earlier, +1 later)
  bool RemoveOp(int op);
  void Clear();
  // Starts from a whole scenario (a lab's, for its exercise); refused if it is invalid.
  bool Open(Scenario scenario) { return Commit(std::move(scenario), /*edit=*/false); }
  bool Save(const std::string& path);
  bool Load(const std::string& path);

  // Runs one script line, e.g. "stream s1 non_blocking", "set_stream s1 blocking", "kernel s1 k1 500 4",
  // "record s1 e1", "wait s2 e1", "sync_device", "move 3 -1", "set_kernel k1 300 132",
  // "duplicate 0 warm_a", "save out.json".
  // Unknown names or commands are refused like any other bad edit.
  bool Apply(const std::string& line);

 private:
  // An edit drops a hand-written PyTorch body (Scenario::torch_source): its op numbers and
  // calls no longer fit, so the edited program is written op by op.
  bool Commit(Scenario next, bool edit = true);
  bool AddOp(Op op);
  bool Refuse(const std::string& reason);
  int StreamNamed(const std::string& name) const;
  int EventNamed(const std::string& name) const;
  int OpNamed(const std::string& name) const;
  Scenario scenario_;
  std::string refusal_;
};

}  // namespace streamlab
