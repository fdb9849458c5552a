import type { ApiError, ChildrenResponse, GraphMeta, NodeDetail, RunsResponse, Side } from '../../core/api/types.js';

/**
 * Typed fetch wrappers for the HTTP contract in src/core/api/types.ts. Every failure becomes an `ApiRequestError`
 * carrying the server's own `{error}` text (or the network problem), which the shell shows in its banner.
 * Relative URLs keep the app working behind SSH tunnels and reverse proxies that mount it under a sub-path.
 */
export class ApiRequestError extends Error {
  constructor(
    /** HTTP status, or 0 when the server could not be reached or answered something that is not JSON. */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

type Query = Record<string, string | number | undefined>;

function urlFor(route: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const qs = params.toString();
  return `api/${route}${qs ? `?${qs}` : ''}`;
}

let acceptLanguage = 'en';
/** Server error messages follow the UI language when the server translates them. */
export function setRequestLanguage(lang: string): void {
  acceptLanguage = lang;
}

async function getJson<T>(route: string, query: Query, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(urlFor(route, query), { signal, headers: { Accept: 'application/json', 'Accept-Language': acceptLanguage } });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiRequestError(0, (err as Error).message);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const snippet = text.slice(0, 120).replace(/\s+/g, ' ');
    throw new ApiRequestError(response.ok ? 0 : response.status, `${route}: not JSON (${response.status} ${snippet})`);
  }
  if (!response.ok) {
    const message = typeof (body as ApiError)?.error === 'string' ? (body as ApiError).error : response.statusText;
    throw new ApiRequestError(response.status, message);
  }
  return body as T;
}

export const client = {
  runs: (signal?: AbortSignal) => getJson<RunsResponse>('runs', {}, signal),
  meta: (run: string, tag: string, signal?: AbortSignal) => getJson<GraphMeta>('graph/meta', { run, tag }, signal),
  /** `nodeId` undefined = the root; `micro` -1 = every micro step. */
  children: (run: string, tag: string, side: Side, nodeId: string | undefined, micro: number, signal?: AbortSignal) =>
    getJson<ChildrenResponse>('graph/children', { run, tag, side, node: nodeId, micro }, signal),
  node: (run: string, tag: string, side: Side, nodeId: string, signal?: AbortSignal) =>
    getJson<NodeDetail>('graph/node', { run, tag, side, node: nodeId }, signal),
};
