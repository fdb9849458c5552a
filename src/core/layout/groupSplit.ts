/**
 * Group splitting (issue 4): a group with more than `threshold` children is drawn as sub-groups of consecutive
 * children, each labelled by its index range and expanded on demand like a module. When even the sub-groups would
 * be too many (more than threshold² children), they are grouped again, so no drawn level ever holds more than
 * `threshold` items: one dagre call stays small (peers.md §6.3: 400 boxes ≈ 340 ms, 7,000 overflow the stack).
 *
 * Pseudo-group ids start with a NUL character, which no msprobe node id contains (ids are Python module and API
 * names joined by dots), so they can never collide with a real node. They are derived from (parent, range) only:
 * the same file always yields the same ids, and a link can name a position instead of an id.
 */

export const SPLIT_THRESHOLD = 400;

const PREFIX = '\u0000split:';

/** Children `[lo, hi)` of the real group `parentId`, in execution order. */
export interface SplitRange {
  parentId: string;
  lo: number;
  hi: number;
}

export function isSplitId(id: string): boolean {
  return id.startsWith(PREFIX);
}

export function splitId(parentId: string, lo: number, hi: number): string {
  return `${PREFIX}${lo}:${hi}:${parentId}`;
}

export function parseSplitId(id: string): SplitRange | null {
  if (!isSplitId(id)) return null;
  const match = /^(\d+):(\d+):/.exec(id.slice(PREFIX.length));
  if (!match) return null;
  return { lo: Number(match[1]), hi: Number(match[2]), parentId: id.slice(PREFIX.length + match[0].length) };
}

/** "[0–399]": the first and last index of the range, both included (an en dash, as in a printed range). */
export function splitLabel(lo: number, hi: number): string {
  return `[${lo}–${hi - 1}]`;
}

/**
 * How many children each item one level below a range of `size` children covers: 1 (the children themselves) when
 * they fit, else the smallest power of `threshold` that leaves at most `threshold` items.
 */
export function itemSpan(size: number, threshold = SPLIT_THRESHOLD): number {
  if (threshold < 2) throw new Error(`group split threshold ${threshold}: must be at least 2`);
  let span = 1;
  while (Math.ceil(size / span) > threshold) span *= threshold;
  return span;
}

/** The sub-ranges `[lo, hi)` is drawn as, or [] when its children fit in one level. */
export function subRanges(lo: number, hi: number, threshold = SPLIT_THRESHOLD): Array<[number, number]> {
  const span = itemSpan(hi - lo, threshold);
  if (span === 1) return [];
  const out: Array<[number, number]> = [];
  for (let start = lo; start < hi; start += span) out.push([start, Math.min(hi, start + span)]);
  return out;
}

/**
 * The ranges that hold child `index` of a group of `total` children, from the group's own level down to the range
 * whose items are real children. Empty when the group is not split.
 */
export function rangeChain(total: number, index: number, threshold = SPLIT_THRESHOLD): Array<[number, number]> {
  const chain: Array<[number, number]> = [];
  let lo = 0;
  let hi = total;
  while (hi - lo > threshold) {
    const span = itemSpan(hi - lo, threshold);
    const start = lo + Math.floor((index - lo) / span) * span;
    hi = Math.min(hi, start + span);
    lo = start;
    chain.push([lo, hi]);
  }
  return chain;
}

export interface SplitGroup {
  id: string;
  /** The real group or the enclosing pseudo-group. */
  parent: string;
  lo: number;
  hi: number;
  /** Ids of the sub-groups inside, or null when the items are real children (fetched on expand). */
  groups: string[] | null;
}

export interface SplitPlan {
  /** What the real group shows as its children. */
  top: string[];
  /** Every pseudo-group, parents before their sub-groups. */
  groups: SplitGroup[];
}

/** All pseudo-groups of a real group of `total` children (about total / threshold of them). */
export function planSplit(parentId: string, total: number, threshold = SPLIT_THRESHOLD): SplitPlan {
  const groups: SplitGroup[] = [];
  const expand = (parent: string, lo: number, hi: number): string[] =>
    subRanges(lo, hi, threshold).map(([a, b]) => {
      const id = splitId(parentId, a, b);
      const group: SplitGroup = { id, parent, lo: a, hi: b, groups: null };
      groups.push(group);
      const inner = subRanges(a, b, threshold);
      if (inner.length > 0) group.groups = expand(id, a, b);
      return id;
    });
  return { top: expand(parentId, 0, total), groups };
}
