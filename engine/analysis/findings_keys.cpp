// Every template key the findings' renderer uses (FindingTexts::Keys): the tests hold
// assets/analyzer.json's English and Chinese tables to it, so no sentence exists in one only.
#include "engine/analysis/findings_text.h"

namespace streamlab {

const std::vector<std::string>& FindingTexts::Keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{
      "delay.prompt", "delay.stream_order", "delay.event_wait", "delay.wait_stream",
      "delay.legacy_waits_blocking", "delay.blocking_waits_legacy", "delay.host_late", "call.launch_of", "call.launch_of_earlier",
      "delay.sms_busy", "delay.copy_engine_busy", "delay.hardware_queue", "delay.hardware_queue_collective", "delay.also",
      "delay.module_load", "delay.module_load_self", "cause.module_load", "delay.unexplained",
      "cause.unexplained", "sms_estimated",
      "cause.prompt", "cause.stream_order", "cause.event_wait", "cause.wait_stream",
      "cause.legacy_barrier", "cause.host_late", "cause.sms_busy", "cause.copy_engine_busy",
      "cause.hardware_queue", "host.sync_device", "host.sync_stream", "host.sync_event",
      "host.free", "host.malloc_host", "host.memcpy_pageable", "host.memcpy_sync",
      "host.kernel_lazy", "host.kernel_lazy_idle", "host.context", "host.context_inferred", "host.kernel_blocking", "host.malloc", "host.other", "scope.too_wide",
      "overlap", "wait_nothing.event", "wait_nothing.event_never", "wait_nothing.unknown", "wait_nothing.stream",
      "race", "race.overlapped", "access.read", "access.write", "pageable", "legacy", "more",
      "wrong_result", "figures", "figures.mostly_idle", "summarised", "trace_notes", "severity.info", "severity.note", "severity.warning", "critical_path", "critical_path.more", "critical_path.host", "critical_path.host_other", "critical_path.place", "critical_path.came_back", "site.frame", "site.frame_line", "site.frame_most_line", "site.at", "site.caller", "site.in", "site.in_only", "site.end", "site.at_within", "site.in_only_within", "site.via", "site.caller_via", "site.at_place", "site.in_only_place", "site.by_autograd", "places", "places.item", "places.separator", "places.spread", "places.unknown", "places.resumed", "advice.grad_scaler", "advice.data_dependent_shape", "advice.dataloader", "group.site_all", "group.site_most", "inferred", "unrecorded_waits",
      "idle.host_sync", "idle.host_call", "idle.host_work", "idle.launch_bound", "idle.launch_bound.graphs", "idle.other_device",
      "idle.module_load", "idle.turnaround", "idle.range_start", "idle.unknown", "idle.summary", "idle.none", "idle.copy_wait",
      "idle.part.copy_wait", "idle.gap", "idle.gaps", "idle.example", "idle.example_before", "idle.part.small", "idle.share_tiny",
      "group.start_delay", "group.start_delay_unexplained", "group.host_block", "group.scope_too_wide", "group.overlap",
      "group.wait_captured_nothing", "group.wait_record_unknown", "group.data_race", "group.pageable_async_copy",
      "group.legacy_next_to_blocking", "group.wrong_result", "group.gpu_idle", "group.more",
      "malloc_mid_run", "hidden_sync", "group.malloc_mid_run", "group.hidden_sync",
      "collective_wait", "collective_wait.busy", "collective_wait.waiting", "group.collective_wait",
      "address_race", "address_race.unknown", "address_race.writes", "address_race.graph.unknown", "address_race.graph.writes", "address_race.order", "address_race.argument", "address_race.read", "address_race.write", "address_race.read_range", "address_race.write_range", "group.address_race",
      "idle.part.host_sync", "idle.part.host_call", "idle.part.host_work", "idle.part.launch_bound",
      "idle.part.other_device", "idle.part.module_load", "idle.part.turnaround", "idle.part.range_start", "idle.part.unknown"};
    // streamlab-cli compare (engine/analysis/compare_programs.h): its lines, each idle
    // cause's name, and each kind of finding it counts.
    for (const char* c : {"steps", "whole", "per_step", "whole_traces", "wall", "host_in_steps", "gpu_busy", "host_blocked",
                          "gpu_idle", "idle.outside", "kernels", "no_findings", "findings", "findings_per_step", "at_call", "gone", "new",
                          "none", "count", "count_per_step", "came_back", "kernels_one", "per_step_one", "tool_time",
                          "tool_time_one", "tool_time_unknown", "range", "steady", "steady_none"})
      k.push_back(std::string("compare.") + c);
    k.push_back("hint.per_step");  // explain's pointer to --per
    for (const char* c : {"delay.connections_assumed", "times", "and_more", "address_race.unknown.cpp",
                          "address_race.writes.cpp", "pageable.cpp", "places.unknown.cpp", "idle.host_sync.cpp",
                          "idle.launch_bound.cpp", "malloc_mid_run.cpp", "hidden_sync.cpp"})
      k.push_back(c);
    for (int i = 0; i < kIdleCauseCount; ++i) k.push_back(std::string("compare.idle.") + ToString(static_cast<IdleCause>(i)));
    for (FindingKind kind : {FindingKind::kHostBlock, FindingKind::kScopeTooWide, FindingKind::kWaitCapturedNothing,
                             FindingKind::kDataRace, FindingKind::kPageableAsyncCopy, FindingKind::kLegacyNextToBlocking,
                             FindingKind::kWrongResult, FindingKind::kMallocMidRun, FindingKind::kHiddenSync,
                             FindingKind::kCollectiveWait, FindingKind::kAddressRace})
      k.push_back(std::string("compare.kind.") + ToString(kind));
    return k;
  }();
  return keys;
}

}  // namespace streamlab
