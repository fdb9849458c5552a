import dagre from '@dagrejs/dagre';
import { packItems, type LayoutItem } from './groupItems.js';
import { DEFAULT_LAYOUT_PARAMS, type GroupInput, type GroupLayout, type LayoutParams, type PlacedChild } from './types.js';

/**
 * Lays out one group: its direct children only, with sizes given (closed boxes or cached child-group sizes).
 *
 * Inside a group, packed items form a dagre chain (rankdir TB) in execution order. Today the chain is the only edge
 * set, so dagre stacks and centres the items; keeping dagre here means real dataflow edges can be added to the same
 * graph later without changing callers.
 */
export function layoutGroup(input: GroupInput, params: LayoutParams = DEFAULT_LAYOUT_PARAMS): GroupLayout {
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
  return { id: input.id, width, height, children };
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
