import type { Task } from '../../src/core/api/types.js';
import type { GraphSelector } from './findQuery.js';
import type { Side } from '../../src/core/api/types.js';

/**
 * The worst-nodes table (`/api/graph/worst`, issue 14): every node of one side that carries a finite precision value,
 * worst first or in execution order, paged. Every store answers the same for the same graph:
 * - execution order is the order outputs are produced, a module's output after its last child's: the post-order of
 *   the subnodes tree, which is the `.vis.db`'s own `node_order` (msprobe-format.md §4.2); a `.vis`'s nodes that the
 *   tree does not reach follow in file order;
 * - worst first is by the value (descending; md5 ascending, where 0 = some md5 differs, §3.8), ties in execution order.
 */

export type WorstOrder = 'precision' | 'execution';
export const WORST_ORDERS: readonly WorstOrder[] = ['precision', 'execution'];

export interface WorstQuery extends GraphSelector {
  side: Side;
  order: WorstOrder;
  offset: number;
  limit: number;
}

/**
 * The side's nodes with a finite precision value in execution order, the worst table's `execution` list: `values[k]`
 * is the value of the k-th, `idAt(k)` its id. Walks over it (divergentQuery.ts) read only the records they need.
 */
export interface RatedNodes {
  values: Float64Array;
  idAt(k: number): string;
}

export const DEFAULT_WORST_LIMIT = 100;
export const MAX_WORST_LIMIT = 1000;

/** Which end of the scale is bad: md5's 0 (differs); everywhere else 1. */
export function worstEnd(task: Task): 'high' | 'low' {
  return task === 'md5' ? 'low' : 'high';
}

/**
 * Positions (into an execution-ordered list) sorted worst first, ties in execution order. `values[k]` is the value
 * of list position k; every value is finite.
 */
export function sortWorstFirst(values: Float64Array, end: 'high' | 'low'): Uint32Array {
  const order = new Uint32Array(values.length);
  for (let k = 0; k < order.length; k++) order[k] = k;
  const sign = end === 'high' ? -1 : 1;
  order.sort((a, b) => sign * (values[a] - values[b]) || a - b);
  return order;
}

/** Pages up to this rank come from a bounded heap; past it the whole list is sorted once and kept. */
const PARTIAL_MAX = 10_000;

/**
 * The worst-first order of a rated list, page by page: sorting 10^6 positions takes over a second, while a first page
 * needs only the `to` worst, kept in a heap in one pass (bench/triage.mjs). Same order as sortWorstFirst.
 */
export class WorstFirst {
  private full: Uint32Array | null = null;

  constructor(
    private readonly values: Float64Array,
    private readonly end: 'high' | 'low',
  ) {}

  /** Positions of ranks [from, to) of the worst-first order. */
  range(from: number, to: number): Uint32Array {
    if (this.full || to > PARTIAL_MAX) {
      this.full ??= sortWorstFirst(this.values, this.end);
      return this.full.subarray(from, to);
    }
    return this.worst(to).subarray(from);
  }

  /** The `count` worst positions, worst first: a heap whose root is the kept position that ranks last. */
  private worst(count: number): Uint32Array {
    const { values } = this;
    // Keys: larger = worse, whichever end is bad.
    const sign = this.end === 'high' ? 1 : -1;
    // a ranks before b: worse value, or the same value earlier in execution order.
    const before = (a: number, b: number) => sign * (values[a] - values[b]) > 0 || (values[a] === values[b] && a < b);
    const heap = new Uint32Array(Math.min(count, values.length));
    let size = 0;
    const siftDown = (i: number) => {
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let last = i;
        if (l < size && before(heap[last], heap[l])) last = l;
        if (r < size && before(heap[last], heap[r])) last = r;
        if (last === i) return;
        [heap[i], heap[last]] = [heap[last], heap[i]];
        i = last;
      }
    };
    for (; size < heap.length; size++) {
      let i = size;
      heap[i] = size;
      while (i > 0 && before(heap[(i - 1) >> 1], heap[i])) {
        const up = (i - 1) >> 1;
        [heap[i], heap[up]] = [heap[up], heap[i]];
        i = up;
      }
    }
    // The hot loop, 10^6 times on a reopened file's first page: one comparison with the root's key, no call. A later
    // position with the root's value ranks after it, so only a strictly worse value enters.
    let rootKey = size > 0 ? sign * values[heap[0]] : Infinity;
    for (let k = size; k < values.length; k++) {
      if (sign * values[k] > rootKey) {
        heap[0] = k;
        siftDown(0);
        rootKey = sign * values[heap[0]];
      }
    }
    return heap.sort((a, b) => (before(a, b) ? -1 : 1));
  }
}
