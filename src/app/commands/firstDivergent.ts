import type { DivergentResponse, FoundNode } from '../../core/api/types.js';
import type { MessageKey } from '../i18n/i18n.js';
import { formatPrecision, middleEllipsis } from './worstNodes.js';

/**
 * Pure helpers of the first-divergent button (WorstNodesPanel): what the answer says, and which node to locate.
 * The walk itself runs on the server (server/store/divergentQuery.ts, rule in src/core/compare/divergence.ts).
 */

export interface DivergentSummary {
  /** The status line. */
  line: { key: MessageKey; vars: Record<string, string | number> };
  /** Its tooltip: the bucket walked and what was passed over. */
  detail: { key: MessageKey; vars: Record<string, string | number> } | null;
  /** The node to locate on both sides (NPU side; the counterpart follows its matched link), or null. */
  target: FoundNode | null;
}

/** Passed-over nodes named in the tooltip; the rest are counted. */
const NAMED_SKIPS = 5;

export function summarizeDivergent(answer: DivergentResponse): DivergentSummary {
  const node = answer.node;
  if (!node) return { line: { key: 'divergent.none', vars: {} }, detail: null, target: null };
  const value = formatPrecision(node.precisionIndex);
  const id = middleEllipsis(node.id, 40);
  const line: DivergentSummary['line'] = node.inputsDiffer
    ? { key: 'divergent.inputsDiffer', vars: { id, value } }
    : { key: 'divergent.found', vars: { id, value, input: formatPrecision(node.inputValue) } };
  const range = Array.isArray(answer.bucket?.value) ? `[${answer.bucket.value.join(', ')}]` : '';
  const named = answer.skipped.slice(0, NAMED_SKIPS).map((s) => s.id);
  const list = named.length > 0 ? `: ${named.join(', ')}${answer.skippedTotal > named.length ? ', …' : ''}` : '';
  return {
    line,
    detail: {
      key: 'divergent.detail',
      vars: { bucket: range, examined: answer.examined, inherited: answer.inherited, skipped: answer.skippedTotal, list },
    },
    target: node,
  };
}
