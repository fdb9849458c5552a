import type { NodeSummary } from '../../core/api/types.js';
import { isSplitId, parseSplitId } from '../../core/layout/groupSplit.js';
import type { TreeState } from './treeState.js';

/**
 * A new comparison overlay (issue 15) changes what nodes carry — matched_node_link, precision_index — never which
 * nodes exist or their order. So a pane is brought up to date by asking again for the children pages it already
 * holds and replacing the loaded summaries: same ids, same layout (colour is not layout, docs/style.md).
 */
export interface LoadedPage {
  /** The real group the server is asked about. */
  group: string;
  offset: number;
  limit: number;
}

/** Every children page the tree holds: a real group's whole list, or a pseudo-group's slice of its real group. */
export function loadedPages(tree: Pick<TreeState, 'children' | 'totals'>): LoadedPage[] {
  const pages: LoadedPage[] = [];
  for (const [id, kids] of tree.children) {
    if (kids.length === 0) continue;
    const range = parseSplitId(id);
    if (range) {
      // A pseudo-group lists either sub-groups (their own entries carry the slices) or its real children.
      if (!isSplitId(kids[0])) pages.push({ group: range.parentId, offset: range.lo, limit: range.hi - range.lo });
    } else if (!tree.totals.has(id)) {
      pages.push({ group: id, offset: 0, limit: kids.length });
    }
  }
  return pages;
}

const sameLink = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The tree with the loaded nodes among `summaries` replaced (others ignored); the same tree when nothing changed.
 * Nothing is marked dirty, so no layout runs.
 */
export function patchSummaries(tree: TreeState, summaries: Iterable<NodeSummary>): TreeState {
  let nodes: Map<string, NodeSummary> | null = null;
  for (const next of summaries) {
    const now = tree.nodes.get(next.id);
    if (!now) continue;
    if (now.precisionIndex === next.precisionIndex && now.overflowLevel === next.overflowLevel && sameLink(now.matchedNodeLink, next.matchedNodeLink)) continue;
    nodes ??= new Map(tree.nodes);
    nodes.set(next.id, { ...now, precisionIndex: next.precisionIndex, overflowLevel: next.overflowLevel, matchedNodeLink: next.matchedNodeLink });
  }
  return nodes === null ? tree : { ...tree, nodes };
}
