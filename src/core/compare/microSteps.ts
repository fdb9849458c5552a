import type { Graph, GraphNode } from '../model/graph.js';

/**
 * Bench micro steps after matching (msprobe-format.md §2.10, the compare half of `paging_by_micro_step`).
 * Call after the NPU graph has been paged (its root children carry `microStepId`):
 * - the counterpart (`matched_node_link[-1]`) of every NPU root child gets that child's micro step;
 * - Bench root children still without one get `int(last dot segment)` or 0 (so `Apis_Between_Modules.3` → 3);
 * - then the ids propagate to Bench descendants that have none.
 * Megatron dumps (`megatronMicroStepNumber` set on the NPU graph) carry their own ids: nothing is done.
 */
export function inheritBenchMicroSteps(npu: Graph, bench: Graph): void {
  if (npu.megatronMicroStepNumber !== null && npu.megatronMicroStepNumber !== undefined) return;
  for (const node of npu.root.subnodes) {
    const link = node.matchedNodeLink;
    if (node.microStepId === null || link.length === 0) continue;
    const other = bench.nodeMap.get(link[link.length - 1]);
    if (other) other.microStepId = node.microStepId;
  }
  for (const node of bench.root.subnodes) {
    if (node.microStepId !== null) continue;
    const last = node.id.split('.').pop() ?? '';
    // Python int(): optional sign and digits, surrounding whitespace allowed
    node.microStepId = /^\s*[+-]?\d+\s*$/.test(last) ? Number(last) : 0;
  }
  propagate(bench.root, 0);
}

function propagate(node: GraphNode, depth: number): void {
  if (depth > 500) throw new Error(`call propagate_micro_step_id exceeds the recursion limit.`);
  if (node.upnode !== null && node.microStepId === null) node.microStepId = node.upnode.microStepId;
  for (const sub of node.subnodes) propagate(sub, depth + 1);
}
