import type { NodeSummary } from '../../core/api/types.js';
import { isDescendant, type TreeState } from './treeState.js';

/**
 * Expansion commands: pure `(tree, args) → tree`, shared by double click, keyboard, selection reveal and URL
 * restore. Fetching and layout are not done here; the pane's managers react to `pending` and `dirty`.
 */

export function expand(tree: TreeState, id: string): TreeState {
  if (tree.expanded.has(id) || tree.pending.has(id)) return tree;
  const node = tree.nodes.get(id);
  if (node && node.childCount === 0) return tree;
  const failed = tree.failed.has(id) ? withoutKey(tree.failed, id) : tree.failed;
  return promote({ ...tree, pending: withItem(tree.pending, id), failed });
}

/**
 * Asks for `ids` to be open without knowing where they sit (a link's open groups, the groups open before a step /
 * rank switch): each opens once it is loaded as a child of an open group, level by level.
 */
export function wantOpen(tree: TreeState, ids: Iterable<string>): TreeState {
  const wanted = new Set(tree.wanted);
  for (const id of ids) if (id !== tree.rootId && !tree.expanded.has(id) && !tree.pending.has(id)) wanted.add(id);
  return wanted.size === tree.wanted.size ? tree : promote({ ...tree, wanted });
}

/** Closes a group and everything open below it; the root never closes. A collapse ends a restore in progress. */
export function collapse(tree: TreeState, id: string): TreeState {
  if (id === tree.rootId) return tree;
  if (tree.wanted.size > 0) tree = { ...tree, wanted: new Set() };
  if (!tree.expanded.has(id)) {
    return tree.pending.has(id) ? { ...tree, pending: withoutItem(tree.pending, id) } : tree;
  }
  const inside = (other: string) => other === id || isDescendant(tree, other, id);
  const expanded = new Set([...tree.expanded].filter((other) => !inside(other)));
  const pending = new Set([...tree.pending].filter((other) => !inside(other)));
  const dirty = new Set([...tree.dirty].filter((other) => !inside(other)));
  const parent = tree.parentOf.get(id);
  if (parent !== undefined) dirty.add(parent);
  return { ...tree, expanded, pending, dirty };
}

/**
 * Closes every open or pending group but the root and `keep` (a link applied to the file already shown keeps only
 * what it lists). A kept group inside a closed one closes with it, as collapse does.
 */
export function closeAllBut(tree: TreeState, keep: ReadonlySet<string>): TreeState {
  for (const id of [...tree.expanded, ...tree.pending]) if (id !== tree.rootId && !keep.has(id)) tree = collapse(tree, id);
  return tree;
}

export function toggle(tree: TreeState, id: string): TreeState {
  return tree.expanded.has(id) || tree.pending.has(id) ? collapse(tree, id) : expand(tree, id);
}

/**
 * Opens every group on `path` (root → parent of a target), so the target becomes drawn. Nodes on the path need not
 * be loaded yet: the path itself says who is whose parent, so all their children can be fetched at once.
 */
export function reveal(tree: TreeState, path: readonly string[]): TreeState {
  if (path.length === 0) return tree;
  let parentOf = tree.parentOf;
  for (let i = 1; i < path.length; i++) {
    if (parentOf.get(path[i]) !== path[i - 1]) {
      if (parentOf === tree.parentOf) parentOf = new Map(parentOf);
      (parentOf as Map<string, string>).set(path[i], path[i - 1]);
    }
  }
  let next: TreeState = parentOf === tree.parentOf ? tree : { ...tree, parentOf };
  for (const id of path) next = expand(next, id);
  return next;
}

export function fetchStarted(tree: TreeState, ids: readonly string[]): TreeState {
  if (ids.length === 0) return tree;
  const loading = new Set(tree.loading);
  for (const id of ids) loading.add(id);
  return { ...tree, loading };
}

export function childrenLoaded(tree: TreeState, id: string, children: readonly NodeSummary[]): TreeState {
  const nodes = new Map(tree.nodes);
  const parentOf = new Map(tree.parentOf);
  for (const child of children) {
    nodes.set(child.id, child);
    parentOf.set(child.id, id);
  }
  const lists = new Map(tree.children);
  lists.set(
    id,
    children.map((c) => c.id),
  );
  return promote({ ...tree, nodes, parentOf, children: lists, loading: withoutItem(tree.loading, id) });
}

export function fetchFailed(tree: TreeState, id: string, message: string): TreeState {
  const failed = new Map(tree.failed);
  failed.set(id, message);
  return { ...tree, failed, loading: withoutItem(tree.loading, id), pending: withoutItem(tree.pending, id) };
}

/**
 * Moves wanted groups to open once their children are loaded and their parent is open, repeating so a revealed
 * chain whose responses arrived out of order opens in one step.
 */
export function promote(tree: TreeState): TreeState {
  tree = claimWanted(tree);
  let expanded: Set<string> | null = null;
  let pending: Set<string> | null = null;
  let dirty: Set<string> | null = null;
  let changed = true;
  while (changed) {
    changed = false;
    for (const id of pending ?? tree.pending) {
      if (!tree.children.has(id)) continue;
      const parent = tree.parentOf.get(id);
      const open = expanded ?? tree.expanded;
      const attached = id === tree.rootId || (parent !== undefined && open.has(parent));
      if (!attached) continue;
      expanded ??= new Set(tree.expanded);
      pending ??= new Set(tree.pending);
      dirty ??= new Set(tree.dirty);
      expanded.add(id);
      pending.delete(id);
      dirty.add(id);
      changed = true;
    }
  }
  return expanded ? { ...tree, expanded, pending: pending!, dirty: dirty! } : tree;
}

/** Wanted groups that are loaded now become pending (a loaded leaf is dropped: there is nothing to open). */
function claimWanted(tree: TreeState): TreeState {
  let wanted: Set<string> | null = null;
  let pending: Set<string> | null = null;
  for (const id of tree.wanted) {
    const node = tree.nodes.get(id);
    if (!node) continue;
    wanted ??= new Set(tree.wanted);
    wanted.delete(id);
    if (node.childCount === 0) continue;
    pending ??= new Set(tree.pending);
    pending.add(id);
  }
  return wanted ? { ...tree, wanted, pending: pending ?? tree.pending } : tree;
}

function withItem(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  const next = new Set(set);
  next.add(id);
  return next;
}

export function withoutItem(set: ReadonlySet<string>, id: string): ReadonlySet<string> {
  if (!set.has(id)) return set;
  const next = new Set(set);
  next.delete(id);
  return next;
}

function withoutKey<V>(map: ReadonlyMap<string, V>, id: string): ReadonlyMap<string, V> {
  const next = new Map(map);
  next.delete(id);
  return next;
}
