import type { Side, WorstResponse } from '../../core/api/types.js';
import { checkFind } from './answers.js';
import { fileOf, getJson, graphQuery, type GraphRef } from './client.js';

/**
 * `GET /api/graph/worst` (issue 14's worst-nodes table), through client.ts's getJson like every graph route: the same
 * error shape, the same wait on 202 while a large `.vis` is indexed, and the comparison overlay (issue 15). The answer
 * goes through checkFind (answers.ts) like search results.
 */
export type WorstOrder = WorstResponse['order'];

export interface WorstPageQuery {
  side: Side;
  order: WorstOrder;
  offset: number;
  limit: number;
}

export function fetchWorst(ref: GraphRef, q: WorstPageQuery, signal?: AbortSignal): Promise<WorstResponse> {
  const query = { ...graphQuery(ref), side: q.side, order: q.order, offset: q.offset, limit: q.limit };
  return getJson('graph/worst', query, (body) => checkWorst(body, fileOf(ref), q), signal);
}

function checkWorst(body: unknown, file: string, q: WorstPageQuery): WorstResponse {
  const found = checkFind(body, file);
  const b = body as Partial<WorstResponse>;
  return {
    ...found,
    offset: typeof b.offset === 'number' ? b.offset : q.offset,
    order: b.order === 'execution' ? 'execution' : 'precision',
    worst: b.worst === 'low' ? 'low' : 'high',
  };
}
