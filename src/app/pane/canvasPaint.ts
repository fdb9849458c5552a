import { intersects, type SceneEdge, type SceneNode } from '../../core/layout/scene.js';
import { SELECTED_BORDER } from '../../core/colors/nodePaint.js';
import { viewportRect, type Size, type View } from '../commands/viewport.js';

/**
 * Below this scale the pane draws nodes on a canvas instead of as SVG elements. Labels are unreadable there anyway
 * (GraphPane hides them below 0.4), and that is where tens of thousands of boxes fit in the pane: as SVG every pan
 * frame would repaint them all; on a canvas a frame is a few batched fills (issue 4: ≥ 50 fps with 10,000 in view).
 */
export const FAR_SCALE = 0.4;

export const CONTAINER_STROKE = 'rgba(87,96,106,0.55)';
export const BOX_STROKE = 'rgba(31,35,40,0.35)';
export const EDGE_STROKE = 'rgba(87,96,106,0.6)';

export interface FarPaint {
  /** Nodes in the cull window, in pre-order (containers before their children). */
  scene: readonly SceneNode[];
  /** Dataflow edges in the cull window: one straight-segment path, a pixel wide, over the boxes. */
  edges: readonly SceneEdge[];
  view: View;
  size: Size;
  devicePixelRatio: number;
  fillOf: (node: SceneNode) => string;
  /** The selection and its counterpart, outlined so they can be found at any zoom. */
  highlighted: ReadonlySet<string>;
}

/**
 * Draws one frame. Containers (open groups) go first, one by one in pre-order, so nested frames stack like the SVG;
 * every other box is collected into one path per fill colour: boxes never overlap each other, so order among them
 * does not matter, and a frame costs a handful of fill calls. Returns how many nodes were in view.
 */
export function paintFar(ctx: CanvasRenderingContext2D, paint: FarPaint): number {
  const { view, size, devicePixelRatio: dpr } = paint;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, size.width, size.height);
  ctx.setTransform(dpr * view.k, 0, 0, dpr * view.k, dpr * view.x, dpr * view.y);
  const pixel = 1 / view.k;
  const viewport = viewportRect(view, size);
  const boxes = new Map<string, Path2D>();
  const outlines = new Path2D();
  let drawn = 0;
  let outlined = false;
  // Borders only where a box is a few pixels tall; below that they would paint it solid dark.
  const borders = view.k * 10 >= 3;
  ctx.lineWidth = pixel;
  for (const node of paint.scene) {
    if (!intersects(node, viewport)) continue;
    drawn++;
    const fill = paint.fillOf(node);
    if (node.container) {
      ctx.fillStyle = fill;
      ctx.fillRect(node.x, node.y, node.width, node.height);
      ctx.strokeStyle = CONTAINER_STROKE;
      ctx.strokeRect(node.x, node.y, node.width, node.height);
      continue;
    }
    let path = boxes.get(fill);
    if (!path) boxes.set(fill, (path = new Path2D()));
    const width = Math.max(node.width, pixel);
    const height = Math.max(node.height, pixel);
    path.rect(node.x, node.y, width, height);
    if (borders) {
      outlines.rect(node.x, node.y, width, height);
      outlined = true;
    }
  }
  for (const [fill, path] of boxes) {
    ctx.fillStyle = fill;
    ctx.fill(path);
  }
  if (outlined) {
    ctx.strokeStyle = BOX_STROKE;
    ctx.stroke(outlines);
  }
  if (paint.edges.length > 0) {
    const lines = new Path2D();
    for (const edge of paint.edges) {
      edge.points.forEach((p, i) => (i === 0 ? lines.moveTo(p.x, p.y) : lines.lineTo(p.x, p.y)));
    }
    ctx.strokeStyle = EDGE_STROKE;
    ctx.stroke(lines);
  }
  // The selection stays visible at any zoom: at least a few pixels, in the selection colour.
  ctx.strokeStyle = SELECTED_BORDER;
  ctx.lineWidth = 2 * pixel;
  for (const node of paint.scene) {
    if (!paint.highlighted.has(node.id)) continue;
    const grow = Math.max(0, 6 * pixel - Math.min(node.width, node.height)) / 2;
    ctx.strokeRect(node.x - grow, node.y - grow, node.width + 2 * grow, node.height + 2 * grow);
  }
  return drawn;
}
