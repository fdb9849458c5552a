import { overflowLevelOf, type OverflowLevel } from '../../src/core/compare/overflow.js';
import { toPy, type DumpValue } from '../../src/core/formats/pyJsonNative.js';
import type { Graph } from '../../src/core/model/graph.js';

/**
 * `-oc` (msprobe-format.md §2.11) in two halves: levels are read from the dump entries, and set on the graph's
 * nodes once it is built (only entries that became nodes).
 */
export function dumpOverflowLevels(data: ReadonlyMap<string, DumpValue>): Map<string, OverflowLevel> {
  const levels = new Map<string, OverflowLevel>();
  for (const [name, entry] of data) {
    const level = overflowLevelOf(name, toPy(entry));
    if (level) levels.set(name, level);
  }
  return levels;
}

export function applyOverflowLevels(graph: Graph, levels: ReadonlyMap<string, OverflowLevel>): void {
  for (const [name, level] of levels) {
    const node = graph.nodeMap.get(name);
    if (node) node.data.overflowLevel = level;
  }
}
