import { NodeOp } from '../model/graph.js';
import { parseSplitId, splitLabel } from './groupSplit.js';

/**
 * The text drawn on a node (reference-viewer.md §3.3 "Labels"). First-level nodes keep their full id; deeper ones
 * drop the prefix their ancestors already show: modules keep the last 4 dot-segments (`input_norm.RMSNorm.forward.0`)
 * and APIs the last 2, one more in both cases when the first kept segment is a number, so a layer index or call
 * count never stands alone (`layers.0.ParallelTransformerLayer.forward.0`, `__add__.0.forward`).
 *
 * A pseudo-group of a split group is labelled by its index range.
 *
 * @param depth 0 = root, 1 = first level; pseudo-groups do not count.
 */
export function nodeLabel(id: string, nodeType: number, depth: number): string {
  const range = parseSplitId(id);
  if (range) return splitLabel(range.lo, range.hi);
  if (depth <= 1) return id;
  const keep = nodeType === NodeOp.functionApi ? 2 : 4;
  const segments = id.split('.');
  if (segments.length <= keep) return id;
  const first = segments.length - keep;
  const start = /^\d+$/.test(segments[first]) ? first - 1 : first;
  return segments.slice(Math.max(0, start)).join('.');
}
