import type { Side } from '../../src/core/api/types.js';

/**
 * Search and filter requests as every store receives them (`/api/graph/search`, `/api/graph/filter`), and the
 * rules they share, so a `.vis` and a `.vis.db` of the same graph answer the same.
 */

/** Which graph of a `.vis.db` (ignored by `.vis`, which holds one). */
export interface GraphSelector {
  step?: number;
  rank?: number;
}

export interface SearchQuery extends GraphSelector {
  side: Side;
  /** Case-insensitive substring of the node id; not empty. */
  query: string;
  limit: number;
}

export interface FilterQuery extends GraphSelector {
  side: Side;
  /** [lo, hi] buckets; see inPrecisionBuckets. */
  precision: Array<[number, number]>;
  unmatched: boolean;
  overflow: string[];
  /** Only nodes without children. */
  leaves: boolean;
  limit: number;
}

export const DEFAULT_FIND_LIMIT = 500;
export const MAX_FIND_LIMIT = 10_000;
/**
 * Path ids one search or filter answer may hold in all (issue 12: limit × depth ids made a 103 MB answer): past it
 * the answer stops early, `total` still counting every match. Ancestors one path lists are capped too.
 */
export const PATH_ROOM = 250_000;
export const MAX_PATH_DEPTH = 10_000;

/**
 * Colour-bucket membership (msprobe-format.md §3.9): lo ≤ v < hi, the top bucket includes 1, and [x, x] (md5's
 * pass / diff buckets) is an exact match. The reference viewer's JSON and DB modes disagree at the edges
 * (reference-viewer.md §4: `<` vs `BETWEEN`); this is the JSON rule, which matches the legend.
 */
export function inPrecisionBuckets(v: number | null, buckets: Array<[number, number]>): boolean {
  if (v === null || Number.isNaN(v)) return false;
  for (const [lo, hi] of buckets) {
    if (lo === hi ? v === lo : v >= lo && (v < hi || (hi === 1 && v === 1))) return true;
  }
  return false;
}

/** True when a filter names no criterion: then every node (or every leaf) matches. */
export function filterIsOpen(q: FilterQuery): boolean {
  return q.precision.length === 0 && !q.unmatched && q.overflow.length === 0;
}

/** The OR of the filter's criteria for one node (leaves are checked by the caller, who knows the child count). */
export function matchesFilter(
  q: FilterQuery,
  node: { precisionIndex: number | null; matchedNodeLink: number | string[]; overflowLevel: string | null },
): boolean {
  if (filterIsOpen(q)) return true;
  if (inPrecisionBuckets(node.precisionIndex, q.precision)) return true;
  const linkLength = typeof node.matchedNodeLink === 'number' ? node.matchedNodeLink : node.matchedNodeLink.length;
  if (q.unmatched && linkLength === 0) return true;
  return node.overflowLevel !== null && q.overflow.includes(node.overflowLevel);
}

/**
 * ASCII case folding for search: the same rule in JavaScript and in SQLite's LIKE, so both formats find the same
 * nodes (ids are ASCII in practice; other characters must match exactly).
 */
export function foldAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
