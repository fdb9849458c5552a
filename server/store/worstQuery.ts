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
