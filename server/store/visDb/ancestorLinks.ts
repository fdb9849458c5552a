import { checkBudget } from '../workBudget.js';

/** Ancestor walks over up_node for the `.vis.db` store: memoised links, bounded depth, pre-order comparison. */

/** Deeper up_node chains are damage (msprobe's graphs are a few dozen levels); the walks stop there. */
export const MAX_DEPTH = 10_000;

/**
 * A node on an ancestor walk, memoised per request: hits that share ancestors share one walk, so a search costs
 * O(nodes) lookups however deep or repeated the paths (issue 12 #3).
 */
export interface Link {
  name: string;
  order: number;
  parent: Link | null;
  depth: number;
}
export type Links = Map<string, Link | null>;

/** Pre-order comparison: an ancestor comes first, otherwise the siblings below the common ancestor decide. */
export function comparePreorder(a: Link, b: Link): number {
  let x = a;
  let y = b;
  while (x.depth > y.depth) x = x.parent!;
  while (y.depth > x.depth) y = y.parent!;
  if (x === y) return a.depth - b.depth;
  while (x.parent !== y.parent) {
    checkBudget();
    x = x.parent!;
    y = y.parent!;
  }
  return x.order - y.order;
}

/** Ancestor names, root first (the link's depth is their count). */
export function pathOf(link: Link): string[] {
  const out = new Array<string>(link.depth);
  for (let p = link.parent, i = link.depth - 1; p !== null; p = p.parent, i--) out[i] = p.name;
  return out;
}
