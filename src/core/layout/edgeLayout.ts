import dagre from '@dagrejs/dagre';
import type { GroupEdge, LayoutParams, Point, Rect } from './types.js';

/**
 * Placement of a group whose children are joined by recorded dataflow (TensorBoard graphs, docs/peers.md §6): the
 * children in layers top to bottom, each edge a polyline from the source's box to the target's. Coordinates are
 * relative to the content box (the group's frame adds title and padding around it).
 */
export interface LayeredPlacement {
  /** Top-left of each child, by index. */
  boxes: Point[];
  /** Polyline of each input edge, by index (empty for a self-loop). */
  routes: Point[][];
  width: number;
  height: number;
}

interface Size {
  width: number;
  height: number;
}

export function layeredPlacement(children: readonly Size[], edges: readonly GroupEdge[], params: LayoutParams): LayeredPlacement {
  if (children.length === 0) return { boxes: [], routes: edges.map(() => []), width: 0, height: 0 };
  return children.length <= params.edgeDagreMax ? dagrePlacement(children, edges, params) : linearPlacement(children, edges, params);
}

/** dagre for groups small enough: crossing minimisation and bends around nodes make the clearest picture. */
function dagrePlacement(children: readonly Size[], edges: readonly GroupEdge[], params: LayoutParams): LayeredPlacement {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', ranksep: params.edgeRankGap, nodesep: params.hGap * 2, edgesep: params.hGap });
  g.setDefaultEdgeLabel(() => ({}));
  children.forEach((c, i) => g.setNode(String(i), { width: c.width, height: c.height }));
  for (const e of edges) if (e.from !== e.to) g.setEdge(String(e.from), String(e.to), { weight: e.data + e.control });
  dagre.layout(g);

  const centres = children.map((_, i) => g.node(String(i)) as { x: number; y: number });
  const rawRoutes = edges.map((e) => (e.from === e.to ? [] : ((g.edge(String(e.from), String(e.to)) as { points?: Point[] }).points ?? [])));
  let minX = Infinity;
  let minY = Infinity;
  children.forEach((c, i) => {
    minX = Math.min(minX, centres[i].x - c.width / 2);
    minY = Math.min(minY, centres[i].y - c.height / 2);
  });
  for (const route of rawRoutes) for (const p of route) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
  }
  let width = 0;
  let height = 0;
  const boxes = children.map((c, i) => {
    const box = { x: centres[i].x - c.width / 2 - minX, y: centres[i].y - c.height / 2 - minY };
    width = Math.max(width, box.x + c.width);
    height = Math.max(height, box.y + c.height);
    return box;
  });
  const routes = rawRoutes.map((route) =>
    route.map((p) => {
      width = Math.max(width, p.x - minX);
      height = Math.max(height, p.y - minY);
      return { x: p.x - minX, y: p.y - minY };
    }),
  );
  return { boxes, routes, width, height };
}

/**
 * The layered picture in O(children + edges) for scopes dagre cannot lay out within an expand's budget: layers by
 * longest path (cycles broken at the earliest remaining child, as execution order suggests), order within a layer by
 * the mean position of the inputs, each child pulled under its inputs where its neighbours leave room. No dummy
 * nodes, so a long edge may pass behind boxes; it is drawn as a curve between the two layers.
 */
function linearPlacement(children: readonly Size[], edges: readonly GroupEdge[], params: LayoutParams): LayeredPlacement {
  const n = children.length;
  const preds: number[][] = Array.from({ length: n }, () => []);
  const succs: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) {
    if (e.from === e.to || e.from < 0 || e.to < 0 || e.from >= n || e.to >= n) continue;
    succs[e.from].push(e.to);
    preds[e.to].push(e.from);
  }

  // Kahn's order; when only cycles remain, the earliest child left starts the next run.
  const indegree = preds.map((p) => p.length);
  const done = new Uint8Array(n);
  const rank = new Int32Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) queue.push(i);
  let nextStart = 0;
  for (let placed = 0; placed < n; ) {
    if (queue.length === 0) {
      while (done[nextStart]) nextStart++;
      queue.push(nextStart);
      indegree[nextStart] = 0;
    }
    const v = queue.pop()!;
    if (done[v]) continue;
    done[v] = 1;
    placed++;
    for (const w of succs[v]) {
      if (done[w]) continue;
      rank[w] = Math.max(rank[w], rank[v] + 1);
      if (--indegree[w] === 0) queue.push(w);
    }
  }

  // A source (a constant, a weight) sits just above its first consumer rather than in the top layer, as dagre's
  // network simplex would place it: otherwise every weight of a model lines up in one very wide first row.
  for (let i = 0; i < n; i++) {
    if (preds[i].length > 0 || succs[i].length === 0) continue;
    let lowest = Infinity;
    for (const w of succs[i]) lowest = Math.min(lowest, rank[w]);
    rank[i] = Math.max(0, lowest - 1);
  }

  let ranks = 0;
  for (let i = 0; i < n; i++) ranks = Math.max(ranks, rank[i] + 1);
  const layers: number[][] = Array.from({ length: ranks }, () => []);
  for (let i = 0; i < n; i++) layers[rank[i]].push(i);

  // Order each layer by the mean order of its inputs in the layers above (one sweep down), ties by execution order.
  const order = new Float64Array(n);
  for (const layer of layers) {
    const key = new Map<number, number>();
    for (const v of layer) key.set(v, meanAbove(v, preds, rank, order) ?? v);
    layer.sort((a, b) => key.get(a)! - key.get(b)! || a - b);
    layer.forEach((v, i) => (order[v] = i));
  }

  // x: each child wants the mean centre of its inputs; a left-to-right pass keeps hGap between neighbours.
  const gap = params.hGap * 2;
  const centre = new Float64Array(n);
  const top = new Float64Array(n);
  let y = 0;
  let minLeft = 0;
  for (const layer of layers) {
    let rowHeight = 0;
    let right = -Infinity;
    for (const v of layer) {
      const want = meanAbove(v, preds, rank, centre) ?? (right === -Infinity ? 0 : right + gap + children[v].width / 2);
      const left = Math.max(want - children[v].width / 2, right === -Infinity ? -Infinity : right + gap);
      centre[v] = left + children[v].width / 2;
      right = left + children[v].width;
      minLeft = Math.min(minLeft, left);
      rowHeight = Math.max(rowHeight, children[v].height);
    }
    for (const v of layer) top[v] = y + (rowHeight - children[v].height) / 2;
    y += rowHeight + params.edgeRankGap;
  }

  let width = 0;
  const boxes: Point[] = [];
  for (let v = 0; v < n; v++) {
    const x = centre[v] - children[v].width / 2 - minLeft;
    boxes.push({ x, y: top[v] });
    width = Math.max(width, x + children[v].width);
  }
  const height = Math.max(0, y - params.edgeRankGap);
  const routes = edges.map((e) => {
    if (e.from === e.to || e.from < 0 || e.to < 0 || e.from >= n || e.to >= n) return [];
    const a = { ...boxes[e.from], ...children[e.from] };
    const b = { ...boxes[e.to], ...children[e.to] };
    return verticalRoute(a, b, params.edgeRankGap / 2);
  });
  return { boxes, routes, width, height };
}

/** The mean of `values` over the inputs of `v` in the layers above it, or null when it has none. */
function meanAbove(v: number, preds: readonly number[][], rank: Int32Array, values: Float64Array): number | null {
  let sum = 0;
  let count = 0;
  for (const u of preds[v]) {
    if (rank[u] >= rank[v]) continue;
    sum += values[u];
    count++;
  }
  return count > 0 ? sum / count : null;
}

/** Bottom of `a` to top of `b` with a bend half a layer gap from each end, so the renderer draws a smooth S. */
function verticalRoute(a: Rect, b: Rect, bend: number): Point[] {
  const start = { x: a.x + a.width / 2, y: a.y + a.height };
  const end = { x: b.x + b.width / 2, y: b.y };
  return [start, { x: start.x, y: start.y + bend }, { x: end.x, y: end.y - bend }, end];
}

/**
 * Routes for edges drawn over a group laid out in execution order (inferred msprobe dataflow): straight down to the
 * next row, straight across within a row, otherwise out of the source's right side into a lane beside the boxes in
 * between and into the target's right side, lanes staggered so parallel routes stay apart.
 */
export function overlayRoutes(boxes: readonly Rect[], edges: readonly GroupEdge[], laneGap: number): Point[][] {
  let lane = 0;
  return edges.map((e) => {
    const a = boxes[e.from];
    const b = boxes[e.to];
    if (!a || !b || e.from === e.to) return [];
    if (Math.abs(a.y - b.y) < 0.5) {
      const [l, r] = a.x <= b.x ? [a, b] : [b, a];
      const y = l.y + l.height / 2;
      const points = [{ x: l.x + l.width, y }, { x: r.x, y: r.y + r.height / 2 }];
      return a.x <= b.x ? points : points.reverse();
    }
    const lo = Math.min(e.from, e.to);
    const hi = Math.max(e.from, e.to);
    let between = false;
    let right = Math.max(a.x + a.width, b.x + b.width);
    for (let i = lo + 1; i < hi; i++) {
      const box = boxes[i];
      if (!box) continue;
      const overlapsX = box.x < Math.max(a.x + a.width, b.x + b.width) && box.x + box.width > Math.min(a.x, b.x);
      const inBand = box.y > Math.min(a.y, b.y) + 0.5 && box.y < Math.max(a.y, b.y) - 0.5;
      if (overlapsX && inBand) between = true;
      if (inBand) right = Math.max(right, box.x + box.width);
    }
    if (!between && a.y < b.y) return verticalRoute(a, b, laneGap);
    const x = right + laneGap * (1 + (lane++ % 3));
    return [
      { x: a.x + a.width, y: a.y + a.height / 2 },
      { x, y: a.y + a.height / 2 },
      { x, y: b.y + b.height / 2 },
      { x: b.x + b.width, y: b.y + b.height / 2 },
    ];
  });
}
