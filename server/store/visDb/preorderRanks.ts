import type Database from 'better-sqlite3';
import { checkBudget } from '../workBudget.js';

/**
 * Execution (pre-order) rank of every row of one graph, for ordering search and filter results. The db stores
 * `node_order` as a post-order (msprobe-format.md §4.2), so one pass in that order rebuilds the tree with a stack
 * (a node's children are the finished subtrees on top whose up_node names it), and then
 * pre-order rank = post-order position − subtree size + 1 + depth.
 * Kept per graph as typed arrays (about 12 bytes a node), no strings.
 */
export interface PreorderRanks {
  size: number;
  /** Pre-order rank of a row, or -1 for a rowid outside the graph. */
  rankOf(rowid: number): number;
  /** The row at each rank. */
  rowidAt: Float64Array;
}

export function buildPreorderRanks(stmt: Database.Statement, params: unknown[]): PreorderRanks {
  const rowids: number[] = [];
  const parent: number[] = [];
  const size: number[] = [];
  // Finished subtrees waiting for their parent: position and the parent name they wait for.
  const waiting: Array<{ pos: number; up: string }> = [];
  for (const row of stmt.raw().iterate(...params) as IterableIterator<[number, string, string | null]>) {
    checkBudget();
    const [rowid, name, up] = row;
    const pos = rowids.length;
    rowids.push(rowid);
    parent.push(-1);
    let s = 1;
    while (waiting.length > 0 && waiting[waiting.length - 1].up === name) {
      const child = waiting.pop()!.pos;
      parent[child] = pos;
      s += size[child];
    }
    size.push(s);
    waiting.push({ pos, up: up ?? '' });
  }
  const n = rowids.length;
  // Parents come after their children in post-order, so a reverse pass sees each parent's depth first.
  const depth = new Int32Array(n);
  for (let pos = n - 1; pos >= 0; pos--) if (parent[pos] >= 0) depth[pos] = depth[parent[pos]] + 1;
  const rank = new Int32Array(n);
  const rowidAt = new Float64Array(n);
  const taken = new Uint8Array(n);
  let permutation = true;
  for (let pos = 0; pos < n && permutation; pos++) {
    const k = pos - size[pos] + 1 + depth[pos];
    if (k < 0 || k >= n || taken[k]) permutation = false;
    else taken[k] = 1;
    rank[pos] = k;
  }
  // node_order that is not a post-order of the up_node tree (a hand-made file): fall back to node_order itself.
  for (let pos = 0; pos < n; pos++) {
    if (!permutation) rank[pos] = pos;
    rowidAt[rank[pos]] = rowids[pos];
  }

  // rowid → rank: a dense table when the graph's rows are contiguous (msprobe inserts a graph in one go).
  let min = Infinity;
  let max = -Infinity;
  for (const r of rowids) {
    if (r < min) min = r;
    if (r > max) max = r;
  }
  if (n > 0 && max - min < 4 * n + 1024) {
    const slot = new Int32Array(max - min + 1).fill(-1);
    rowids.forEach((r, pos) => (slot[r - min] = rank[pos]));
    return { size: n, rowidAt, rankOf: (r) => (r >= min && r <= max ? slot[r - min] : -1) };
  }
  const map = new Map<number, number>();
  rowids.forEach((r, pos) => map.set(r, rank[pos]));
  return { size: n, rowidAt, rankOf: (r) => map.get(r) ?? -1 };
}
