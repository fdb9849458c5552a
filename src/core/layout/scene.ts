import { isSplitId } from './groupSplit.js';
import type { ChildShape, GroupLayout, PlacedChild, PlacedEdge, Point, Rect } from './types.js';

/**
 * Turns cached per-group layouts (relative coordinates) into absolute boxes: the drawn tree, culled to a window,
 * and the position of any one node. Absolute coordinates are never stored, so re-laying out a group moves its whole
 * subtree for free.
 */

export type LayoutLookup = ReadonlyMap<string, GroupLayout>;

export interface SceneNode extends Rect {
  id: string;
  parentId: string | null;
  /** Real ancestors above the node (0 = root); pseudo-groups of split groups do not count, so labels keep their form. */
  depth: number;
  shape: ChildShape;
  /** Drawn open: a titled frame whose children are drawn inside it. */
  container: boolean;
}

export function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

export function contains(outer: Rect, inner: Rect): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

/** The root's box (the whole drawn graph), or null before the root's first layout. */
export function sceneBounds(layouts: LayoutLookup, rootId: string): Rect | null {
  const root = layouts.get(rootId);
  return root ? { x: 0, y: 0, width: root.width, height: root.height } : null;
}

/**
 * Pre-order walk (a container before its children, so SVG paints frames underneath). With a window, subtrees whose
 * box misses it are skipped whole: the hierarchy is its own spatial index, and culling costs O(drawn nodes).
 */
export function visibleNodes(layouts: LayoutLookup, rootId: string, window?: Rect): SceneNode[] {
  const root = layouts.get(rootId);
  if (!root) return [];
  const out: SceneNode[] = [];
  const rootNode: SceneNode = {
    id: rootId,
    parentId: null,
    depth: 0,
    shape: 'module',
    container: true,
    x: 0,
    y: 0,
    width: root.width,
    height: root.height,
  };
  if (window && !intersects(rootNode, window)) return out;
  out.push(rootNode);
  const walk = (group: GroupLayout, ox: number, oy: number, depth: number) => {
    for (const child of group.children) {
      const box = { x: ox + child.x, y: oy + child.y, width: child.width, height: child.height };
      if (window && !intersects(box, window)) continue;
      const sub = child.expanded ? layouts.get(child.id) : undefined;
      out.push({ ...box, id: child.id, parentId: group.id, depth, shape: child.shape, container: sub !== undefined });
      if (sub) walk(sub, box.x, box.y, isSplitId(child.id) ? depth : depth + 1);
    }
  };
  walk(root, 0, 0, 1);
  return out;
}

/** A drawn edge bundle in graph coordinates, with the group it is drawn in. */
export interface SceneEdge extends Omit<PlacedEdge, 'points'> {
  groupId: string;
  points: Point[];
}

/**
 * Edges of every open group within the window, in graph coordinates. Walks the same pruned tree as visibleNodes, so
 * a closed group's edges are never drawn and the cost follows what is on screen.
 */
export function visibleEdges(layouts: LayoutLookup, rootId: string, window?: Rect): SceneEdge[] {
  const root = layouts.get(rootId);
  if (!root) return [];
  const out: SceneEdge[] = [];
  const walk = (group: GroupLayout, ox: number, oy: number) => {
    for (const edge of group.edges ?? []) {
      const points = edge.points.map((p) => ({ x: ox + p.x, y: oy + p.y }));
      if (window && !intersects(boundsOf(points), window)) continue;
      out.push({ ...edge, groupId: group.id, points });
    }
    for (const child of group.children) {
      if (!child.expanded) continue;
      const sub = layouts.get(child.id);
      if (!sub) continue;
      const box = { x: ox + child.x, y: oy + child.y, width: child.width, height: child.height };
      if (window && !intersects(box, window)) continue;
      walk(sub, box.x, box.y);
    }
  };
  walk(root, 0, 0);
  return out;
}

function boundsOf(points: readonly Point[]): Rect {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x);
    maxY = Math.max(maxY, p.y);
  }
  // A straight vertical or horizontal edge has no area; one pixel keeps it intersecting the window it crosses.
  return { x: minX, y: minY, width: Math.max(1, maxX - minX), height: Math.max(1, maxY - minY) };
}

const childIndexes = new WeakMap<GroupLayout, Map<string, number>>();

function indexOfChild(group: GroupLayout, id: string): number | undefined {
  let index = childIndexes.get(group);
  if (!index) {
    index = new Map(group.children.map((c, i) => [c.id, i]));
    childIndexes.set(group, index);
  }
  return index.get(id);
}

/**
 * Absolute box of a drawn node, found by walking up `parentOf` and summing offsets; null when the node or one of its
 * ancestors is not drawn (collapsed or not laid out yet).
 */
export function locate(
  layouts: LayoutLookup,
  parentOf: ReadonlyMap<string, string>,
  rootId: string,
  id: string,
): Rect | null {
  if (id === rootId) return sceneBounds(layouts, rootId);
  let x = 0;
  let y = 0;
  let width = 0;
  let height = 0;
  let current = id;
  let first = true;
  while (current !== rootId) {
    const parent = parentOf.get(current);
    if (parent === undefined) return null;
    const group = layouts.get(parent);
    const i = group ? indexOfChild(group, current) : undefined;
    if (!group || i === undefined) return null;
    const placed = group.children[i];
    // An ancestor that was closed since its parent's layout is not drawn open, so its children are not visible.
    if (!first && !(placed.expanded && layouts.has(current))) return null;
    if (first) {
      width = placed.width;
      height = placed.height;
      first = false;
    }
    x += placed.x;
    y += placed.y;
    current = parent;
  }
  return { x, y, width, height };
}

/**
 * The deepest drawn node whose box holds `point` (graph coordinates), or null: clicks on the far-zoom canvas, which
 * has no elements to click. Descends one group at a time, so it costs O(depth × children per group).
 */
export function hitTest(layouts: LayoutLookup, rootId: string, point: { x: number; y: number }): string | null {
  const root = layouts.get(rootId);
  if (!root || point.x < 0 || point.y < 0 || point.x > root.width || point.y > root.height) return null;
  let hit = rootId;
  let group: GroupLayout | undefined = root;
  let ox = 0;
  let oy = 0;
  while (group) {
    const inside: PlacedChild | undefined = group.children.find(
      (c) => point.x >= ox + c.x && point.x <= ox + c.x + c.width && point.y >= oy + c.y && point.y <= oy + c.y + c.height,
    );
    if (!inside) break;
    hit = inside.id;
    ox += inside.x;
    oy += inside.y;
    group = inside.expanded ? layouts.get(inside.id) : undefined;
  }
  return hit;
}
