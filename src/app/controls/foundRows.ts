import type { FoundNode } from '../../core/api/types.js';

/**
 * Pure helpers for search / filter result lists (issue 14 item 1): ordering by severity, the middle-ellipsis split of
 * long names and the "modules match" hint of the leaf-only precision filter.
 */
export type FoundOrder = 'exec' | 'severity';

/**
 * `exec` = the server's order (execution / pre-order). `severity` = precision index descending (worst first for
 * summary and real-tensor files), nodes without a value last; ties keep execution order. For md5 files 0 is the
 * worst value, so `lowerIsWorse` flips the direction.
 */
export function sortFound(results: readonly FoundNode[], order: FoundOrder, lowerIsWorse = false): FoundNode[] {
  if (order === 'exec') return results.slice();
  const indexed = results.map((node, i) => ({ node, i }));
  indexed.sort((a, b) => {
    const va = a.node.precisionIndex;
    const vb = b.node.precisionIndex;
    if (va === null || vb === null) return va === vb ? a.i - b.i : va === null ? 1 : -1;
    if (va !== vb) return lowerIsWorse ? va - vb : vb - va;
    return a.i - b.i;
  });
  return indexed.map((x) => x.node);
}

/**
 * A long name as head + tail so CSS can cut the head with an ellipsis while the tail (the distinctive end:
 * `…layers.3.mlp.Linear.forward.0`) stays readable. The two parts concatenate to the name.
 */
export function middleSplit(name: string, tail = 20): { head: string; tail: string } {
  if (name.length <= tail + 8) return { head: name, tail: '' };
  return { head: name.slice(0, name.length - tail), tail: name.slice(name.length - tail) };
}

/**
 * How many non-leaf nodes match the precision filter that "Leaf nodes only" hides: the count without `leaves=1` minus
 * the count with it. null when the leaf filter is off, the counts are unknown, or nothing is hidden.
 */
export function hiddenModules(leavesOnly: boolean, leafTotal: number | null, allTotal: number | null): number | null {
  if (!leavesOnly || leafTotal === null || allTotal === null) return null;
  const hidden = allTotal - leafTotal;
  return hidden > 0 ? hidden : null;
}

/**
 * Previous / next through `length` results (buttons, Enter / Shift+Enter), wrapping at both ends; from "none yet"
 * (-1) next is the first and previous the last.
 */
export function stepIndex(at: number, delta: 1 | -1, length: number): number {
  if (length === 0) return -1;
  if (at < 0) return delta > 0 ? 0 : length - 1;
  return (at + delta + length) % length;
}
