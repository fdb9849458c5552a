import { childShape, collapsedSize, titleWidth } from '../../core/layout/boxSize.js';
import { isSplitId } from '../../core/layout/groupSplit.js';
import { nodeLabel } from '../../core/layout/nodeLabel.js';
import type { TextMeasurer } from '../../core/layout/textMeasure.js';
import type { GraphEdge } from '../../core/api/types.js';
import type { GroupChild, GroupEdge, GroupInput, GroupLayout, LayoutParams } from '../../core/layout/types.js';
import { NodeOp } from '../../core/model/graph.js';
import { ancestorsOf, type TreeState } from '../commands/treeState.js';

/**
 * Which groups to lay out after a change, and with what inputs: the dirty groups plus their ancestor chains, deepest
 * first, every other child sized from the committed cache. Pure, so it is unit-tested without a worker.
 */
export function buildLayoutBatch(
  tree: TreeState,
  layouts: ReadonlyMap<string, GroupLayout>,
  measure: TextMeasurer,
  params: LayoutParams,
): GroupInput[] {
  const depthOf = new Map<string, number>();
  for (const id of tree.dirty) {
    if (!tree.expanded.has(id)) continue;
    const chain = ancestorsOf(tree, id);
    // A group under a closed ancestor is not drawn; it is laid out when that ancestor opens again.
    if (id !== tree.rootId && (chain[0] !== tree.rootId || !chain.every((a) => tree.expanded.has(a)))) continue;
    depthOf.set(id, chain.length);
    chain.forEach((ancestor, depth) => depthOf.set(ancestor, depth));
  }
  const order = [...depthOf.keys()].sort((a, b) => depthOf.get(b)! - depthOf.get(a)!);
  const inBatch = new Set(order);
  return order.map((groupId) => {
    // Labels count real ancestors only, so a split group's children keep the form their siblings would have.
    const depth = ancestorsOf(tree, groupId).filter((a) => !isSplitId(a)).length;
    const childDepth = isSplitId(groupId) ? depth : depth + 1;
    const group = tree.nodes.get(groupId);
    const children = (tree.children.get(groupId) ?? []).map((childId): GroupChild => {
      const node = tree.nodes.get(childId);
      const shape = childShape(node?.childCount ?? 0);
      const cached = layouts.get(childId);
      if (tree.expanded.has(childId) && (inBatch.has(childId) || cached)) {
        // Children in the batch get their fresh size inside layoutGroups; 0 here is never used.
        return { id: childId, shape, expanded: true, width: cached?.width ?? 0, height: cached?.height ?? 0 };
      }
      const label = nodeLabel(childId, node?.nodeType ?? NodeOp.module, childDepth);
      return { id: childId, shape, expanded: false, ...collapsedSize(shape, label, measure, params) };
    });
    const title = nodeLabel(groupId, group?.nodeType ?? NodeOp.module, depth);
    const input: GroupInput = { id: groupId, titleWidth: titleWidth(title, measure, params), children };
    const edges = groupEdges(children, tree.edges.get(groupId));
    return edges.length > 0 ? { ...input, edges } : input;
  });
}

/** The group's edges by child index; an edge naming a child the list does not hold is left out. */
function groupEdges(children: readonly GroupChild[], edges: readonly GraphEdge[] | undefined): GroupEdge[] {
  if (!edges?.length) return [];
  const index = new Map(children.map((c, i) => [c.id, i]));
  const out: GroupEdge[] = [];
  for (const e of edges) {
    const from = index.get(e.from);
    const to = index.get(e.to);
    if (from === undefined || to === undefined) continue;
    out.push({ from, to, data: e.data, control: e.control, labels: e.labels, ...(e.inferred ? { inferred: true } : {}) });
  }
  return out;
}
