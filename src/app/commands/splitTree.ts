import type { GraphEdge, NodeSummary } from '../../core/api/types.js';
import { isSplitId, parseSplitId, planSplit, rangeChain, SPLIT_THRESHOLD, splitId } from '../../core/layout/groupSplit.js';
import { NodeOp } from '../../core/model/graph.js';
import { childrenLoaded, promote, withoutItem } from './expansion.js';
import { ancestorsOf, type TreeState } from './treeState.js';

/**
 * Tree commands for split groups (core/layout/groupSplit): pseudo-groups are ordinary tree nodes (a synthetic
 * summary, a parent, a children list), so expand, collapse, layout batches, culling and locate need no special
 * case. What is special lives here: turning a page of children into pseudo-groups, and mapping the real ancestor
 * path the server knows (`NodeDetail.path`, `FoundNode.path`) to the drawn path through pseudo-groups.
 */

/** One answer of the children route. */
export interface ChildrenPage {
  /** Index of `children[0]` among all of the group's children. */
  offset: number;
  children: readonly NodeSummary[];
  /** How many children the group has in all (the page may hold fewer). */
  total: number;
  /** Dataflow among all the group's children, when the server sends it. */
  edges?: readonly GraphEdge[];
  /** The server inferred no dataflow: the group has more children than this limit. */
  dataflowSkipped?: number;
}

/**
 * Children arrived for `id`: a real group (first page) or a pseudo-group (its slice). A real group with more than
 * `threshold` children becomes pseudo-groups; slices the page covers entirely are loaded at once.
 */
export function pageLoaded(tree: TreeState, id: string, page: ChildrenPage, threshold = SPLIT_THRESHOLD): TreeState {
  const range = parseSplitId(id);
  if (range) return childrenLoaded(tree, id, pageSlice(page, range.lo, range.hi));
  tree = withSkip(tree, id, page.dataflowSkipped);
  // Edges are drawn between the children they name, so a group drawn as pseudo-groups shows none.
  if (page.total <= threshold) return withEdges(childrenLoaded(tree, id, pageSlice(page, 0, page.total)), id, page.edges);
  const plan = planSplit(id, page.total, threshold);
  const nodes = new Map(tree.nodes);
  const parentOf = new Map(tree.parentOf);
  const children = new Map(tree.children);
  children.set(id, plan.top);
  const end = page.offset + page.children.length;
  for (const group of plan.groups) {
    nodes.set(group.id, pseudoSummary(group.id, group.lo, group.hi));
    parentOf.set(group.id, group.parent);
    if (group.groups) {
      children.set(group.id, group.groups);
    } else if (page.offset <= group.lo && group.hi <= end) {
      const slice = page.children.slice(group.lo - page.offset, group.hi - page.offset);
      for (const child of slice) {
        nodes.set(child.id, child);
        parentOf.set(child.id, group.id);
      }
      children.set(
        group.id,
        slice.map((c) => c.id),
      );
    }
  }
  const totals = new Map(tree.totals);
  totals.set(id, page.total);
  return promote({ ...tree, nodes, parentOf, children, totals, loading: withoutItem(tree.loading, id) });
}

function withEdges(tree: TreeState, id: string, edges: readonly GraphEdge[] | undefined): TreeState {
  if (!edges?.length && !tree.edges.has(id)) return tree;
  const all = new Map(tree.edges);
  if (edges?.length) all.set(id, edges);
  else all.delete(id);
  return { ...tree, edges: all };
}

function withSkip(tree: TreeState, id: string, limit: number | undefined): TreeState {
  if (limit === undefined && !tree.dataflowSkipped.has(id)) return tree;
  const skipped = new Map(tree.dataflowSkipped);
  if (limit === undefined) skipped.delete(id);
  else skipped.set(id, limit);
  return { ...tree, dataflowSkipped: skipped };
}

function pageSlice(page: ChildrenPage, lo: number, hi: number): readonly NodeSummary[] {
  const from = Math.max(0, lo - page.offset);
  const to = Math.max(from, Math.min(page.children.length, hi - page.offset));
  return from === 0 && to === page.children.length ? page.children : page.children.slice(from, to);
}

/** A pseudo-group drawn like a module; it is neither matched nor coloured (NodeLayer paints it neutral). */
function pseudoSummary(id: string, lo: number, hi: number): NodeSummary {
  return { id, nodeType: NodeOp.module, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount: hi - lo, microStepId: null };
}

/** Records that `childId` is child number `index` of the split group `parentId` (found by a link or a scan). */
export function placeChild(tree: TreeState, parentId: string, childId: string, index: number, threshold = SPLIT_THRESHOLD): TreeState {
  const total = tree.totals.get(parentId);
  if (total === undefined || !(index >= 0 && index < total)) return tree;
  const chain = rangeChain(total, index, threshold);
  const [lo, hi] = chain[chain.length - 1];
  const slice = splitId(parentId, lo, hi);
  if (tree.parentOf.get(childId) === slice) return tree;
  const parentOf = new Map(tree.parentOf);
  parentOf.set(childId, slice);
  return { ...tree, parentOf };
}

export interface SplitPath {
  /** The drawn path: the real ids with the pseudo-groups between them, as far as they are known. */
  full: string[];
  /**
   * The first split group whose child on the path has no known position yet (`full` ends at that group);
   * `ordinal` counts the split groups before it on the path (the index into a link's `pos=` list).
   */
  unresolved: { parent: string; child: string; ordinal: number } | null;
}

/**
 * Maps a real id chain (root … target) to the drawn chain. Groups not loaded yet are assumed unsplit; the caller
 * asks again once they are, because only a loaded group is known to be split.
 */
export function splitPath(tree: TreeState, chain: readonly string[]): SplitPath {
  const real = chain.filter((id) => !isSplitId(id));
  if (real.length === 0) return { full: [], unresolved: null };
  const full = [real[0]];
  let ordinal = 0;
  for (let i = 1; i < real.length; i++) {
    const parent = real[i - 1];
    const child = real[i];
    if (tree.totals.has(parent)) {
      const between = pseudoChain(tree, parent, child);
      if (between === null) return { full, unresolved: { parent, child, ordinal } };
      full.push(...between);
      ordinal++;
    }
    full.push(child);
  }
  return { full, unresolved: null };
}

/** Pseudo-groups between a split group and one of its children, outermost first; null when not placed yet. */
function pseudoChain(tree: TreeState, parent: string, child: string): string[] | null {
  const out: string[] = [];
  let current = tree.parentOf.get(child);
  while (current !== undefined && current !== parent) {
    if (parseSplitId(current)?.parentId !== parent) return null;
    out.push(current);
    current = tree.parentOf.get(current);
  }
  return current === parent && out.length > 0 ? out.reverse() : null;
}

/**
 * The child index of the node at each split level of its path (root first): what a link stores as `pos=` so a
 * fresh page can open the right pseudo-groups without searching for the node.
 */
export function splitPositions(tree: TreeState, id: string): number[] {
  const chain = [...ancestorsOf(tree, id), id];
  const out: number[] = [];
  for (let i = 0; i + 1 < chain.length; i++) {
    const range = parseSplitId(chain[i]);
    const next = chain[i + 1];
    if (!range || isSplitId(next)) continue;
    const at = tree.children.get(chain[i])?.indexOf(next) ?? -1;
    if (at < 0) break;
    out.push(range.lo + at);
  }
  return out;
}

/** Ancestors root → parent without pseudo-groups: the path as the server names it. */
export function realAncestors(tree: Pick<TreeState, 'parentOf'>, id: string): string[] {
  return ancestorsOf(tree, id).filter((a) => !isSplitId(a));
}

/** What a pseudo-group is painted with: its worst child, so a red leaf shows before the range is opened. */
export interface SplitShade {
  /** Highest precision index among the children known so far (higher is worse); null when none carries one. */
  worst: number | null;
  /** Children whose index falls in the worst one's colour bucket (the badge count). */
  worstCount: number;
  /** Children whose summaries have not arrived yet: a worse one may still be among them. */
  unknown: number;
}

type ShadeCache = Map<string, SplitShade>;
type ShadeTree = Pick<TreeState, 'nodes' | 'children'>;
const shadeCaches = new WeakMap<ReadonlyMap<string, unknown>, WeakMap<object, ShadeCache>>();

/**
 * The shade of pseudo-group `id` (nested pseudo-groups summed), memoised per loaded-nodes map and bucket list, so a
 * far-zoom frame or a re-render that paints hundreds of pseudo-groups walks each child once per load.
 */
export function splitShade(tree: ShadeTree, id: string, bucketOf: (value: number) => string | null): SplitShade {
  let byBuckets = shadeCaches.get(tree.nodes);
  if (!byBuckets) shadeCaches.set(tree.nodes, (byBuckets = new WeakMap()));
  let cache = byBuckets.get(bucketOf);
  if (!cache) byBuckets.set(bucketOf, (cache = new Map()));
  return shadeOf(tree, id, bucketOf, cache);
}

function shadeOf(tree: ShadeTree, id: string, bucketOf: (value: number) => string | null, cache: ShadeCache): SplitShade {
  const known = cache.get(id);
  if (known) return known;
  const range = parseSplitId(id);
  const children = tree.children.get(id);
  let shade: SplitShade = { worst: null, worstCount: 0, unknown: 0 };
  if (!children) {
    shade.unknown = range ? range.hi - range.lo : 0;
  } else {
    for (const child of children) {
      const part: SplitShade = isSplitId(child)
        ? shadeOf(tree, child, bucketOf, cache)
        : { worst: tree.nodes.get(child)?.precisionIndex ?? null, worstCount: 1, unknown: 0 };
      shade = mergeShades(shade, part, bucketOf);
    }
  }
  cache.set(id, shade);
  return shade;
}

function mergeShades(a: SplitShade, b: SplitShade, bucketOf: (value: number) => string | null): SplitShade {
  const unknown = a.unknown + b.unknown;
  if (b.worst === null || Number.isNaN(b.worst)) return { ...a, unknown };
  if (a.worst === null) return { ...b, unknown };
  const worst = Math.max(a.worst, b.worst);
  const bucket = bucketOf(worst);
  const count = (s: SplitShade) => (s.worst !== null && bucketOf(s.worst) === bucket ? s.worstCount : 0);
  return { worst, worstCount: count(a) + count(b), unknown };
}

/**
 * The innermost pseudo-groups under real group `groupId` whose children are not loaded: what a background fetch
 * needs so every pseudo-group can be shaded. Outermost first, in execution order.
 */
export function unloadedSlices(tree: TreeState, groupId: string): string[] {
  const out: string[] = [];
  const walk = (id: string) => {
    for (const child of tree.children.get(id) ?? []) {
      if (!isSplitId(child)) continue;
      if (tree.children.has(child)) walk(child);
      else out.push(child);
    }
  };
  walk(groupId);
  return out;
}
