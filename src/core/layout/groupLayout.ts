import dagre from '@dagrejs/dagre';
import { layeredPlacement, overlayRoutes } from './edgeLayout.js';
import { packItems, type LayoutItem } from './groupItems.js';
import {
  DEFAULT_LAYOUT_PARAMS,
  type GroupEdge,
  type GroupInput,
  type GroupLayout,
  type LayoutParams,
  type PlacedChild,
  type PlacedEdge,
  type Point,
} from './types.js';

/**
 * Lays out one group: its direct children only, with sizes given (closed boxes or cached child-group sizes).
 *
 * Inside a group, packed items form a dagre chain (rankdir TB) in execution order, so dagre stacks and centres the
 * items. A group with recorded dataflow (TensorBoard graphs) is placed in layers by its edges instead; inferred edges
 * (msprobe graphs) are drawn over the execution-order picture without moving anything.
 */
export function layoutGroup(input: GroupInput, params: LayoutParams = DEFAULT_LAYOUT_PARAMS): GroupLayout {
  const edges = input.edges ?? [];
  if (edges.length > 0 && !edges.some((e) => e.inferred)) return layeredGroup(input, edges, params);
  const items = packItems(input.children, params);
  const tops = items.length > params.dagreMaxItems ? stackItems(items, params) : dagreItems(items, params);

  let contentWidth = 0;
  let contentHeight = 0;
  items.forEach((item, i) => {
    contentWidth = Math.max(contentWidth, tops[i].cx + item.width / 2);
    contentHeight = Math.max(contentHeight, tops[i].top + item.height);
  });

  const width = Math.max(contentWidth + 2 * params.padX, input.titleWidth, params.moduleMinWidth);
  const offsetX = (width - contentWidth) / 2;
  const offsetY = params.titleHeight + params.padTop;
  const height = items.length === 0 ? params.titleHeight + params.padBottom : offsetY + contentHeight + params.padBottom;

  const children: PlacedChild[] = new Array(input.children.length);
  items.forEach((item, i) => {
    let x = offsetX + tops[i].cx - item.width / 2;
    const rowTop = offsetY + tops[i].top;
    for (const index of item.members) {
      const child = input.children[index];
      children[index] = {
        id: child.id,
        shape: child.shape,
        expanded: child.expanded,
        x,
        y: rowTop + (item.height - child.height) / 2,
        width: child.width,
        height: child.height,
      };
      x += child.width + params.hGap;
    }
  });
  if (edges.length === 0) return { id: input.id, width, height, children };
  return { id: input.id, width, height, children, edges: placeEdges(input, edges, overlayRoutes(children, edges, params.hGap)) };
}

function layeredGroup(input: GroupInput, edges: readonly GroupEdge[], params: LayoutParams): GroupLayout {
  const placement = layeredPlacement(input.children, edges, params);
  const width = Math.max(placement.width + 2 * params.padX, input.titleWidth, params.moduleMinWidth);
  const offsetX = (width - placement.width) / 2;
  const offsetY = params.titleHeight + params.padTop;
  const height = offsetY + placement.height + params.padBottom;
  const children: PlacedChild[] = input.children.map((child, i) => ({
    id: child.id,
    shape: child.shape,
    expanded: child.expanded,
    x: offsetX + placement.boxes[i].x,
    y: offsetY + placement.boxes[i].y,
    width: child.width,
    height: child.height,
  }));
  const routes = placement.routes.map((route) => route.map((p) => ({ x: p.x + offsetX, y: p.y + offsetY })));
  return { id: input.id, width, height, children, edges: placeEdges(input, edges, routes) };
}

function placeEdges(input: GroupInput, edges: readonly GroupEdge[], routes: Point[][]): PlacedEdge[] {
  const placed: PlacedEdge[] = [];
  edges.forEach((e, i) => {
    if (routes[i].length < 2) return;
    placed.push({
      from: input.children[e.from].id,
      to: input.children[e.to].id,
      points: routes[i],
      data: e.data,
      control: e.control,
      labels: e.labels,
      ...(e.inferred ? { inferred: true } : {}),
    });
  });
  return placed;
}

/**
 * Lays out a batch of groups in order, deepest first: a group laid out earlier in the batch passes its new size to
 * its parent's entry. This is how an expand re-lays out only the expanded group and its ancestor chain while every
 * other group keeps its cached layout.
 */
export function layoutGroups(batch: readonly GroupInput[], params: LayoutParams = DEFAULT_LAYOUT_PARAMS): GroupLayout[] {
  const sizes = new Map<string, { width: number; height: number }>();
  return batch.map((group) => {
    const children = group.children.map((child) => {
      const fresh = child.expanded ? sizes.get(child.id) : undefined;
      return fresh ? { ...child, width: fresh.width, height: fresh.height } : child;
    });
    const layout = layoutGroup({ ...group, children }, params);
    sizes.set(group.id, { width: layout.width, height: layout.height });
    return layout;
  });
}

interface ItemPosition {
  /** Horizontal centre and top edge, relative to the content box's top-left. */
  cx: number;
  top: number;
}

function dagreItems(items: readonly LayoutItem[], params: LayoutParams): ItemPosition[] {
  if (items.length === 0) return [];
  const g = new dagre.graphlib.Graph();
  // A chain needs no crossing minimisation or network simplex; longest-path is the cheapest ranker that is exact here.
  g.setGraph({ rankdir: 'TB', ranksep: params.vGap, nodesep: params.hGap, ranker: 'longest-path' });
  g.setDefaultEdgeLabel(() => ({}));
  items.forEach((item, i) => {
    g.setNode(String(i), { width: item.width, height: item.height });
    if (i > 0) g.setEdge(String(i - 1), String(i));
  });
  dagre.layout(g);
  const placed = items.map((item, i) => {
    const n = g.node(String(i));
    return { left: n.x - item.width / 2, top: n.y - item.height / 2, cx: n.x };
  });
  const minLeft = Math.min(...placed.map((p) => p.left));
  const minTop = Math.min(...placed.map((p) => p.top));
  return placed.map((p) => ({ cx: p.cx - minLeft, top: p.top - minTop }));
}

/** The chain's geometry without dagre: centred items stacked top to bottom, `vGap` apart. */
function stackItems(items: readonly LayoutItem[], params: LayoutParams): ItemPosition[] {
  const width = Math.max(0, ...items.map((item) => item.width));
  let top = 0;
  return items.map((item) => {
    const position = { cx: width / 2, top };
    top += item.height + params.vGap;
    return position;
  });
}
