import { Router, type Request, type Response } from 'express';
import { HEATMAP_DEFAULT_RANK_LIMIT, HEATMAP_MAX_RANK_LIMIT, type ChildrenResponse, type IndexingResponse, type Side } from '../../../src/core/api/types.js';
import { rankFiles } from '../../logdir/rankFiles.js';
import { resolveGraphFile } from '../../logdir/resolveGraphFile.js';
import type { FindRequest } from '../../store/findPool.js';
import { HEATMAP_SOFT_MS, type HeatmapQuery } from '../../store/heatmapQuery.js';
import { BadSearchError, DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT, parseSearch, type FilterQuery, type GraphSelector } from '../../store/findQuery.js';
import { dataflowEdges } from '../../store/dataflowQuery.js';
import { runStatsOf } from '../../store/tbGraph/runStats.js';
import { GraphFileError, StaleFileError, UnknownGraphError, type ChildrenQuery, type GraphStore } from '../../store/graphStore.js';
import { WorkBudgetExceeded, WorkInProgress, withWorkBudget } from '../../store/workBudget.js';
import type { GraphFileRef, GraphFormat } from '../../store/openStore.js';
import { runFind } from '../../store/findPool.js';
import { isTbFormat } from '../../store/tbGraph/tbFiles.js';
import { TbGraphStore } from '../../store/tbGraph/tbStore.js';
import { DEFAULT_WORST_LIMIT, MAX_WORST_LIMIT, WORST_ORDERS, type WorstOrder, type WorstQuery } from '../../store/worstQuery.js';
import type { AppContext } from '../appContext.js';
import { HttpError } from '../httpError.js';
import { OverlayStore } from '../../overlay/overlayStore.js';
import { withOverlay } from '../../overlay/overlayParam.js';

/**
 * `/api/graph/{meta,children,node,search,filter}`: one file per request, named by `run` + `tag` (+ optional
 * `format=vis|db|tfevents|graphdef|onnx`), one graph of it by `step` + `rank` (`.vis.db`). While a large `.vis` is first indexed every route
 * answers 202 with the progress (IndexingResponse) and the client asks again.
 */
export function graphRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/api/graph/meta', (req, res) => {
    return withAnyGraph(ctx, req, res, ({ store, graph, stamp }) => {
      res.json({ ...store.meta(graph), stamp });
    });
  });

  router.get('/api/graph/children', (req, res) => {
    return withAnyGraph(ctx, req, res, ({ store, ref, graph }) => {
      const side = sideParam(req, store, ref);
      // `node=` (empty) means the root, like omitting it.
      const nodeId = optionalString(req, 'node') || undefined;
      const q = {
        side,
        nodeId,
        micro: intParam(req, 'micro', -1),
        offset: intParam(req, 'offset', 0),
        limit: intParam(req, 'limit', 0),
        ...graph,
      };
      // Issue 16's inferred dataflow, msprobe files only (a TensorBoard graph's children carry their real edges).
      const dataflow = flagParam(req, 'dataflow') && (ref.format === 'vis' || ref.format === 'db');
      const key = JSON.stringify(dataflow ? { ...q, dataflow } : q);
      let text = ctx.answers.get(store, key);
      if (text === undefined) {
        const children = store.children(q);
        if (!children) throw unknownNode(ref, side, nodeId ?? '');
        text = JSON.stringify(dataflow ? { ...children, ...cachedDataflow(ctx, store, q, children.total ?? children.children.length) } : children);
        ctx.answers.set(store, key, text);
      }
      res.type('json').send(text);
    });
  });

  router.get('/api/graph/node', (req, res) => {
    return withAnyGraph(ctx, req, res, async ({ store, ref, graph }) => {
      const side = sideParam(req, store, ref);
      const nodeId = requiredString(req, 'node');
      const node = store.node({ side, nodeId, ...graph });
      if (!node) throw unknownNode(ref, side, nodeId);
      // An event file's op: the step stats its tagged_run_metadata records hold for it (by node name).
      if (ref.format === 'tfevents' && node.tb?.kind === 'op') {
        const runStats = await runStatsOf(ref.absPath, node.id, ctx.stores.tb);
        if (runStats.length > 0) node.tb = { ...node.tb, runStats };
      }
      res.json(node);
    });
  });

  router.get('/api/graph/search', (req, res) =>
    withAnyGraph(ctx, req, res, ({ store, ref, graph }) => {
      const side = sideParam(req, store, ref);
      const query = requiredString(req, 'q');
      checkSearch(query);
      return sendFound(ctx, res, ref, store, { kind: 'search', query: { side, query, limit: limitParam(req), ...graph } });
    }),
  );

  router.get('/api/graph/filter', (req, res) =>
    withAnyGraph(ctx, req, res, ({ store, ref, graph }) => {
      const side = sideParam(req, store, ref);
      const q: FilterQuery = {
        side,
        precision: precisionParam(req),
        unmatched: flagParam(req, 'unmatched'),
        overflow: listParam(req, 'overflow'),
        leaves: flagParam(req, 'leaves'),
        limit: limitParam(req),
        ...graph,
      };
      return sendFound(ctx, res, ref, store, { kind: 'filter', query: q });
    }),
  );

  // Issue 14's worst-nodes table: one page of the side's nodes with a precision value, in the find worker too.
  router.get('/api/graph/worst', (req, res) =>
    withAnyGraph(ctx, req, res, ({ store, ref, graph }) => {
      const side = sideParam(req, store, ref);
      const order = optionalString(req, 'order') || 'precision';
      if (!WORST_ORDERS.includes(order as WorstOrder)) {
        throw new HttpError(400, 'badParam', { name: 'order', expected: WORST_ORDERS.map((o) => `"${o}"`).join(' | ') });
      }
      const limit = intParam(req, 'limit', 1) ?? DEFAULT_WORST_LIMIT;
      if (limit > MAX_WORST_LIMIT) throw new HttpError(400, 'badParam', { name: 'limit', expected: `at most ${MAX_WORST_LIMIT}` });
      const query: WorstQuery = { side, order: order as WorstOrder, offset: intParam(req, 'offset', 0) ?? 0, limit, ...graph };
      return sendFound(ctx, res, ref, store, { kind: 'worst', query });
    }),
  );

  // Issue 14's first divergent node: a walk over the worst bucket's nodes in execution order (divergentQuery.ts).
  router.get('/api/graph/divergent', (req, res) =>
    withGraph(ctx, req, res, ({ store, ref, graph }) => {
      if (store.meta(graph).graphType !== 'compare') throw new HttpError(400, 'noBenchSide', { file: ref.relPath });
      return sendFound(ctx, res, ref, store, { kind: 'divergent', query: graph });
    }),
  );

  // Issue 14's rank × top-level-module heatmap of the run (heatmapQuery.ts), one window of ranks, in the find worker too.
  router.get('/api/graph/heatmap', (req, res) =>
    withGraph(ctx, req, res, ({ store, ref, graph }) => {
      const rankOffset = intParam(req, 'rankOffset', 0) ?? 0;
      const rankLimit = intParam(req, 'rankLimit', 1) ?? HEATMAP_DEFAULT_RANK_LIMIT;
      if (rankLimit > HEATMAP_MAX_RANK_LIMIT) throw new HttpError(400, 'badParam', { name: 'rankLimit', expected: `at most ${HEATMAP_MAX_RANK_LIMIT}` });
      // A short read per answer: the panel paints what came and asks again for the pending rows (issue 14: first
      // paint ≤ 500 ms at 1,000 ranks).
      const window = { rankOffset, rankLimit, softMs: Math.min(HEATMAP_SOFT_MS, ctx.workBudgetMs / 2) };
      let query: HeatmapQuery;
      if (ref.format === 'vis') {
        const own = rankFiles(ctx.roots, ref);
        query = { step: own.step, files: own.files.slice(rankOffset, rankOffset + rankLimit), totalFiles: own.files.length, ...window };
      } else query = { step: graph.step ?? store.meta().steps[0] ?? 0, ...window };
      return sendFound(ctx, res, ref, store, { kind: 'heatmap', query });
    }),
  );

  return router;
}

/**
 * The inferred edges of one node, kept per file version (the store) and node in the answer cache so that every page
 * of a large group, and every user, reads the children's records once.
 */
function cachedDataflow(ctx: AppContext, store: GraphStore, q: ChildrenQuery, total: number): Pick<ChildrenResponse, 'edges' | 'dataflowSkipped'> {
  const key = JSON.stringify({ dataflow: [q.side, q.nodeId ?? null, q.micro ?? -1, q.step ?? null, q.rank ?? null] });
  const kept = ctx.answers.get(store, key);
  if (kept !== undefined) return JSON.parse(kept) as Pick<ChildrenResponse, 'edges' | 'dataflowSkipped'>;
  const found = dataflowEdges(store, q, total) ?? { edges: [] };
  ctx.answers.set(store, key, JSON.stringify(found));
  return found;
}

/**
 * Searches and filters run in the find worker (findPool.ts) so this loop keeps answering other requests; a client
 * that goes away stops its search there. The answer is the worker's JSON text, byte for byte what `res.json` sends.
 */
async function sendFound(ctx: AppContext, res: Response, ref: GraphFileRef, store: GraphStore, request: FindRequest): Promise<void> {
  // A TensorBoard graph is a walk over its hierarchy held here (the find worker would have to decode the file again).
  if (store instanceof TbGraphStore) {
    res.type('json').send(runFind(store, request, ref, (r) => ctx.stores.open(r)));
    return;
  }
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  try {
    // An overlay patches the file's answer (server/overlay/overlayStore.ts); the file's own comes from the worker.
    const json =
      store instanceof OverlayStore
        ? await store.find(request, (r) => ctx.stores.find(ref, store.base, r, ctx.workBudgetMs, gone.signal))
        : await ctx.stores.find(ref, store, request, ctx.workBudgetMs, gone.signal);
    res.type('json').send(json);
  } finally {
    res.off('close', onClose);
  }
}

/** A graph file of any format as the graph routes open it. */
export interface AnyOpened {
  store: GraphStore;
  ref: GraphFileRef;
  graph: GraphSelector;
  /** The file version the store reads (GraphMeta.stamp). */
  stamp: string;
  /** The graph answered: `graph` with the file's defaults filled in. */
  step: number;
  rank: number;
}

/** An msprobe `.vis` / `.vis.db`: what overlays, heatmaps and divergent nodes work on. */
export interface Opened extends AnyOpened {
  ref: GraphFileRef & { format: 'vis' | 'db' };
}

function isMsprobe(o: AnyOpened): o is Opened {
  return o.ref.format === 'vis' || o.ref.format === 'db';
}

/** How long a request waits for a TensorBoard graph still loading before answering 202 (small files take ms). */
const TB_WAIT_MS = 500;

/** `withAnyGraph` for msprobe files only: a TensorBoard-side graph is answered 400. */
export function withGraph(ctx: AppContext, req: Request, res: Response, answer: (o: Opened) => void | Promise<void>): Promise<void> {
  return withAnyGraph(ctx, req, res, (o) => {
    if (!isMsprobe(o)) throw new HttpError(400, 'badParam', { name: 'tag', expected: 'an msprobe .vis or .vis.db file' });
    return answer(o);
  });
}

/**
 * Opens the file and runs `answer`, or answers 202 while it is being indexed; store errors become 4xx. With
 * `overlay=<id>` the store is the overlay's view of the file (server/overlay), or 409 when the id is not held.
 */
export async function withAnyGraph(ctx: AppContext, req: Request, res: Response, answer: (o: AnyOpened) => void | Promise<void>): Promise<void> {
  const run = requiredString(req, 'run');
  const tag = requiredString(req, 'tag');
  const format = formatParam(req);
  const graph: GraphSelector = { step: intParam(req, 'step', 0), rank: intParam(req, 'rank', 0) };
  const resolved = resolveGraphFile(ctx.roots, run, tag, format);
  if (!resolved.ok) throw new HttpError(resolved.status, resolved.message.key, resolved.message.params);
  const ref = resolved.ref;
  try {
    let opened = ctx.stores.open(ref);
    if ('indexing' in opened && opened.settled) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([opened.settled, new Promise((r) => (timer = setTimeout(r, TB_WAIT_MS)))]);
      clearTimeout(timer);
      opened = ctx.stores.open(ref);
    }
    if ('indexing' in opened) {
      const { bytesRead, bytesTotal } = opened.indexing;
      const percent = bytesTotal > 0 ? Math.min(99, Math.floor((100 * bytesRead) / bytesTotal)) : 0;
      const body: IndexingResponse = { indexing: { file: ref.relPath, bytesRead, bytesTotal, percent } };
      res.status(202).setHeader('Retry-After', '1').json(body);
      return;
    }
    // A `.vis` holds one graph (step 0, rank 0); a `.vis.db` checks its own lists.
    const meta = opened.store.meta();
    const step = graph.step ?? meta.steps[0];
    const rank = graph.rank ?? meta.ranks[0];
    if (!meta.steps.includes(step) || !meta.ranks.includes(rank)) throw new UnknownGraphError(ref.relPath, step, rank);
    // The budget covers this thread's work; a search's own runs in the find worker under the same budget.
    const base: AnyOpened = { store: opened.store, ref, graph, stamp: opened.stamp, step, rank };
    const overlay = optionalString(req, 'overlay');
    if (!isMsprobe(base) && overlay) throw new HttpError(400, 'badParam', { name: 'overlay', expected: 'none for a TensorBoard graph' });
    await withWorkBudget(ref.relPath, ctx.workBudgetMs, () => answer(isMsprobe(base) ? withOverlay(ctx, overlay, base) : base));
  } catch (e) {
    if (e instanceof WorkInProgress) {
      // A list built once per file (the `.vis.db` worst table's) is under way: asked again, it continues.
      const percent = e.total > 0 ? Math.min(99, Math.floor((100 * e.done) / e.total)) : 0;
      const body: IndexingResponse = { indexing: { file: ref.relPath, bytesRead: e.done, bytesTotal: e.total, percent } };
      res.status(202).setHeader('Retry-After', '1').json(body);
      return;
    }
    if (e instanceof WorkBudgetExceeded) {
      res.setHeader('Retry-After', '5');
      throw new HttpError(503, 'tooMuchWork', { file: e.file, ms: e.ms });
    }
    if (e instanceof StaleFileError) throw new HttpError(409, 'fileChanged', { file: e.file });
    if (e instanceof UnknownGraphError) {
      throw new HttpError(400, 'unknownGraph', { file: e.file, step: e.step, rank: e.rank });
    }
    if (e instanceof GraphFileError) throw new HttpError(422, 'fileUnreadable', { file: e.file, problem: e.problem });
    throw e;
  }
}

/** `format=vis|db|tfevents|graphdef|onnx`, or undefined when absent (the tag's name decides). */
export function formatParam(req: Request): GraphFormat | undefined {
  const format = optionalString(req, 'format');
  if (format !== undefined && format !== 'vis' && format !== 'db' && !isTbFormat(format)) {
    throw new HttpError(400, 'badParam', { name: 'format', expected: '"vis" | "db" | "tfevents" | "graphdef" | "onnx"' });
  }
  return format;
}

export function sideParam(req: Request, store: GraphStore, ref: GraphFileRef): Side {
  const side = optionalString(req, 'side') || 'npu';
  if (side !== 'npu' && side !== 'bench') {
    throw new HttpError(400, 'badParam', { name: 'side', expected: '"npu" | "bench"' });
  }
  if (side === 'bench' && store.meta().graphType === 'build') {
    throw new HttpError(400, 'noBenchSide', { file: ref.relPath });
  }
  return side;
}

/** A search text that is too long or an invalid `/regex/` is the client's mistake: 400 before any work. */
function checkSearch(query: string): void {
  try {
    parseSearch(query);
  } catch (e) {
    if (e instanceof BadSearchError) throw new HttpError(400, 'badSearch', { problem: e.problem });
    throw e;
  }
}

/** An integer ≥ `min`, or undefined when the parameter is absent or empty. */
export function intParam(req: Request, name: string, min: number): number | undefined {
  const text = optionalString(req, name);
  if (text === undefined || text === '') return undefined;
  const n = /^-?\d{1,9}$/.test(text) ? Number(text) : NaN;
  if (!(n >= min)) throw new HttpError(400, 'badParam', { name, expected: `an integer ≥ ${min}` });
  return n;
}

function limitParam(req: Request): number {
  const limit = intParam(req, 'limit', 1) ?? DEFAULT_FIND_LIMIT;
  if (limit > MAX_FIND_LIMIT) throw new HttpError(400, 'badParam', { name: 'limit', expected: `at most ${MAX_FIND_LIMIT}` });
  return limit;
}

function flagParam(req: Request, name: string): boolean {
  const v = optionalString(req, name);
  if (v === undefined || v === '' || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  throw new HttpError(400, 'badParam', { name, expected: '1 | 0' });
}

function listParam(req: Request, name: string): string[] {
  const v = optionalString(req, name);
  return v ? v.split(',').filter((s) => s !== '') : [];
}

const NUMBER = '(?:\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)';
const BUCKET = new RegExp(`^(${NUMBER})-(${NUMBER})$`);

/** More buckets than any legend has; past it a query is an attack on the store's SQL, not a filter. */
const MAX_PRECISION_BUCKETS = 64;

/** `precision=lo-hi,lo-hi`: buckets as the legend shows them (findQuery.inPrecisionBuckets). */
function precisionParam(req: Request): Array<[number, number]> {
  const parts = listParam(req, 'precision');
  if (parts.length > MAX_PRECISION_BUCKETS) {
    throw new HttpError(400, 'badParam', { name: 'precision', expected: `at most ${MAX_PRECISION_BUCKETS} lo-hi buckets` });
  }
  return parts.map((part) => {
    const m = BUCKET.exec(part);
    const lo = m ? Number(m[1]) : NaN;
    const hi = m ? Number(m[2]) : NaN;
    if (!(lo <= hi)) throw new HttpError(400, 'badParam', { name: 'precision', expected: 'lo-hi[,lo-hi…] with lo ≤ hi' });
    return [lo, hi];
  });
}

function unknownNode(ref: GraphFileRef, side: Side, node: string): HttpError {
  return new HttpError(404, 'unknownNode', { node: node.slice(0, 300), side, file: ref.relPath });
}

/** Repeated keys (`?run=a&run=b`) arrive as arrays; refusing them keeps one request = one file. */
export function optionalString(req: Request, name: string): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new HttpError(400, 'badParam', { name, expected: 'a single string' });
  return v;
}

export function requiredString(req: Request, name: string): string {
  const v = optionalString(req, name);
  if (v === undefined || v === '') throw new HttpError(400, 'missingParam', { name });
  return v;
}
