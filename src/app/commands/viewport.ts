import type { Rect } from '../../core/layout/types.js';

/**
 * Viewport commands: pure functions on a d3-zoom-like transform (screen = graph × k + (x, y)). The pane applies the
 * result through d3-zoom, so the keyboard, buttons and wheel all end in the same state.
 */
export interface View {
  x: number;
  y: number;
  k: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** The far end lets Fit show a whole opened million-node run; below FAR_SCALE the pane draws on a canvas. */
export const SCALE_EXTENT: readonly [number, number] = [0.002, 8];
/** The reference viewer opens at scale 1.8; we never open or fit bigger than that, so small graphs stay readable. */
export const MAX_FIT_SCALE = 1.8;
export const FIT_PADDING = 16;

export function clampScale(k: number): number {
  return Math.min(SCALE_EXTENT[1], Math.max(SCALE_EXTENT[0], k));
}

/** Zooms by `factor`, keeping the graph point under `anchor` (screen coordinates) where it is. */
export function zoomBy(view: View, factor: number, anchor: Point): View {
  const k = clampScale(view.k * factor);
  const gx = (anchor.x - view.x) / view.k;
  const gy = (anchor.y - view.y) / view.k;
  return { k, x: anchor.x - gx * k, y: anchor.y - gy * k };
}

export function panBy(view: View, dx: number, dy: number): View {
  return { k: view.k, x: view.x + dx, y: view.y + dy };
}

/** The whole of `bounds`, centred, with padding; never larger than MAX_FIT_SCALE. */
export function fit(bounds: Rect, size: Size, padding = FIT_PADDING): View {
  const k = clampScale(
    Math.min(
      MAX_FIT_SCALE,
      (size.width - 2 * padding) / Math.max(1, bounds.width),
      (size.height - 2 * padding) / Math.max(1, bounds.height),
    ),
  );
  return {
    k,
    x: (size.width - bounds.width * k) / 2 - bounds.x * k,
    y: (size.height - bounds.height * k) / 2 - bounds.y * k,
  };
}

/**
 * Fit never goes below this scale on its first press: 8-px labels (NodeShape) stay at least 10 px on screen (issue
 * 14 item 7). A second press fits the whole graph whatever the scale (fitStep).
 */
export const READABLE_FIT_SCALE = 1.25;

/**
 * First view of a file, and Fit's first press: the graph's width fitted (a tall root would be unreadable fitted
 * whole) but never below READABLE_FIT_SCALE, top aligned, so execution starts at the top of the pane as in the
 * reference viewer; a graph wider than the pane at that scale starts at its left edge. A graph that fits whole at
 * that scale is fitted whole.
 */
export function initialView(bounds: Rect, size: Size, padding = FIT_PADDING): View {
  const byWidth = (size.width - 2 * padding) / Math.max(1, bounds.width);
  const k = clampScale(Math.min(MAX_FIT_SCALE, Math.max(READABLE_FIT_SCALE, byWidth)));
  const whole = fit(bounds, size, padding);
  if (whole.k >= k) return { ...whole, y: padding - bounds.y * whole.k };
  const x = bounds.width * k + 2 * padding <= size.width ? (size.width - bounds.width * k) / 2 : padding;
  return { k, x: x - bounds.x * k, y: padding - bounds.y * k };
}

/** Fit's button: the readable view first (initialView); pressed again in that view, the whole graph (fit). */
export function fitStep(view: View, bounds: Rect, size: Size): View {
  const readable = initialView(bounds, size);
  const whole = fit(bounds, size);
  // A graph that fits whole at the readable scale has a single Fit view.
  return sameView(view, readable) && whole.k < readable.k ? whole : readable;
}

function sameView(a: View, b: View): boolean {
  return Math.abs(a.k - b.k) <= 1e-6 * b.k && Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5;
}

/** The part of the graph the pane shows, in graph coordinates. */
export function viewportRect(view: View, size: Size): Rect {
  return { x: -view.x / view.k, y: -view.y / view.k, width: size.width / view.k, height: size.height / view.k };
}

/**
 * Leaves the view alone when `box` (graph coordinates) is already fully visible; otherwise centres it at the current
 * scale, or puts its top-left corner near the pane's when it is larger than the pane.
 */
export function scrollIntoView(view: View, box: Rect, size: Size, margin = FIT_PADDING): View {
  const left = box.x * view.k + view.x;
  const top = box.y * view.k + view.y;
  const right = left + box.width * view.k;
  const bottom = top + box.height * view.k;
  if (left >= 0 && top >= 0 && right <= size.width && bottom <= size.height) return view;
  const w = box.width * view.k;
  const h = box.height * view.k;
  const x = w + 2 * margin <= size.width ? (size.width - w) / 2 : margin;
  const y = h + 2 * margin <= size.height ? (size.height - h) / 2 : margin;
  return { k: view.k, x: x - box.x * view.k, y: y - box.y * view.k };
}

/** How much of the graph stays on screen, at least, whatever the pan. */
export const KEEP_VISIBLE = 48;

/**
 * Pulls the view back so at least `margin` px of the graph's box stay inside the pane: scrolling or dragging can
 * never lose the graph off-screen. Returns the same object when nothing moves.
 */
export function keepInView(view: View, bounds: Rect, size: Size, margin = KEEP_VISIBLE): View {
  const mx = Math.min(margin, size.width / 2);
  const my = Math.min(margin, size.height / 2);
  const left = bounds.x * view.k + view.x;
  const top = bounds.y * view.k + view.y;
  const right = left + bounds.width * view.k;
  const bottom = top + bounds.height * view.k;
  let x = view.x;
  let y = view.y;
  if (right < mx) x += mx - right;
  else if (left > size.width - mx) x -= left - (size.width - mx);
  if (bottom < my) y += my - bottom;
  else if (top > size.height - my) y -= top - (size.height - my);
  return x === view.x && y === view.y ? view : { k: view.k, x, y };
}

/** A located node (search, filter, worst-nodes list, link) is drawn at least this wide… */
export const READABLE_WIDTH = 120;
/** …but a locate never zooms in further than this (a small leaf is not blown up). */
export const READABLE_MAX_SCALE = 1;

/**
 * The view a locate jumps to (issue 14 item 7): `box` (graph coordinates) centred, at a scale where it is at least
 * `minWidth` px wide (capped at `maxScale`; a view already that close is kept); a box larger than the pane is put
 * top-left near the pane's corner instead. After Fit, a 4-px target becomes a readable one.
 */
export function locateView(
  view: View,
  box: Rect,
  size: Size,
  minWidth = READABLE_WIDTH,
  maxScale = READABLE_MAX_SCALE,
  margin = FIT_PADDING,
): View {
  const readable = box.width * view.k >= minWidth ? view.k : Math.max(view.k, Math.min(maxScale, minWidth / Math.max(1, box.width)));
  const k = clampScale(readable);
  const w = box.width * k;
  const h = box.height * k;
  const x = w + 2 * margin <= size.width ? (size.width - w) / 2 : margin;
  const y = h + 2 * margin <= size.height ? (size.height - h) / 2 : margin;
  return { k, x: x - box.x * k, y: y - box.y * k };
}

/** The view at the same scale with graph point `point` at the pane's centre (a minimap click). */
export function centreOn(view: View, point: Point, size: Size): View {
  return { k: view.k, x: size.width / 2 - point.x * view.k, y: size.height / 2 - point.y * view.k };
}

/** Where the whole of `bounds` sits in a box of at most `max` px (a minimap): the scale and offset, and its size. */
export function overviewFrame(bounds: Rect, max: Size, minWidth = 40): View & Size {
  const k = Math.min(max.width / Math.max(1, bounds.width), max.height / Math.max(1, bounds.height));
  const width = Math.max(minWidth, Math.ceil(bounds.width * k));
  const height = Math.ceil(bounds.height * k);
  return { k, x: (width - bounds.width * k) / 2 - bounds.x * k, y: -bounds.y * k, width, height };
}
