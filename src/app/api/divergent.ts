import type { ColorBucket, DivergentResponse, DivergentSkip } from '../../core/api/types.js';
import { BadAnswerError, checkFind } from './answers.js';
import { fileOf, getJson, graphQuery, type GraphRef } from './client.js';
import { isObj } from './checkValue.js';

/**
 * `GET /api/graph/divergent` (issue 14's first divergent node). The node goes through checkFind like a search
 * result; the rest is checked here: a damaged or hostile file must not leave the viewer with a half answer.
 */
export function fetchDivergent(ref: GraphRef, signal?: AbortSignal): Promise<DivergentResponse> {
  return getJson('graph/divergent', graphQuery(ref), (body) => checkDivergent(body, fileOf(ref)), signal);
}

const count = (v: unknown) => (Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : 0);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function checkDivergent(body: unknown, file: string): DivergentResponse {
  if (!isObj(body)) throw new BadAnswerError(file, 'first divergent answer is not an object');
  const raw = isObj(body.node) ? body.node : null;
  const found = raw ? checkFind({ results: [raw] }, file).results[0] : undefined;
  if (raw && !found) throw new BadAnswerError(file, 'first divergent node without an id');
  const bucket = isObj(body.bucket) && typeof body.bucket.color === 'string' ? (body.bucket as unknown as ColorBucket) : null;
  const skipped: DivergentSkip[] = (Array.isArray(body.skipped) ? body.skipped : []).filter(isObj).map((s) => ({
    id: text(s.id),
    path: Array.isArray(s.path) ? s.path.filter((p): p is string => typeof p === 'string') : [],
    precisionIndex: typeof s.precisionIndex === 'number' ? s.precisionIndex : NaN,
    rule: text(s.rule),
  }));
  const cells = raw && Array.isArray(raw.cells) ? raw.cells.filter(isObj) : [];
  return {
    worst: body.worst === 'low' ? 'low' : 'high',
    bucket,
    node:
      raw && found
        ? {
            ...found,
            rule: text(raw.rule),
            cells: cells.map((c) => ({ kind: c.kind === 'input' ? 'input' : 'output', key: text(c.key), column: text(c.column) })),
            inputValue: typeof raw.inputValue === 'number' ? raw.inputValue : NaN,
            inputsDiffer: raw.inputsDiffer === true,
          }
        : null,
    examined: count(body.examined),
    inherited: count(body.inherited),
    skipped: skipped.filter((s) => s.id !== ''),
    skippedTotal: Math.max(count(body.skippedTotal), skipped.length),
  };
}
