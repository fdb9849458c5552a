import { Router, type Request, type Response } from 'express';
import { existsSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { OverlayConfigResponse, OverlayConfigsResponse, OverlayNodesResponse, OverlayResponse, OverlaySaveRequest, OverlaySummariesResponse, OverlayWriteResponse } from '../../../src/core/api/overlay.js';
import type { FindResponse, IndexingResponse } from '../../../src/core/api/types.js';
import { serializeVisConfig, visConfigName } from '../../../src/core/match/index.js';
import { writeAtomically } from '../../atomicFile.js';
import { listConfigs, readConfig, runDirOf } from '../../overlay/configFiles.js';
import type { BaseCounts } from '../../overlay/overlayEntry.js';
import { targetOf } from '../../overlay/overlayParam.js';
import { MAX_SUMMARIES_BODY_BYTES, parseExportRequest, parseOverlayRequest, parseSaveRequest, parseSummariesRequest, readJsonBody } from '../../overlay/overlayRequest.js';
import { OverlayStore } from '../../overlay/overlayStore.js';
import { SummaryViews } from '../../overlay/summaryViews.js';
import { modifiedPairs } from '../../overlay/saveDb.js';
import { runSave, SaveFailure, SaveJob, SaveJobs, saveBytes, type SaveTask } from '../../overlay/saveJobs.js';
import { planMatchedVis } from '../../overlay/saveVis.js';
import { writeGuard } from '../../overlay/writeGuard.js';
import type { FindRequest } from '../../store/findPool.js';
import { MAX_FIND_LIMIT, type FilterQuery } from '../../store/findQuery.js';
import { derivedWriteProblem, readDerived, writeDerived } from '../../store/derivedCache.js';
import { GraphFileError, StaleFileError } from '../../store/graphStore.js';
import { currentStamp, type GraphFileRef } from '../../store/openStore.js';
import { defaultIndexWorkerScript, IndexJobFailure, startIndexJob } from '../../store/visJsonIndex/indexJobs.js';
import type { AppContext } from '../appContext.js';
import { HttpError } from '../httpError.js';
import { formatParam, intParam, optionalString, requiredString, sideParam, withGraph, type Opened } from './graph.js';
import { resolveGraphFile } from '../../logdir/resolveGraphFile.js';
import { ShardSetStore } from '../../store/visDb/shardSetStore.js';

/** Entries one `/api/overlay/nodes` page may hold. */
const MAX_NODES_LIMIT = 1000;
const DEFAULT_NODES_LIMIT = 100;

/**
 * Issue 15's routes (contract: src/core/api/overlay.ts): register an overlay, list unmatched / matched nodes, list and
 * read `.vis.config` files, and the two writes — export a config, save a matched file — behind writeGuard (read-only
 * servers, cross-site requests) and one lock per file, so two saves of one file run one after the other and the second
 * sees the first's new stamp (409). Every path written is the resolved graph file's run directory plus a name made
 * here from the tag, inside the log dir like every read (resolveGraphFile.ts).
 */
export function overlayRouter(ctx: AppContext): Router {
  const router = Router();
  const guard = writeGuard(ctx.readOnly);
  const locks = new Map<string, Promise<unknown>>();
  const saves = new SaveJobs<OverlayWriteResponse>();
  const baseCounts = new Map<string, BaseCounts>();
  const views = new SummaryViews();

  /** Runs `fn` after every earlier locked call on the same file has finished. */
  const locked = <T>(absPath: string, fn: () => Promise<T>): Promise<T> => {
    const before = locks.get(absPath) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => {});
    locks.set(absPath, tail);
    void tail.then(() => {
      if (locks.get(absPath) === tail) locks.delete(absPath);
    });
    return run;
  };

  /** The file's own search/filter answer, from the find worker. */
  const baseFind = (o: Opened, res: Response) => (request: FindRequest) => {
    const base = o.store instanceof OverlayStore ? o.store.base : o.store;
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    return ctx.stores.find(o.ref, base, request, ctx.workBudgetMs, gone.signal);
  };

  const find = (o: Opened, res: Response, request: FindRequest): Promise<string> =>
    o.store instanceof OverlayStore ? o.store.find(request, baseFind(o, res)) : baseFind(o, res)(request);

  router.post('/api/overlay', async (req, res) => {
    const body = parseOverlayRequest(await readJsonBody(req));
    return withGraph(ctx, req, res, async (o) => {
      if (o.store instanceof OverlayStore) throw new HttpError(400, 'badParam', { name: 'overlay', expected: 'absent when registering one' });
      const meta = o.store.meta(o.graph);
      if (meta.graphType !== 'compare') throw new HttpError(400, 'overlayNotCompare', { file: o.ref.relPath });
      const metrics = meta.task === 'summary' ? body.metrics : null;
      // The replay runs under this request's budget (a long one answers 503 and the retry continues it).
      // The file's counts are read in the find worker while this thread replays (kept once read, even if the replay
      // stops first and the client asks again).
      const counting = countsOf(o, res, meta.nodeCounts.npu ?? 0);
      counting.catch(() => {});
      const entry = ctx.overlays.register(targetOf(o), o.store, meta.task, body.ops, metrics);
      const counts = entry.counts(await counting);
      const answer: OverlayResponse = { overlay: entry.id, outcomes: [...entry.outcomes], counts };
      res.json(answer);
    });
  });

  /**
   * The file's unmatched counts per graph, from its filter: kept per file version and graph, here and in the derived
   * cache (a reopened file does not count again).
   */
  const countsOf = async (o: Opened, res: Response, npuNodes: number): Promise<BaseCounts> => {
    const key = JSON.stringify([o.ref.absPath, o.stamp, o.step, o.rank]);
    const derived = ctx.stores.derived;
    const fileStamp = derived ? statStamp(o.ref.absPath) : null;
    const derivedKey = `${o.stamp}/${o.step}/${o.rank}`;
    let counts = baseCounts.get(key) ?? (derived && fileStamp ? keptCounts(readDerived(derived.cacheDir, COUNTS_KIND, o.ref.absPath, derivedKey, fileStamp)?.header, npuNodes) : null);
    if (counts) return remember(key, counts);
    const unmatched = async (side: 'npu' | 'bench') => {
      const query: FilterQuery = { side, precision: [], unmatched: true, overflow: [], leaves: false, limit: 0, step: o.step, rank: o.rank };
      return (JSON.parse(await baseFind(o, res)({ kind: 'filter', query })) as FindResponse).total;
    };
    counts = { npuUnmatched: await unmatched('npu'), benchUnmatched: await unmatched('bench'), npuNodes };
    if (derived && fileStamp) {
      try {
        writeDerived(derived.cacheDir, COUNTS_KIND, o.ref.absPath, derivedKey, fileStamp, { ...counts }, [], derived.maxBytes);
      } catch (e) {
        derived.log(derivedWriteProblem(derived.cacheDir, e));
      }
    }
    return remember(key, counts);
  };
  const remember = (key: string, counts: BaseCounts) => {
    if (baseCounts.size >= 256) baseCounts.clear();
    baseCounts.set(key, counts);
    return counts;
  };

  router.get('/api/overlay/nodes', (req, res) =>
    withGraph(ctx, req, res, async (o) => {
      const side = sideParam(req, o.store, o.ref);
      const state = optionalString(req, 'state') || 'unmatched';
      if (state !== 'unmatched' && state !== 'matched') throw new HttpError(400, 'badParam', { name: 'state', expected: '"unmatched" | "matched"' });
      const offset = intParam(req, 'offset', 0) ?? 0;
      const limit = intParam(req, 'limit', 1) ?? DEFAULT_NODES_LIMIT;
      if (limit > MAX_NODES_LIMIT) throw new HttpError(400, 'badParam', { name: 'limit', expected: `at most ${MAX_NODES_LIMIT}` });
      const answer: OverlayNodesResponse = { total: 0, offset, results: [] };
      if (state === 'unmatched') {
        if (offset + limit > MAX_FIND_LIMIT) throw new HttpError(400, 'badParam', { name: 'offset', expected: `at most ${MAX_FIND_LIMIT} - limit` });
        const query: FilterQuery = { side, precision: [], unmatched: true, overflow: [], leaves: false, limit: offset + limit, step: o.step, rank: o.rank };
        const found = JSON.parse(await find(o, res, { kind: 'filter', query })) as FindResponse;
        answer.total = found.total;
        answer.results = found.results.slice(offset).map((r) => ({ id: r.id, path: r.path, counterpart: null }));
      } else {
        // The side's list, walked once per overlay (the file as it is: the empty overlay) and kept.
        const store = o.store instanceof OverlayStore ? o.store : ctx.overlays.store(emptyOverlay(o).id, targetOf(o), o.store)!;
        const walk = store.entry.listed(side, store);
        for (let k = 0; k < walk.length; k++) {
          if (!walk.listed(k) || walk.linkLength(k) === 0) continue;
          if (answer.total >= offset && answer.results.length < limit) answer.results.push({ id: walk.id(k), path: walk.path(k), counterpart: walk.counterpart(k)! });
          answer.total++;
        }
      }
      res.json(answer);
    }),
  );

  router.post('/api/overlay/summaries', async (req, res) => {
    const body = parseSummariesRequest(await readJsonBody(req, MAX_SUMMARIES_BODY_BYTES));
    return withGraph(ctx, req, res, (o) => {
      const side = sideParam(req, o.store, o.ref);
      // A pane's ids are sent once; its recolours name them by the answer's key (summaryViews.ts).
      const view = body.ids ? views.create(targetOf(o), side, body.ids) : views.get(body.view, targetOf(o), side);
      if (!view) throw new HttpError(409, 'viewUnknown', { id: body.view!.slice(0, 64) }, 'viewUnknown');
      // As /children summarises each node under the overlay: its patch and, with a metric choice, its index.
      const answer: OverlaySummariesResponse = view.answer(o.store, o.step, o.rank, body.fields);
      res.json(answer);
    });
  });

  const emptyOverlay = (o: Opened) => ctx.overlays.register(targetOf(o), o.store, o.store.meta(o.graph).task, [], null);

  router.get('/api/overlay/configs', (req, res) =>
    withGraph(ctx, req, res, (o) => {
      const answer: OverlayConfigsResponse = { files: listConfigs(rootOf(ctx, o.ref), o.ref), writable: !ctx.readOnly };
      res.json(answer);
    }),
  );

  router.get('/api/overlay/config', (req, res) =>
    withGraph(ctx, req, res, (o) => {
      const file = requiredString(req, 'file');
      const answer: OverlayConfigResponse = { file, pairs: readConfig(rootOf(ctx, o.ref), o.ref, file).map(([npu, bench]) => ({ npu, bench })) };
      res.json(answer);
    }),
  );

  router.post('/api/overlay/export', guard, async (req, res) => {
    parseExportRequest(await readJsonBody(req));
    return withGraph(ctx, req, res, (o) => {
      if (o.store.meta(o.graph).graphType !== 'compare') throw new HttpError(400, 'overlayNotCompare', { file: o.ref.relPath });
      const entry = o.store instanceof OverlayStore ? o.store.entry : null;
      // `.vis.db`: the rows the original marked modified, as the overlay leaves them, then the overlay's own matches.
      // A shard set's graph is in the shard holding it (issue 19).
      const base = o.store instanceof OverlayStore ? o.store.base : o.store;
      const file = base instanceof ShardSetStore ? base.fileOf(o) : o.ref;
      const fromFile = o.ref.format === 'db' ? modifiedPairs(file.absPath, file.relPath, o.step, o.rank).filter(([npu]) => !entry?.patches.npu.has(npu)) : [];
      const text = serializeVisConfig([...fromFile, ...(entry?.manualPairs() ?? [])]);
      const name = o.ref.format === 'db' ? visConfigName(o.ref.tag, o.step, o.rank) : visConfigName(o.ref.tag);
      return locked(o.ref.absPath, async () => {
        const target = path.join(runDirOf(o.ref), name);
        write(o.ref, target, () => writeAtomically(target, (fd) => writeAllText(fd, text)));
        const answer: OverlayWriteResponse = { file: shownPath(o.ref, name) };
        res.json(answer);
      });
    });
  });

  router.post('/api/overlay/save', guard, async (req, res) => {
    const body = parseSaveRequest(await readJsonBody(req));
    const key = JSON.stringify([...['run', 'tag', 'format', 'step', 'rank', 'overlay'].map((n) => optionalString(req, n) ?? ''), body.mode, body.stamp, body.replace === true]);
    // The client of a save answered 202 asking again: its save's progress or answer.
    const job = saves.claim(key);
    if (job) return answerSave(key, job, res);
    try {
      await save(req, res, body, key);
    } catch (e) {
      // A save that lost a race finds its overlay gone with the old file version: say what happened to the file.
      if (e instanceof HttpError && e.code === 'overlayUnknown') {
        const resolved = resolveGraphFile(ctx.roots, requiredString(req, 'run'), requiredString(req, 'tag'), formatParam(req));
        if (resolved.ok && stampNow(resolved.ref) !== body.stamp) throw new HttpError(409, 'staleSave', { file: resolved.ref.relPath }, 'fileChanged');
      }
      throw e;
    }
  });

  /**
   * Starts the save and answers it, or 202 with its progress when it takes longer (saveJobs.ts): the copy runs in a
   * worker thread and holds the file's lock until it ends, while the event loop serves everyone else.
   */
  const save = (req: Request, res: Response, body: OverlaySaveRequest, key: string) =>
    withGraph(ctx, req, res, (o) => {
      if (!(o.store instanceof OverlayStore)) throw new HttpError(400, 'missingParam', { name: 'overlay' });
      const entry = o.store.entry;
      const ref = o.ref;
      // A set of shards is several files served as one (issue 19): there is no one file to copy or overwrite.
      if (ref.shards) throw new HttpError(400, 'shardSetSave', { file: ref.relPath });
      const job = new SaveJob<OverlayWriteResponse>((job, progress) =>
        locked(ref.absPath, async () => {
          // Checked under the lock: of two saves the second sees the first's new stamp.
          if (stampNow(ref) !== body.stamp || body.stamp !== entry.target.stamp) {
            throw new HttpError(409, 'staleSave', { file: ref.relPath }, 'fileChanged');
          }
          const name = body.mode === 'copy' ? `${ref.tag}.matched${ref.format === 'db' ? '.vis.db' : '.vis'}` : path.basename(ref.absPath);
          const target = path.join(runDirOf(ref), name);
          if (body.mode === 'copy' && !body.replace && existsSync(target)) {
            throw new HttpError(409, 'targetExists', { file: shownPath(ref, name) }, 'targetExists');
          }
          if (body.mode === 'overwrite' && ref.format === 'db' && existsSync(`${ref.absPath}-wal`) && statSync(`${ref.absPath}-wal`).size > 0) {
            throw new HttpError(409, 'writeFailed', { file: ref.relPath, problem: 'a writer is at work on the database (it has a live -wal); save a copy instead' }, 'fileBusy');
          }
          const bak = body.mode === 'overwrite' ? `${ref.absPath}.bak` : null;
          const changes = [...entry.view.changes()];
          const common = { absPath: ref.absPath, relPath: ref.relPath, target, bak };
          let task: SaveTask;
          if (ref.format === 'db') task = { ...common, format: 'db', stamp: body.stamp, step: o.step, rank: o.rank, changes };
          else {
            const index = await indexOf(ref, entry.target.stamp);
            // Reads the changed nodes only; the copy is the worker's.
            task = { ...common, format: 'vis', plan: write(ref, target, () => planMatchedVis(ref.absPath, ref.relPath, index, changes)) };
          }
          job.file = ref.relPath;
          job.bytesTotal = saveBytes(common);
          try {
            await runSave(task, progress);
          } catch (e) {
            throw e instanceof SaveFailure ? writeError(ref, e.target, e.cause) : writeError(ref, target, e);
          }
          // The served file changed under the store cache (and its answers and overlays): it reopens the new one.
          if (body.mode === 'overwrite') ctx.stores.forget(ref.absPath);
          return { file: shownPath(ref, name) };
        }),
      );
      return answerSave(key, job, res);
    });

  /** The save's answer, or 202 with its progress (as kept work answers: the client asks again). */
  const answerSave = async (key: string, job: SaveJob<OverlayWriteResponse>, res: Response) => {
    const answer = await saves.answer(key, job, (running) => {
      const percent = Math.min(99, Math.floor(100 * running.share));
      const body: IndexingResponse = { indexing: { file: running.file, bytesRead: Math.round(running.share * running.bytesTotal), bytesTotal: running.bytesTotal, percent } };
      res.status(202).setHeader('Retry-After', '1').json(body);
    });
    if (answer) res.json(answer);
  };

  return router;
}

/** The derived cache's kind of a graph's unmatched counts (derivedCache.ts). */
const COUNTS_KIND = 'overlay-base-counts-v1';

/** Counts kept by an earlier process, when they are counts of this graph. */
function keptCounts(h: Record<string, unknown> | undefined, npuNodes: number): BaseCounts | null {
  const ok = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  if (!h || !ok(h.npuUnmatched) || !ok(h.benchUnmatched) || h.npuNodes !== npuNodes) return null;
  return { npuUnmatched: h.npuUnmatched, benchUnmatched: h.benchUnmatched, npuNodes };
}

/** The file's size, mtime and inode now (the derived cache's validity), or null when it cannot be read. */
function statStamp(absPath: string): { size: number; mtimeMs: number; ino: number } | null {
  try {
    const st = statSync(absPath);
    return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  } catch {
    return null;
  }
}

/** The stamp the file has now, or 409 when it is gone. */
/** The log dir root the file was found in: its run directory's configs must stay inside it (logRoots.ts). */
function rootOf(ctx: AppContext, ref: GraphFileRef): string {
  const root = ctx.roots.rootOf(ref);
  if (root === null) throw new HttpError(403, 'outsideLogdir', { value: ref.relPath });
  return root;
}

function stampNow(ref: GraphFileRef): string {
  try {
    return currentStamp(ref.absPath, ref.format);
  } catch {
    throw new HttpError(409, 'staleSave', { file: ref.relPath }, 'fileChanged');
  }
}

/** The `.vis` index that locates its nodes, built off this thread when the worker exists (saves are rare). */
async function indexOf(ref: GraphFileRef, stamp: string) {
  const [size, mtimeMs, ino] = stamp.split(':').map(Number);
  const job = startIndexJob({ absPath: ref.absPath, stamp: { size, mtimeMs, ino }, cacheDir: null }, { workerScript: defaultIndexWorkerScript(), log: () => {} });
  try {
    return await job.done;
  } catch (e) {
    if (e instanceof IndexJobFailure) throw new HttpError(422, 'fileUnreadable', { file: ref.relPath, problem: e.problem });
    throw e;
  }
}

/** A file name in the ref's run directory as the listing names paths (relative to the log dir). */
function shownPath(ref: GraphFileRef, name: string): string {
  return path.posix.join(path.posix.dirname(ref.relPath), name);
}

/** Runs a write; its failure is one line naming the file (409 when the source changed meanwhile). */
function write<T>(ref: GraphFileRef, target: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw writeError(ref, target, e);
  }
}

/** What a failed write of `target` answers. */
function writeError(ref: GraphFileRef, target: string, e: unknown): unknown {
  if (e instanceof StaleFileError) return new HttpError(409, 'staleSave', { file: ref.relPath }, 'fileChanged');
  if (e instanceof HttpError) return e;
  const problem = e instanceof GraphFileError ? e.problem : ((e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e)));
  // The disk, not the request: a full or read-only directory.
  return new HttpError(500, 'writeFailed', { file: shownPath(ref, path.basename(target)), problem });
}

function writeAllText(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
}

