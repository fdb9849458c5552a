import { Worker } from 'node:worker_threads';
import { bundledScript } from '../workers/bundledScript.js';
import type { FilterQuery, SearchQuery } from './findQuery.js';
import type { WorstQuery } from './worstQuery.js';
import { firstDivergent, type DivergentQuery } from './divergentQuery.js';
import { heatmap, type HeatmapCache, type HeatmapQuery, type OpenGraph } from './heatmapQuery.js';
import { GraphFileError, StaleFileError, UnknownGraphError, type GraphStore } from './graphStore.js';
import type { GraphFileRef } from './openStore.js';
import { WorkBudgetExceeded, WorkInProgress, withWorkBudget } from './workBudget.js';

/**
 * Searches and filters off the server's event loop (issue 12: one slow request never stalls the others). Store calls
 * are synchronous, so a match-everything search on a large or deep file would hold the loop for its whole budget;
 * here it runs in one worker thread (started with the pool, restarted when it dies) that keeps its own store cache,
 * while the main thread keeps answering `/children`, `/node` and `/meta`. Small files go there too: a hostile 1 MB
 * `.vis` (a 2,000-deep chain) needs ~350 ms per search, while the round trip costs about a millisecond.
 * Without the bundled worker script (TypeScript sources) the work runs in the calling thread, under the same budget.
 */

export type FindRequest =
  | { kind: 'search'; query: SearchQuery }
  | { kind: 'filter'; query: FilterQuery }
  | { kind: 'worst'; query: WorstQuery }
  | { kind: 'heatmap'; query: HeatmapQuery }
  | { kind: 'divergent'; query: DivergentQuery };

/** What the worker needs to open files as the server does (the same index cache, so large `.vis` are not re-read). */
export interface FindWorkerData {
  cacheDir: string | null;
  cacheMaxBytes?: number;
  chunkSize?: number;
  /** Non-zero while the request under way should stop (client gone, budget passed on the main side). */
  cancel: SharedArrayBuffer;
}

export interface FindJob {
  id: number;
  ref: GraphFileRef;
  request: FindRequest;
  budgetMs: number;
}

/** The worker's answer: the FindResponse as JSON text (one string crosses threads cheaply), or a typed error. */
export type FindAnswer =
  | { id: number; json: string }
  | {
      id: number;
      error: { type: 'file' | 'stale' | 'graph' | 'budget' | 'progress' | 'internal'; problem: string; step?: number; rank?: number; done?: number; total?: number };
    };

export interface FindPool {
  /** The FindResponse as JSON text; rejects as the store would (GraphFileError…, WorkBudgetExceeded). */
  find(ref: GraphFileRef, store: GraphStore, request: FindRequest, budgetMs: number, signal?: AbortSignal): Promise<string>;
  /**
   * Starts the worker if need be and has it open `ref` ahead of its first request: after a server restart, starting
   * the worker and loading a large `.vis` index take longer than a first worst-table page may (bench/triage.mjs).
   * The caller only asks for files the worker opens quickly (a `.vis.db`, a `.vis` whose index is cached).
   */
  prepare(ref: GraphFileRef): void;
  /** Ends the worker; waiting requests are answered 503. */
  close(): void;
}

/** What the worker is sent: a request to answer, or a file to open before it is asked about it (no answer). */
export type FindWorkerMessage = FindJob | { prepare: GraphFileRef };

/** A worker still busy this long after its request's deadline is stuck outside any budget check: it is replaced. */
const STUCK_GRACE_MS = 1000;

export function defaultFindWorkerScript(): string | null {
  return bundledScript('store/findWorker.js', import.meta.url);
}

/** One search or filter as the worker (or the inline path) runs it; `cache` keeps heatmap cells across restarts. */
export function runFind(store: GraphStore, request: FindRequest, ref: GraphFileRef, open: OpenGraph, cache: HeatmapCache | null = null): string {
  switch (request.kind) {
    case 'search':
      return JSON.stringify(store.search(request.query));
    case 'filter':
      return JSON.stringify(store.filter(request.query));
    case 'worst':
      return JSON.stringify(store.worst(request.query));
    case 'divergent':
      return JSON.stringify(firstDivergent(store, request.query));
    case 'heatmap':
      // Reads the run's other rank files too, opened as the routes open them (`open`).
      return JSON.stringify(heatmap(store, ref, request.query, open, cache));
  }
}

/** The server's cache directory as the heatmap keeps cells there (null: memory only). */
export function heatmapCacheOf(data: Pick<FindWorkerData, 'cacheDir' | 'cacheMaxBytes'>): HeatmapCache | null {
  return data.cacheDir ? { cacheDir: data.cacheDir, maxBytes: data.cacheMaxBytes } : null;
}

/** A store error as it crosses threads, and back. */
export function encodeFindError(e: unknown): Extract<FindAnswer, { error: unknown }>['error'] {
  if (e instanceof WorkInProgress) return { type: 'progress', problem: e.message, done: e.done, total: e.total };
  if (e instanceof WorkBudgetExceeded) return { type: 'budget', problem: e.message };
  if (e instanceof StaleFileError) return { type: 'stale', problem: e.problem };
  if (e instanceof UnknownGraphError) return { type: 'graph', problem: e.problem, step: e.step, rank: e.rank };
  if (e instanceof GraphFileError) return { type: 'file', problem: e.problem };
  return { type: 'internal', problem: e instanceof Error ? e.message : String(e) };
}

function decodeFindError(ref: GraphFileRef, budgetMs: number, e: Extract<FindAnswer, { error: unknown }>['error']): Error {
  switch (e.type) {
    case 'budget':
      return new WorkBudgetExceeded(ref.relPath, budgetMs);
    case 'progress':
      return new WorkInProgress(ref.relPath, e.done ?? 0, e.total ?? 0);
    case 'stale':
      return new StaleFileError(ref.relPath);
    case 'graph':
      return new UnknownGraphError(ref.relPath, e.step ?? 0, e.rank ?? 0);
    case 'file':
      return new GraphFileError(ref.relPath, e.problem);
    default:
      return new Error(e.problem);
  }
}

interface Pending {
  job: FindJob;
  deadline: number;
  resolve: (json: string) => void;
  reject: (e: Error) => void;
  settled: boolean;
  timer: NodeJS.Timeout;
  unlisten: () => void;
}

export function createFindPool(options: { workerScript: string | null; data: Omit<FindWorkerData, 'cancel'>; open: OpenGraph }): FindPool {
  const script = options.workerScript;
  if (!script) {
    return {
      find: async (ref, store, request, budgetMs) => withWorkBudget(ref.relPath, budgetMs, () => runFind(store, request, ref, options.open, heatmapCacheOf(options.data))),
      prepare: () => {},
      close: () => {},
    };
  }
  const cancel = new SharedArrayBuffer(4);
  const cancelFlag = new Int32Array(cancel);
  const queue: Pending[] = [];
  let running: Pending | null = null;
  let worker: Worker | null = null;
  let stuckTimer: NodeJS.Timeout | null = null;
  let nextId = 1;

  const settle = (p: Pending, outcome: { json: string } | { error: Error }) => {
    if (p.settled) return;
    p.settled = true;
    clearTimeout(p.timer);
    p.unlisten();
    if ('json' in outcome) p.resolve(outcome.json);
    else p.reject(outcome.error);
  };

  /** The request under way is no longer wanted: let the worker's budget check stop it, or replace a stuck worker. */
  const stopRunning = () => {
    Atomics.store(cancelFlag, 0, 1);
    if (stuckTimer) return;
    stuckTimer = setTimeout(() => {
      stuckTimer = null;
      const w = worker;
      finished(null);
      if (w) void w.terminate();
    }, STUCK_GRACE_MS);
    stuckTimer.unref();
  };

  const finished = (answer: FindAnswer | null) => {
    if (stuckTimer) clearTimeout(stuckTimer);
    stuckTimer = null;
    const p = running;
    running = null;
    if (answer === null) worker = null;
    if (p && answer) settle(p, 'json' in answer ? { json: answer.json } : { error: decodeFindError(p.job.ref, p.job.budgetMs, answer.error) });
    pump();
  };

  const start = (): Worker => {
    const w = new Worker(script, { workerData: { ...options.data, cancel } satisfies FindWorkerData });
    w.on('message', (answer: FindAnswer) => {
      if (worker === w && running?.job.id === answer.id) finished(answer);
    });
    const died = (problem: string) => {
      if (worker !== w) return;
      const p = running;
      finished(null);
      if (p) settle(p, { error: new GraphFileError(p.job.ref.relPath, problem) });
    };
    w.on('error', (e) => died(`the search stopped: ${e.message}`));
    w.on('exit', (code) => died(`the search stopped (worker exit code ${code})`));
    // An idle server must be able to exit: the worker does not hold the event loop.
    w.unref();
    return w;
  };

  const pump = () => {
    if (running) return;
    const p = queue.shift();
    if (!p) return;
    worker ??= start();
    running = p;
    Atomics.store(cancelFlag, 0, 0);
    // The worker gets what is left of the budget: time spent queued counts.
    const left = Math.max(1, Math.round(p.deadline - performance.now()));
    worker.postMessage({ ...p.job, budgetMs: left } satisfies FindWorkerMessage);
  };

  // Started now, not at the first search: loading its modules takes 0.1–0.4 s, which a restarted server's first
  // worst-table page would otherwise wait for (bench/triage.mjs).
  worker = start();

  return {
    find(ref, _store, request, budgetMs, signal) {
      return new Promise<string>((resolve, reject) => {
        const job: FindJob = { id: nextId++, ref, request, budgetMs };
        const p: Pending = { job, deadline: performance.now() + budgetMs, resolve, reject, settled: false, timer: undefined!, unlisten: () => {} };
        const giveUp = () => {
          settle(p, { error: new WorkBudgetExceeded(ref.relPath, budgetMs) });
          const queued = queue.indexOf(p);
          if (queued >= 0) queue.splice(queued, 1);
          else if (running === p) stopRunning();
        };
        // Queued behind a busy worker or running: past the budget the answer is 503 either way.
        p.timer = setTimeout(giveUp, budgetMs);
        if (signal?.aborted) return giveUp();
        if (signal) {
          signal.addEventListener('abort', giveUp, { once: true });
          p.unlisten = () => signal.removeEventListener('abort', giveUp);
        }
        queue.push(p);
        pump();
      });
    },
    prepare(ref) {
      // Queued in the worker's own message queue: a request sent meanwhile waits for the file to open, as it would.
      worker ??= start();
      worker.postMessage({ prepare: ref } satisfies FindWorkerMessage);
    },
    close() {
      for (const p of queue.splice(0)) settle(p, { error: new WorkBudgetExceeded(p.job.ref.relPath, p.job.budgetMs) });
      if (running) settle(running, { error: new WorkBudgetExceeded(running.job.ref.relPath, running.job.budgetMs) });
      running = null;
      if (stuckTimer) clearTimeout(stuckTimer);
      stuckTimer = null;
      const w = worker;
      worker = null;
      if (w) void w.terminate();
    },
  };
}
