// CUDA graphs built by hand (cudaGraphAddKernelNode, cudaGraphAddMemcpyNode, ...,
// cudaGraphAddDependencies), as raw CUDA programs and libraries do instead of stream capture.
// The driver call under each such call is read on its exit: the node it made, the addresses
// it was handed (a kernel's arguments, a copy's ends, a memset's destination) and the edges
// into it, logged as graph_node_params and graph_edge records under the program's call. A
// replay of the graph then takes them, as a captured graph's replay takes its capture's.
// Calls that change a graph later are read the same way where they can be: a node's
// parameters set again (cudaGraph[Exec]*NodeSetParams: graph_node_params naming the instance
// changed, if one), edges removed, and which instance an unread cudaGraphExec* call changed.
#pragma once

#include <cupti.h>

#include <cstdint>

namespace streamlab::recorder {

// True for a call whose whole effect LogGraphBuild can log (runtime or driver). Other calls
// that add to a graph (child graphs, event nodes, memory nodes, programmatic edges) are not
// read: they stay graph edits, and replays of graphs after them are not checked.
bool IsGraphBuildCall(bool runtime, CUpti_CallbackId id);

// On the exit of a driver call: if it built or changed part of a graph, and succeeded, appends
// what it made or changed under `correlation` (the program's own call) and returns true. `read_addresses`: the
// driver gives parameter sizes (launch_memory.h); otherwise a kernel node says it was unread.
bool LogGraphBuild(CUpti_CallbackId id, const CUpti_CallbackData* d, uint64_t correlation, bool read_addresses);

}  // namespace streamlab::recorder
