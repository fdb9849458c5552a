import type { GraphMeta, NodeSummary, Side } from '../../core/api/types.js';
import { isSplitId } from '../../core/layout/groupSplit.js';
import { counterpartFromLink } from '../state/actions.js';
import { collapse, reveal } from './expansion.js';
import type { TreeState } from './treeState.js';

/**
 * Sync-expand (issue 14 item 4): opening or closing a matched node on one side does the same to its counterpart on
 * the other. The counterpart is the last element of the node's matched_node_link (the same lookup the selection's
 * counterpart highlight uses); the link's other elements are its ancestors there, root first.
 */
export interface CounterpartAction {
  side: Side;
  /** Open the counterpart (and its ancestors) or close it. */
  open: boolean;
  id: string;
  /** The counterpart's real ancestors on its side, root first. */
  path: string[];
}

const otherOf = (side: Side): Side => (side === 'npu' ? 'bench' : 'npu');

/**
 * What the other pane should do with `id`'s counterpart, or null (no counterpart, not a compare file, a pseudo-group
 * of a split group — no node of the file). `open` is the state `id` has after the user's gesture.
 */
export function counterpartAction(
  tree: TreeState,
  side: Side,
  id: string,
  open: boolean,
  meta: Pick<GraphMeta, 'graphType' | 'roots'> | null,
): CounterpartAction | null {
  if (meta?.graphType !== 'compare' || isSplitId(id)) return null;
  const other = otherOf(side);
  if (id === tree.rootId) {
    const root = meta.roots[other];
    return root ? { side: other, open, id: root, path: [] } : null;
  }
  const summary: Pick<NodeSummary, 'matchedNodeLink'> | undefined = tree.nodes.get(id);
  const link = counterpartFromLink(summary?.matchedNodeLink ?? []);
  return link.id === null ? null : { side: other, open, id: link.id, path: link.path };
}

/** Whether `id` is open or opening (what a double click just asked for). */
export function isOpenOrOpening(tree: TreeState, id: string): boolean {
  return tree.expanded.has(id) || tree.pending.has(id);
}

/**
 * Applies a counterpart action to the other side's tree, for counterparts outside split groups (the pane resolves
 * split groups itself, see PaneController.openNode): open = its ancestors and itself opened; close = it and
 * everything below it closed. A counterpart not in the tree is left alone by a close.
 */
export function applyCounterpart(tree: TreeState, action: Pick<CounterpartAction, 'open' | 'id' | 'path'>): TreeState {
  if (!action.open) return collapse(tree, action.id);
  const chain = action.path.length > 0 && action.path[action.path.length - 1] === action.id ? action.path : [...action.path, action.id];
  return reveal(tree, chain);
}
