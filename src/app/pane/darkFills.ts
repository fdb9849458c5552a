import type { NodeSummary } from '../../core/api/types.js';
import { NEUTRAL_FILL, nodeFill, WHITE, type PaintContext } from '../../core/colors/nodePaint.js';
import { isSplitId } from '../../core/layout/groupSplit.js';
import { NodeOp } from '../../core/model/graph.js';
import type { Theme } from '../commands/theme.js';
import { SPLIT_FILL } from './NodeShape.js';

/**
 * The file's bucket colours are never themed (reference-viewer.md §3.3 "Fill colour"): only the neutral fills drawn
 * for Bench nodes, nodes without a value, build files and split groups are, so that an open group is not a white
 * sheet on a dark page. SVG nodes get the same mapping from theme.css (`--pb-node-*`); this is for the far-zoom
 * canvas, which cannot use CSS. Keep the two in step.
 */
export const DARK_NEUTRAL_FILLS: Readonly<Record<string, string>> = {
  [WHITE.toUpperCase()]: '#22272E',
  [NEUTRAL_FILL.toUpperCase()]: '#2D333B',
  [SPLIT_FILL.toUpperCase()]: '#1C2128',
};

/** The fill to paint for `fill` under `theme`. */
export function themedFill(fill: string, theme: Theme): string {
  if (theme === 'light') return fill;
  return DARK_NEUTRAL_FILLS[fill.toUpperCase()] ?? fill;
}

/** A scene node's fill at far zoom (canvas, view export): split groups neutral, the root (no summary) a matched module. */
export function sceneFill(id: string, summary: NodeSummary | undefined, paint: PaintContext, theme: Theme): string {
  if (isSplitId(id)) return themedFill(SPLIT_FILL, theme);
  return themedFill(nodeFill(summary ?? { nodeType: NodeOp.module, precisionIndex: null, matchedNodeLink: [id] }, paint), theme);
}
