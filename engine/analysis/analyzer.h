// The Analyzer: explains a run from its own trace. For every GPU op it says why it started
// when it did (the cause that released it last, plus the others); for every long host call,
// what it waited for; it computes overlap, busy time, speed-up and the critical path; and
// it flags the misconceptions the course is about. Findings are data (kinds, op ids,
// amounts); findings_text.h turns them into Chinese or English from assets/ templates.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace streamlab {

enum class Cause {
  kPrompt,          // started right after it was submitted (launch latency only)
  kStreamOrder,     // behind earlier work on its own stream
  kEventWait,       // cudaStreamWaitEvent on an event recorded after some work
  kWaitStream,      // wait_stream on another stream's work
  kLegacyBarrier,   // the legacy default stream's barrier with blocking streams
  kHostLate,        // submitted late because the host was blocked in an earlier call
  kSmsBusy,         // ready, but every SM slot was taken by other kernels
  kCopyEngineBusy,  // ready, but the copy engine was busy with another copy
  kHardwareQueue,   // held in a hardware queue shared with another stream (false dependency)
  kModuleLoad,      // lazy loading: a first launch's module load waited for running work,
                    // and work submitted after it waited for the load
};

enum class FindingKind {
  kStartDelay,            // why a GPU op started when it did
  kHostBlock,             // what a blocking host call waited for
  kScopeTooWide,          // a device-wide sync where a narrower one would have returned sooner
  kOverlap,               // two streams ran concurrently
  kWaitCapturedNothing,   // a wait registered before its producer had work
  kDataRace,              // two streams touch one buffer, one writes, nothing orders them
  kPageableAsyncCopy,     // an "async" copy from pageable memory blocked the host
  kLegacyNextToBlocking,  // legacy default stream work serialised blocking streams
  kWrongResult,           // a checked buffer does not hold what program order gives
};

enum class Severity { kInfo, kNote, kWarning };

struct Finding {
  FindingKind kind = FindingKind::kStartDelay;
  Severity severity = Severity::kInfo;
  Cause cause = Cause::kPrompt;   // for kStartDelay (and kHostBlock's reason)
  int op = -1;                    // the op the finding is about
  std::vector<int> because;       // ops of the deciding cause (e.g. the kernel waited for)
  std::vector<int> also;          // ops of causes that released earlier
  std::vector<Cause> also_causes; // their kinds, same order as `also`
  int marker = -1;                // the record / wait / legacy op through which it acted
  int other = -1;                 // a second op (a race partner, the stream of an overlap)
  TimeNs amount = 0;              // delay, blocked time, overlap time, time saved
  TimeNs at = 0;                  // when the deciding cause released it
  double fraction = 0;            // overlap fraction
};

struct LaneOverlap {
  int lane_a = 0;
  int lane_b = 0;
  TimeNs overlap = 0;
  double fraction = 0;  // of the shorter lane's busy time
};

struct Figures {
  TimeNs makespan = 0;      // first GPU start to last GPU end
  TimeNs gpu_busy = 0;      // time at least one GPU op ran
  TimeNs serial = 0;        // sum of GPU op durations: the time with no overlap at all
  double speedup = 1.0;     // serial / makespan
  TimeNs host_blocked = 0;  // time the host spent in calls longer than the slack
  std::vector<LaneOverlap> overlaps;
  std::vector<int> critical_path;  // ops, first to last
};

struct Analysis {
  std::vector<Finding> findings;
  Figures figures;
  // Runs larger than this are summarised (figures only), so a huge trace cannot stall a
  // view: explaining each op looks at the others, which grows with the square of the size.
  static constexpr size_t kMaxExplainedOps = 40000;
  bool summarised_only = false;
};

Analysis Analyze(const Trace& trace);

const char* ToString(Cause cause);
const char* ToString(FindingKind kind);
const char* ToString(Severity severity);

// Delays shorter than this are launch latency and timing slack, not a cause worth naming.
TimeNs ExplainSlack(const Trace& trace);

}  // namespace streamlab
