import type { ApiError, ChildrenResponse, GraphFileFormat, GraphMeta, IndexingResponse, Side } from '../../core/api/types.js';
import { translate } from '../i18n/i18n.js';
import type { Lang } from '../state/appStore.js';
import { checkChildren, checkFind, checkMeta, checkNode, checkRuns } from './answers.js';

/**
 * Typed fetch wrappers for the HTTP contract in src/core/api/types.ts. Every failure becomes an `ApiRequestError`
 * carrying the server's own `{error}` text (or the network problem), which the shell shows in its banner.
 * Relative URLs keep the app working behind SSH tunnels and reverse proxies that mount it under a sub-path.
 *
 * A graph route answers 202 while a large `.vis` is indexed for the first time: the request is repeated every
 * INDEXING_POLL_MS until the answer is ready, and the progress is reported to the indexing listener meanwhile.
 * Every 200 answer goes through its checker (answers.ts) before the app sees it.
 */
export class ApiRequestError extends Error {
  constructor(
    /** HTTP status, or 0 when the server could not be reached or answered something that is not JSON. */
    readonly status: number,
    message: string,
    /** The request never reached the server (connection refused, network down): not an answer of the server. */
    readonly unreachable = false,
    /** The answer's machine-readable `code`, when it has one (`overlayUnknown`). */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

/** One graph inside a file: `.vis.db` files hold one per step and rank (null = the server's default, the first). */
export interface GraphRef {
  run: string;
  tag: string;
  /** `vis` | `db` when a `.vis` and a `.vis.db` share the name; null = the server's choice. */
  format?: GraphFileFormat | null;
  step?: number | null;
  rank?: number | null;
}

/** `total` comes with `offset`/`limit` (issue 4); a server that does not page sends every child and no total. */
export type ChildrenPageResponse = ChildrenResponse & { total?: number };

export type IndexingProgress = IndexingResponse['indexing'];

export const INDEXING_POLL_MS = 300;

export type Query = Record<string, string | number | null | undefined>;

function urlFor(route: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(key, String(value));
  const qs = params.toString();
  return `api/${route}${qs ? `?${qs}` : ''}`;
}

let acceptLanguage = 'en';
/** Server error messages follow the UI language when the server translates them. */
export function setRequestLanguage(lang: string): void {
  acceptLanguage = lang;
}

// Requests waiting for an index, by request: the listener sees the latest progress, or null when none waits.
const waiting = new Map<number, IndexingProgress>();
let waitSeq = 0;
let indexingListener: ((progress: IndexingProgress | null) => void) | null = null;

export function setIndexingListener(listener: ((progress: IndexingProgress | null) => void) | null): void {
  indexingListener = listener;
}

function reportIndexing(): void {
  const all = [...waiting.values()];
  indexingListener?.(all.length > 0 ? all[all.length - 1] : null);
}

function isIndexing(body: unknown): body is IndexingResponse {
  const progress = (body as IndexingResponse | null)?.indexing;
  return typeof progress === 'object' && progress !== null && typeof progress.percent === 'number';
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new DOMException('aborted', 'AbortError'));
      },
      { once: true },
    );
  });
}

async function fetchJson(route: string, query: Query, signal?: AbortSignal, post?: unknown): Promise<{ status: number; body: unknown }> {
  let response: Response;
  const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Language': acceptLanguage };
  const init: RequestInit = post === undefined ? { signal, headers } : { signal, method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(post) };
  try {
    response = await fetch(urlFor(route, query), init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    // Said in words everywhere it surfaces (banner, panes, info panel), never as a bare "Failed to fetch".
    const lang: Lang = acceptLanguage === 'zh-CN' ? 'zh-CN' : 'en';
    throw new ApiRequestError(0, translate(lang, 'error.unreachable', { message: (err as Error).message }), true);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const snippet = text.slice(0, 120).replace(/\s+/g, ' ');
    const lang: Lang = acceptLanguage === 'zh-CN' ? 'zh-CN' : 'en';
    throw new ApiRequestError(response.ok ? 0 : response.status, translate(lang, 'error.notJson', { route, status: response.status, snippet }));
  }
  if (!response.ok) {
    const message = typeof (body as ApiError)?.error === 'string' ? (body as ApiError).error : response.statusText;
    const code = (body as { code?: unknown })?.code;
    throw new ApiRequestError(response.status, message, false, typeof code === 'string' ? code : undefined);
  }
  return { status: response.status, body };
}

/**
 * The comparison overlay (issue 15, src/core/api/overlay.ts) a request of these routes is answered under: `id` gives
 * the registered overlay of the graph the query names (null = none), `forget` drops an id the server answered 409
 * `overlayUnknown` for, so that the next `id` registers the overlay again. Set by state/overlayActions.ts.
 */
export interface OverlayProvider {
  routes: ReadonlySet<string>;
  id(query: Query): Promise<string | null>;
  forget(id: string): void;
}
let overlayProvider: OverlayProvider | null = null;
export function setOverlayProvider(provider: OverlayProvider | null): void {
  overlayProvider = provider;
}

/** Adds the graph's overlay id to the query; a 409 `overlayUnknown` registers it again and repeats the request once. */
async function withOverlay<T>(route: string, query: Query, send: (query: Query) => Promise<T>): Promise<T> {
  const provider = overlayProvider;
  if (!provider?.routes.has(route)) return send(query);
  for (let attempt = 0; ; attempt++) {
    const id = await provider.id(query);
    try {
      return await send(id === null ? query : { ...query, overlay: id });
    } catch (err) {
      if (id === null || attempt > 0 || !(err instanceof ApiRequestError && err.status === 409 && err.code === 'overlayUnknown')) throw err;
      provider.forget(id);
    }
  }
}

/** One checked answer of a route, waiting out 202 (indexing) answers; other api/*.ts modules use it too. */
export function getJson<T>(route: string, query: Query, check: (body: unknown) => T, signal?: AbortSignal): Promise<T> {
  return withOverlay(route, query, (q) => answerOf(route, q, check, signal));
}

/** A checked answer of a POST route (issue 15's overlay routes), its body sent as JSON. */
export function postJson<T>(route: string, query: Query, body: unknown, check: (body: unknown) => T, signal?: AbortSignal): Promise<T> {
  return withOverlay(route, query, (q) => answerOf(route, q, check, signal, body));
}

async function answerOf<T>(route: string, query: Query, check: (body: unknown) => T, signal?: AbortSignal, post?: unknown): Promise<T> {
  let waitId: number | null = null;
  try {
    for (;;) {
      const { status, body } = await fetchJson(route, query, signal, post);
      if (status !== 202 || !isIndexing(body)) return check(body);
      waitId ??= ++waitSeq;
      waiting.set(waitId, body.indexing);
      reportIndexing();
      await delay(INDEXING_POLL_MS, signal);
    }
  } finally {
    if (waitId !== null) {
      waiting.delete(waitId);
      reportIndexing();
    }
  }
}

export const graphQuery = (ref: GraphRef): Query => ({ run: ref.run, tag: ref.tag, format: ref.format, step: ref.step, rank: ref.rank });
/** How error banners name the file: its path in the log dir without the extension. */
export const fileOf = (ref: GraphRef): string => (ref.run === '.' ? ref.tag : `${ref.run}/${ref.tag}`);

export interface ChildrenOptions {
  /** -1 = every micro step. */
  micro?: number;
  offset?: number;
  limit?: number;
  /** 1 = an msprobe group's inferred dataflow edges too (issue 16, commands/dataflow.ts). */
  dataflow?: 1;
}

export interface FilterQuery {
  side: Side;
  /** Precision buckets `[lo, hi]` (lo <= v < hi; hi == 1 closed; [x, x] exact). */
  precision?: ReadonlyArray<readonly [number, number]>;
  unmatched?: boolean;
  overflow?: readonly string[];
  /** Only nodes without children (the reference viewer lists leaves only). */
  leaves?: boolean;
  limit?: number;
}

/**
 * A `.vis.db` step × rank pair that its lists name but that holds no node answers a meta without roots and with
 * zero node counts: checked like any meta, then given back without roots so that the viewer says "no graph for
 * step S, rank R" (issue 14 item 5) instead of rejecting the answer.
 */
function checkMetaOrEmpty(body: unknown, file: string): GraphMeta {
  const m = body as { roots?: unknown; nodeCounts?: unknown } | null;
  const noRoots = typeof m?.roots === 'object' && m.roots !== null && Object.keys(m.roots).length === 0;
  const counts = typeof m?.nodeCounts === 'object' && m.nodeCounts !== null ? Object.values(m.nodeCounts) : [];
  if (!noRoots || !counts.every((c) => c === 0)) return checkMeta(body, file);
  const checked = checkMeta({ ...(body as object), roots: { npu: '(none)' } }, file);
  return { ...checked, roots: {} };
}

export const client = {
  runs: (signal?: AbortSignal) => getJson('runs', {}, checkRuns, signal),
  meta: (ref: GraphRef, signal?: AbortSignal) => getJson('graph/meta', graphQuery(ref), (b) => checkMetaOrEmpty(b, fileOf(ref)), signal),
  /** `nodeId` undefined = the root. */
  children: (ref: GraphRef, side: Side, nodeId: string | undefined, options: ChildrenOptions = {}, signal?: AbortSignal) =>
    getJson<ChildrenPageResponse>(
      'graph/children',
      { ...graphQuery(ref), side, node: nodeId, micro: options.micro, offset: options.offset, limit: options.limit, dataflow: options.dataflow },
      (b) => checkChildren(b, fileOf(ref)),
      signal,
    ),
  node: (ref: GraphRef, side: Side, nodeId: string, signal?: AbortSignal) =>
    getJson('graph/node', { ...graphQuery(ref), side, node: nodeId }, (b) => checkNode(b, fileOf(ref)), signal),
  search: (ref: GraphRef, side: Side, q: string, limit?: number, signal?: AbortSignal) =>
    getJson('graph/search', { ...graphQuery(ref), side, q, limit }, (b) => checkFind(b, fileOf(ref)), signal),
  filter: (ref: GraphRef, query: FilterQuery, signal?: AbortSignal) =>
    getJson(
      'graph/filter',
      {
        ...graphQuery(ref),
        side: query.side,
        precision: query.precision?.length ? query.precision.map(([lo, hi]) => `${lo}-${hi}`).join(',') : undefined,
        unmatched: query.unmatched ? 1 : undefined,
        overflow: query.overflow?.length ? query.overflow.join(',') : undefined,
        leaves: query.leaves ? 1 : undefined,
        limit: query.limit,
      },
      (b) => checkFind(b, fileOf(ref)),
      signal,
    ),
};
