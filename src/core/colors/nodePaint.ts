import type { ColorBucket, GraphType, NodeSummary, Side } from '../api/types.js';
import { NodeOp } from '../model/graph.js';
import { bucketColor, unmatchedColor } from './buckets.js';

/**
 * Fill and border of one node box (reference-viewer.md §3.3 "Fill colour" / "Border"). Pure: recolouring after a
 * bucket or side change calls these again and never touches layout.
 */

export const WHITE = '#FFFFFF';
/** Build files carry no buckets; a light neutral keeps boxes visible against the white canvas. */
export const NEUTRAL_FILL = '#EEF1F6';
export const BENCH_BORDER = 'rgb(161,161,161)';
export const SELECTED_BORDER = 'rgb(31,63,207)';
export const BORDER_WIDTH = 1.5;
export const SELECTED_BORDER_WIDTH = 2;

export interface PaintContext {
  side: Side;
  graphType: GraphType;
  colors: readonly ColorBucket[];
}

export function nodeFill(node: Pick<NodeSummary, 'nodeType' | 'precisionIndex' | 'matchedNodeLink'>, ctx: PaintContext): string {
  // Collections are drawn hollow whatever their index, so their dashed outline reads as "grouping", not "result".
  if (node.nodeType === NodeOp.apiCollection || node.nodeType === NodeOp.multiCollection) return WHITE;
  if (ctx.graphType === 'build') return NEUTRAL_FILL;
  if (node.matchedNodeLink.length === 0) return unmatchedColor(ctx.colors);
  if (ctx.side === 'bench') return WHITE;
  if (node.precisionIndex === null) return WHITE;
  return bucketColor(ctx.colors, node.precisionIndex) ?? WHITE;
}

export interface Stroke {
  color: string;
  width: number;
}

/** `highlighted` = selected on this side or the counterpart of the selection on the other side. */
export function nodeStroke(fill: string, side: Side, highlighted: boolean): Stroke {
  if (highlighted) return { color: SELECTED_BORDER, width: SELECTED_BORDER_WIDTH };
  if (side === 'bench') return { color: BENCH_BORDER, width: BORDER_WIDTH };
  return { color: darken(fill, 40), width: BORDER_WIDTH };
}

/**
 * Subtracts `amount` from each RGB channel (the reference's "darker by 40"). Accepts #rgb, #rrggbb and rgb()/rgba();
 * anything else comes back unchanged rather than failing a render.
 */
export function darken(color: string, amount: number): string {
  const rgb = parseRgb(color);
  if (!rgb) return color;
  const [r, g, b] = rgb.map((c) => Math.max(0, Math.min(255, Math.round(c - amount))));
  return `rgb(${r},${g},${b})`;
}

function parseRgb(color: string): [number, number, number] | null {
  const text = color.trim();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(text);
  if (hex) {
    const h = hex[1].length === 3 ? [...hex[1]].map((c) => c + c).join('') : hex[1];
    return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
  }
  const fn = /^rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)/i.exec(text);
  if (fn) return [Number(fn[1]), Number(fn[2]), Number(fn[3])];
  return null;
}
