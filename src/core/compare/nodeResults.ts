import type { GraphNode } from '../model/graph.js';
import { pyFloatRepr } from './pyNumber.js';

/**
 * Compare results that the shared `GraphNode.data` cannot express yet:
 * - `precision_index` keeps Python's int vs float (`0`/`1` vs `1.0`/`0.0`): JSON writes `1` vs `1.0`, SQLite stores
 *   INTEGER vs REAL, and `matched_distributed` embeds `str(index)`. `node.data.precisionIndex` holds the number;
 *   this module remembers which nodes hold a Python int.
 * - md5 mode's `data.Result` (`"pass"`/`"Different"`, written by the JSON eras only).
 * Writers call `precisionIndexRepr` / `md5Result`. (Candidate for a field on the model later.)
 */

const pythonIntIndex = new WeakSet<GraphNode>();
const md5Results = new WeakMap<GraphNode, 'pass' | 'Different'>();

/** Python value → node: bigint = Python int, number = Python float. */
export function setPrecisionIndex(node: GraphNode, value: number | bigint): void {
  node.data.precisionIndex = Number(value);
  if (typeof value === 'bigint') pythonIntIndex.add(node);
  else pythonIntIndex.delete(node);
}

/** The index as the Python value msprobe holds (bigint = int), or undefined when the node has none. */
export function getPrecisionIndex(node: GraphNode): number | bigint | undefined {
  const v = node.data.precisionIndex;
  if (v === undefined) return undefined;
  return pythonIntIndex.has(node) && Number.isInteger(v) ? BigInt(v) : v;
}

/** Python `str(precision_index)`: `"0"`, `"1"`, `"1.0"`, `"0.2307692307692308"`, `"nan"`. */
export function precisionIndexRepr(node: GraphNode): string | undefined {
  const v = getPrecisionIndex(node);
  if (v === undefined) return undefined;
  return typeof v === 'bigint' ? v.toString() : pyFloatRepr(v);
}

/** True when the index is a Python int (SQLite INTEGER, JSON `1`); false for a float (REAL, JSON `1.0`). */
export function precisionIndexIsInt(node: GraphNode): boolean {
  return typeof getPrecisionIndex(node) === 'bigint';
}

export function setMd5Result(node: GraphNode, result: 'pass' | 'Different'): void {
  md5Results.set(node, result);
}

/** md5 mode: msprobe's `data.Result` of a matched NPU node (JSON eras only). */
export function md5Result(node: GraphNode): 'pass' | 'Different' | undefined {
  return md5Results.get(node);
}
