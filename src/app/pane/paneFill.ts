import type { ColorBucket } from '../../core/api/types.js';
import { bucketColor } from '../../core/colors/buckets.js';
import type { PaintContext } from '../../core/colors/nodePaint.js';
import { isSplitId } from '../../core/layout/groupSplit.js';
import { splitShade, type SplitShade } from '../commands/splitTree.js';
import type { Theme } from '../commands/theme.js';
import type { TreeState } from '../commands/treeState.js';
import { sceneFill, themedFill } from './darkFills.js';
import { SPLIT_FILL } from './NodeShape.js';

const lookups = new WeakMap<readonly ColorBucket[], (value: number) => string | null>();

/** One lookup function per bucket list, so splitShade's memo (keyed by it) survives re-renders. */
export function bucketLookup(colors: readonly ColorBucket[]): (value: number) => string | null {
  let lookup = lookups.get(colors);
  if (!lookup) lookups.set(colors, (lookup = (value) => bucketColor(colors, value)));
  return lookup;
}

export interface SplitPaint {
  fill: string;
  shade: SplitShade;
  /** True when the worst child is worse than the best bucket: the box carries a count badge. */
  alarming: boolean;
}

/**
 * A pseudo-group is painted with the bucket of its worst known child (issue 14 item 8), on the side that carries
 * colours (NPU of a compare; reference-viewer.md §3.3 "Fill colour"); the Bench side and builds stay neutral.
 */
export function splitPaint(tree: Pick<TreeState, 'nodes' | 'children'>, id: string, paint: PaintContext): SplitPaint {
  const lookup = bucketLookup(paint.colors);
  const shade = splitShade(tree, id, lookup);
  const coloured = paint.graphType === 'compare' && paint.side === 'npu' && shade.worst !== null;
  const fill = coloured ? (lookup(shade.worst!) ?? SPLIT_FILL) : SPLIT_FILL;
  return { fill, shade, alarming: coloured && fill !== SPLIT_FILL && fill !== lookup(0) };
}

/** The fill of any box drawn on a canvas (far zoom, minimap): a node's own colour, a pseudo-group's worst child's. */
export function boxFill(tree: TreeState, id: string, paint: PaintContext, theme: Theme): string {
  if (isSplitId(id)) return themedFill(splitPaint(tree, id, paint).fill, theme);
  return sceneFill(id, tree.nodes.get(id), paint, theme);
}
