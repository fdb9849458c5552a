import { eraRules, type FormatEra } from '../formats/formatEra.js';
import { NodeOp, type Graph, type GraphNode } from '../model/graph.js';
import { parseCount } from './callNames.js';

/**
 * `paging_by_micro_step` (msprobe-format.md §2.10): numbers the micro steps of a graph's top level and returns
 * their count (`MicroSteps`). A new micro step starts at each top-level forward module that follows a backward one.
 * In a compare run (`other` = Bench) matched Bench nodes take their NPU twin's micro step; call it after matching.
 */
export function pagingByMicroStep(graph: Graph, other: Graph | null, era: FormatEra): number {
  // Megatron dumps carry each node's micro step already.
  if (graph.megatronMicroStepNumber !== null) return graph.megatronMicroStepNumber + 1;
  const propagate = eraRules(era).propagateMicroSteps;
  let micro = 0;
  let backwardSeen = false;
  for (const node of graph.root.subnodes) {
    if (node.op === NodeOp.module) {
      if (!node.id.includes('.forward.')) backwardSeen = true;
      else if (backwardSeen) {
        micro++;
        backwardSeen = false;
      }
    }
    node.microStepId = micro;
    const link = node.matchedNodeLink;
    if (other && link.length) {
      const twin = other.nodeMap.get(link[link.length - 1]);
      if (twin) twin.microStepId = micro;
    }
  }
  if (propagate) propagateMicroStep(graph.root);
  if (other) {
    for (const node of other.root.subnodes) {
      // msprobe's fallback for unmatched Bench nodes: the id's last dot segment as a number, else 0.
      if (node.microStepId === null) node.microStepId = parseCount(node.id.slice(node.id.lastIndexOf('.') + 1)) ?? 0;
    }
    if (propagate) propagateMicroStep(other.root);
  }
  return micro + 1;
}

/** Every node without a micro step takes its parent's (2025-09+). */
function propagateMicroStep(root: GraphNode): void {
  const stack: GraphNode[] = [root];
  const seen = new Set<GraphNode>();
  while (stack.length) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.upnode && node.microStepId === null) node.microStepId = node.upnode.microStepId;
    for (let i = node.subnodes.length - 1; i >= 0; i--) stack.push(node.subnodes[i]);
  }
}
