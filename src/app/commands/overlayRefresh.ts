import type { NodeSummary } from '../../core/api/types.js';
import { isSplitId } from '../../core/layout/groupSplit.js';
import type { TreeState } from './treeState.js';

/**
 * A new comparison overlay (issue 15) changes what nodes carry — matched_node_link, precision_index — never which
 * nodes exist or their order. So a pane is brought up to date by asking once for those fields of every node it holds
 * (`POST /api/overlay/summaries`) and replacing them: same ids, same layout (colour is not layout, docs/style.md).
 */

/** The file's nodes the tree holds (not the pseudo-groups of a split group nor a synthetic group: no file nodes). */
export function loadedIds(tree: Pick<TreeState, 'nodes'>): string[] {
  const ids: string[] = [];
  for (const [id, s] of tree.nodes) if (!s.synthetic && !isSplitId(id)) ids.push(id);
  return ids;
}

const sameLink = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The tree with the loaded nodes among `summaries` replaced (others ignored); the same tree when nothing changed.
 * Nothing is marked dirty, so no layout runs.
 */
export function patchSummaries(
  tree: TreeState,
  summaries: Iterable<Pick<NodeSummary, 'id' | 'precisionIndex'> & Partial<Pick<NodeSummary, 'overflowLevel' | 'matchedNodeLink'>>>,
): TreeState {
  let nodes: Map<string, NodeSummary> | null = null;
  for (const patch of summaries) {
    const now = tree.nodes.get(patch.id);
    if (!now) continue;
    // A field the answer leaves out (a precision-only refresh) keeps its value.
    const overflowLevel = patch.overflowLevel === undefined ? now.overflowLevel : patch.overflowLevel;
    const matchedNodeLink = patch.matchedNodeLink ?? now.matchedNodeLink;
    if (now.precisionIndex === patch.precisionIndex && now.overflowLevel === overflowLevel && sameLink(now.matchedNodeLink, matchedNodeLink)) continue;
    nodes ??= new Map(tree.nodes);
    nodes.set(patch.id, { ...now, precisionIndex: patch.precisionIndex, overflowLevel, matchedNodeLink });
  }
  return nodes === null ? tree : { ...tree, nodes };
}
