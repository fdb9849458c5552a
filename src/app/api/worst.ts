import type { ApiError, IndexingResponse, Side, WorstResponse } from '../../core/api/types.js';
import { checkFind } from './answers.js';
import { translate } from '../i18n/i18n.js';
import { useAppStore } from '../state/appStore.js';
import { ApiRequestError, INDEXING_POLL_MS, type GraphRef } from './client.js';

/**
 * `GET /api/graph/worst` (issue 14's worst-nodes table). client.ts does not export its fetch helper, so this is a
 * small one with the same error shape (ApiRequestError carrying the server's `{error}` text) and the same wait on
 * 202 while a large `.vis` is indexed. The answer goes through checkFind (answers.ts) like search results.
 */
export type WorstOrder = WorstResponse['order'];

export interface WorstPageQuery {
  side: Side;
  order: WorstOrder;
  offset: number;
  limit: number;
}

export function worstUrl(ref: GraphRef, q: WorstPageQuery): string {
  const params = new URLSearchParams();
  const all: Record<string, string | number | null | undefined> = {
    run: ref.run,
    tag: ref.tag,
    format: (ref as { format?: string | null }).format,
    step: ref.step,
    rank: ref.rank,
    side: q.side,
    order: q.order,
    offset: q.offset,
    limit: q.limit,
  };
  for (const [key, value] of Object.entries(all)) if (value !== undefined && value !== null) params.set(key, String(value));
  return `api/graph/worst?${params}`;
}

export async function fetchWorst(ref: GraphRef, q: WorstPageQuery, signal?: AbortSignal): Promise<WorstResponse> {
  const file = ref.run === '.' ? ref.tag : `${ref.run}/${ref.tag}`;
  for (;;) {
    let response: Response;
    // The server's error text and these details follow the UI language, as client.ts's requests do.
    const lang = useAppStore.getState().lang;
    try {
      response = await fetch(worstUrl(ref, q), { signal, headers: { Accept: 'application/json', 'Accept-Language': lang } });
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiRequestError(0, translate(lang, 'error.unreachable', { message: (err as Error).message }), true);
    }
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      const snippet = text.slice(0, 120).replace(/\s+/g, ' ');
      throw new ApiRequestError(response.ok ? 0 : response.status, translate(lang, 'error.notJson', { route: 'graph/worst', status: response.status, snippet }));
    }
    if (!response.ok) {
      const message = typeof (body as ApiError)?.error === 'string' ? (body as ApiError).error : response.statusText;
      throw new ApiRequestError(response.status, message);
    }
    if (response.status === 202 && typeof (body as IndexingResponse)?.indexing === 'object') {
      await new Promise((resolve) => setTimeout(resolve, INDEXING_POLL_MS));
      if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
      continue;
    }
    const found = checkFind(body, file);
    const b = body as Partial<WorstResponse>;
    return {
      ...found,
      offset: typeof b.offset === 'number' ? b.offset : q.offset,
      order: b.order === 'execution' ? 'execution' : 'precision',
      worst: b.worst === 'low' ? 'low' : 'high',
    };
  }
}
