import type { DivergentResponse, NodeDetail } from '../../src/core/api/types.js';
import { bucketColor } from '../../src/core/colors/buckets.js';
import { divergentBuckets, judgeCandidate, needsCounterpart, type CandidateVerdict } from '../../src/core/compare/divergence.js';
import type { GraphSelector } from './findQuery.js';
import type { GraphStore } from './graphStore.js';
import { checkBudget } from './workBudget.js';
import { worstEnd } from './worstQuery.js';

/**
 * `/api/graph/divergent` (issue 14's first divergent node), the same walk for every store: the NPU side's rated nodes
 * in execution order (GraphStore.rated, the worst table's list), the worst bucket present first; each candidate's
 * record is read and judged by src/core/compare/divergence.ts, its Bench counterpart's only when NaN/±inf statistics
 * could be identical on both sides. Runs in the find worker under the request's work budget.
 */

export type DivergentQuery = GraphSelector;

/** Nodes passed over for identical statistics listed in the answer; the rest are only counted. */
const MAX_SKIPPED_LISTED = 20;

export function firstDivergent(store: GraphStore, q: DivergentQuery): DivergentResponse {
  const meta = store.meta(q);
  const worst = worstEnd(meta.task);
  const answer: DivergentResponse = { worst, bucket: null, node: null, examined: 0, inherited: 0, skipped: [], skippedTotal: 0 };
  if (meta.graphType !== 'compare') return answer;
  const graph = { step: q.step, rank: q.rank };
  const rated = store.rated({ side: 'npu', ...graph });
  for (const bucket of divergentBuckets(meta.colors, worst)) {
    const inBucket = (v: number) => bucketColor(meta.colors, v) === bucket.color;
    let firstInherited: { detail: NodeDetail; verdict: CandidateVerdict } | null = null;
    for (let k = 0; k < rated.values.length; k++) {
      checkBudget();
      if (!inBucket(rated.values[k])) continue;
      const detail = store.node({ side: 'npu', nodeId: rated.idAt(k), ...graph });
      if (!detail) continue;
      answer.examined++;
      const benchId = detail.matchedNodeLink[detail.matchedNodeLink.length - 1];
      const bench = benchId !== undefined && needsCounterpart(detail) ? (store.node({ side: 'bench', nodeId: benchId, ...graph }) ?? null) : null;
      const verdict = judgeCandidate(detail, bench, meta.task, inBucket);
      if (verdict.verdict === 'identical') {
        if (answer.skipped.length < MAX_SKIPPED_LISTED) answer.skipped.push({ id: detail.id, path: detail.path, precisionIndex: rated.values[k], rule: verdict.driver.rule });
        answer.skippedTotal++;
      } else if (verdict.verdict === 'inherited') {
        answer.inherited++;
        firstInherited ??= { detail, verdict };
      } else if (verdict.verdict === 'source') {
        answer.bucket = bucket;
        answer.node = nodeOf(detail, verdict, false);
        return answer;
      }
    }
    // Every node of the bucket takes a difference in: it is already in the graph's inputs, and enters at the first.
    if (firstInherited) {
      answer.bucket = bucket;
      answer.node = nodeOf(firstInherited.detail, firstInherited.verdict, true);
      return answer;
    }
  }
  return answer;
}

function nodeOf(d: NodeDetail, v: CandidateVerdict, inputsDiffer: boolean): DivergentResponse['node'] {
  const { id, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId, path } = d;
  return {
    id,
    nodeType,
    precisionIndex,
    overflowLevel,
    matchedNodeLink,
    childCount,
    microStepId,
    path,
    rule: v.driver.rule,
    cells: v.driver.cells,
    inputValue: v.inputValue,
    inputsDiffer,
  };
}
