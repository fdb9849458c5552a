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
  /** As typed: a case-insensitive substring of the node id, or `/regex/` (`/regex/i`), see parseSearch; not empty. */
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

/** Longest search text accepted: a pattern's cost grows with its length, and ids are rarely longer. */
export const MAX_SEARCH_LENGTH = 256;

/**
 * What a search text asks for. `/…/` is a JavaScript regular expression over the whole id, case-sensitive unless
 * written `/…/i` (an unanchored pattern finds ids containing a match, like the substring search); anything else is a
 * case-insensitive substring. A pattern that backtracks without end cannot be stopped mid-match: it runs in the find
 * worker, whose request answers 503 at the work budget and which is replaced when stuck (findPool.ts).
 */
export type SearchPattern = { kind: 'text'; text: string } | { kind: 'regex'; source: string; flags: '' | 'i' };

/** A search text that is not a usable pattern; `problem` is one line for the 400 answer. */
export class BadSearchError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'BadSearchError';
  }
}

const REGEX_TEXT = /^\/([\s\S]+)\/(i?)$/;

/** Reads a search text; throws BadSearchError for one too long or an invalid `/regex/`. */
export function parseSearch(query: string): SearchPattern {
  if (query.length > MAX_SEARCH_LENGTH) throw new BadSearchError(`longer than ${MAX_SEARCH_LENGTH} characters`);
  const m = REGEX_TEXT.exec(query);
  if (!m) return { kind: 'text', text: query };
  const flags = m[2] as '' | 'i';
  try {
    new RegExp(m[1], flags);
  } catch (e) {
    // V8's message names the pattern and the problem ("Invalid regular expression: /(/: Unterminated group").
    throw new BadSearchError(e instanceof Error ? e.message : String(e));
  }
  return { kind: 'regex', source: m[1], flags };
}

/** The id test of a search as the `.vis` stores run it (the `.vis.db` store runs the same through SQL). */
export function searchMatcher(query: string): (id: string) => boolean {
  const pattern = parseSearch(query);
  if (pattern.kind === 'regex') {
    const re = new RegExp(pattern.source, pattern.flags);
    return (id) => re.test(id);
  }
  const needle = foldAscii(pattern.text);
  return (id) => foldAscii(id).includes(needle);
}
