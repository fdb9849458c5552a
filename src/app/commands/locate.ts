import type { NodeSummary } from '../../core/api/types.js';
import { counterpartFromLink } from '../state/actions.js';

/**
 * Locate's other half (issue 14): with sync on, a located node's counterpart is located on the other side; an
 * unmatched node's nearest matched ancestor stands in for it, as the reference viewer does for sync-expand
 * (reference-viewer.md §3, "If the node has no match, its nearest matched ancestor is used").
 */
export interface AncestorCounterpart {
  /** The matched ancestor on the located node's side. */
  ancestorId: string;
  /** Its counterpart on the other side, and that one's ancestors, root first. */
  id: string;
  path: string[];
}

/**
 * The nearest of `ancestors` (root first, as a path lists them; the root itself included) with a counterpart. The
 * root always has one, the other side's root, even when its record lists no link; null when `ancestors` is empty.
 */
export function nearestMatchedAncestor(
  ancestors: ReadonlyArray<Pick<NodeSummary, 'id' | 'matchedNodeLink'>>,
  otherRoot: string,
): AncestorCounterpart | null {
  for (let k = ancestors.length - 1; k >= 0; k--) {
    const link = counterpartFromLink(ancestors[k].matchedNodeLink);
    if (link.id !== null) return { ancestorId: ancestors[k].id, id: link.id, path: link.path };
    if (k === 0) return { ancestorId: ancestors[0].id, id: otherRoot, path: [] };
  }
  return null;
}
