import type { Graph } from '../../src/core/model/graph.js';
import type { DumpUnit } from './dumpLayout.js';

/** What `probeboard graph` reports in its one-line summary. */
export interface GraphRunSummary {
  kind: 'build' | 'compare';
  files: string[];
  graphs: number;
  /** NPU-side nodes over all graphs. */
  nodes: number;
  /** NPU nodes with / without a Bench counterpart (compare runs). */
  matched: number;
  unmatched: number;
  /** The dump task of the compared graphs (`summary`, `md5`, `all`, `structure`; '' for builds). */
  task: string;
  /** The worst matched NPU node's index and id: the highest for summary/all, the lowest (0 = differs) for md5. */
  worstPrecisionIndex: number | null;
  worstNode: string | null;
  /** Matched NPU nodes with a precision index, and those of them that are not 0 (md5: not 1), i.e. differ. */
  indexed: number;
  differing: number;
  warnings: string[];
}

export function unitLabel(unit: DumpUnit): string {
  return [unit.stepDir, unit.rankDir].filter(Boolean).join('/') || 'graph';
}

/** Adds one exported graph (pair) to the run summary; `task` is the pair's dump task (msprobe-format.md §3.8). */
export function countGraph(summary: GraphRunSummary, npu: Graph, bench: Graph | null, task: string): void {
  summary.graphs++;
  if (bench && task) summary.task = task;
  // md5's index is 1 for identical and 0 for different; the others' 0 is identical and 1 the worst.
  const md5 = task === 'md5';
  const good = md5 ? 1 : 0;
  for (const node of npu.nodeMap.values()) {
    summary.nodes++;
    if (!bench) continue;
    if (node.matchedNodeLink.length) summary.matched++;
    else summary.unmatched++;
    const index = node.data.precisionIndex;
    if (index === undefined || Number.isNaN(index) || !node.matchedNodeLink.length) continue;
    summary.indexed++;
    if (index !== good) summary.differing++;
    const worst = summary.worstPrecisionIndex;
    if (worst === null || (md5 ? index < worst : index > worst)) {
      summary.worstPrecisionIndex = index;
      summary.worstNode = node.id;
    }
  }
}

