import type { GraphEdge, NodeSummary } from '../../core/api/types.js';

/**
 * What one graph pane knows about its tree: loaded nodes, which groups are open, what is being fetched, and which
 * group layouts are stale. Immutable: commands return a new value, so zustand selectors see changes by identity.
 */
export interface TreeState {
  rootId: string | null;
  nodes: ReadonlyMap<string, NodeSummary>;
  /** child → parent, from children responses and from reveal paths (which may name nodes not loaded yet). */
  parentOf: ReadonlyMap<string, string>;
  /** Loaded children lists, in execution order. */
  children: ReadonlyMap<string, readonly string[]>;
  /** Groups drawn open (their children are loaded and their parent is open). */
  expanded: ReadonlySet<string>;
  /** Groups the user wants open that wait for their children or for their parent to open. */
  pending: ReadonlySet<string>;
  /**
   * Groups a link or a graph switch asks to be open that are not loaded yet: each becomes pending once it is loaded
   * as a child, so an id this graph lacks (another rank, a rebuilt file) is never requested.
   */
  wanted: ReadonlySet<string>;
  /** Children requests in flight. */
  loading: ReadonlySet<string>;
  /** Children requests that failed: id → message (shown on the node; retried on the next expand). */
  failed: ReadonlyMap<string, string>;
  /** Groups whose own layout changed; the layout scheduler adds their ancestor chains. */
  dirty: ReadonlySet<string>;
  /**
   * Real groups drawn as pseudo-groups (core/layout/groupSplit): id → the child count the server reported. Their
   * `children` entry lists the top pseudo-groups; a pseudo-group's entry lists its sub-groups or, once its slice
   * is loaded, its real children, whose `parentOf` is then the pseudo-group.
   */
  totals: ReadonlyMap<string, number>;
  /** Dataflow among a group's children (TensorBoard graphs, or the inferred msprobe layer), from its children answer. */
  edges: ReadonlyMap<string, readonly GraphEdge[]>;
  /** Groups the server drew no inferred dataflow for because they hold too many children: id → the limit. */
  dataflowSkipped: ReadonlyMap<string, number>;
}

export const EMPTY_TREE: TreeState = {
  rootId: null,
  nodes: new Map(),
  parentOf: new Map(),
  children: new Map(),
  expanded: new Set(),
  pending: new Set(),
  wanted: new Set(),
  loading: new Set(),
  failed: new Map(),
  dirty: new Set(),
  totals: new Map(),
  edges: new Map(),
  dataflowSkipped: new Map(),
};

/** A fresh tree for a newly opened file: the root is wanted open, nothing is loaded yet. */
export function treeForRoot(rootId: string | null): TreeState {
  return rootId === null ? EMPTY_TREE : { ...EMPTY_TREE, rootId, pending: new Set([rootId]) };
}

/** Ancestor ids from the root down to the parent of `id` (empty for the root or an unknown node). */
export function ancestorsOf(tree: Pick<TreeState, 'parentOf'>, id: string): string[] {
  const chain: string[] = [];
  let current = tree.parentOf.get(id);
  const seen = new Set<string>();
  while (current !== undefined && !seen.has(current)) {
    seen.add(current);
    chain.push(current);
    current = tree.parentOf.get(current);
  }
  return chain.reverse();
}

export function isDescendant(tree: Pick<TreeState, 'parentOf'>, id: string, ancestor: string): boolean {
  let current = tree.parentOf.get(id);
  let steps = 0;
  while (current !== undefined && steps++ < 10_000) {
    if (current === ancestor) return true;
    current = tree.parentOf.get(current);
  }
  return false;
}

/** Ids whose children must be requested now: wanted open, not loaded, not in flight, not failed. */
export function childrenToFetch(tree: TreeState): string[] {
  return [...tree.pending].filter((id) => !tree.children.has(id) && !tree.loading.has(id) && !tree.failed.has(id));
}
