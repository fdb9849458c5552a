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
  worstPrecisionIndex: number | null;
  warnings: string[];
}

export function unitLabel(unit: DumpUnit): string {
  return [unit.stepDir, unit.rankDir].filter(Boolean).join('/') || 'graph';
}

/** Adds one exported graph (pair) to the run summary. */
export function countGraph(summary: GraphRunSummary, npu: Graph, bench: Graph | null): void {
  summary.graphs++;
  for (const node of npu.nodeMap.values()) {
    summary.nodes++;
    if (!bench) continue;
    if (node.matchedNodeLink.length) summary.matched++;
    else summary.unmatched++;
    const index = node.data.precisionIndex;
    if (index !== undefined && !Number.isNaN(index) && (summary.worstPrecisionIndex === null || index > summary.worstPrecisionIndex)) {
      summary.worstPrecisionIndex = index;
    }
  }
}

