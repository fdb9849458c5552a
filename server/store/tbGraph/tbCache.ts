import type { Stats } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { TbFormatError } from '../../../src/core/formats/tb/tbError.js';
import { TbView, type PackedTbHierarchy } from '../../../src/core/tbgraph/packed.js';
import { bundledScript } from '../../workers/bundledScript.js';
import type { DerivedCacheOptions } from '../derivedCache.js';
import { GraphFileError } from '../graphStore.js';
import type { IndexEvent } from '../openStore.js';
import type { IndexProgress } from '../visJsonIndex/indexJobs.js';
import type { EventFileIndex, EventGraphEntry } from '../../../src/core/formats/tb/eventFile.js';
import type { TbDetailsData } from './tbDiskCache.js';
import { keepInCache, loadProblem, loadTbCached, loadTbHierarchy, opDetailSource, scanEvents, splitTbTag, type TbFormat, type TbLoadInput } from './tbFiles.js';
import { TbGraphStore } from './tbStore.js';

/**
 * Opened TensorBoard-side graphs and event-file listings, keyed by file and graph and checked against the file's
 * stamp (size, mtime, inode) like the msprobe store cache (openStore.ts), which hands TB refs to this one. Loading is
 * asynchronous (the readers take a ByteSource): `open` answers `{indexing, settled}` until the graph is built, in a
 * worker thread for large files, in this thread's spare time for small ones.
 */

export interface TbRef {
  absPath: string;
  relPath: string;
  format: TbFormat;
  run: string;
  tag: string;
}

export type TbOpenResult = { store: TbGraphStore; stamp: string } | { indexing: IndexProgress; settled: Promise<unknown> };

/** An event file's graphs as listed (tag and step each), and the damage that stopped its scan, if any. */
export type EventListing = { graphs: Array<{ tag: string; step: number }>; problem: string | null };

export interface TbCache {
  /** Throws GraphFileError naming the file when it cannot be read. */
  open(ref: TbRef, stats: Stats): TbOpenResult;
  /** Why a GraphDef / ONNX file (its only graph) failed to open at this stamp, or null when not known to fail. */
  knownProblem(absPath: string, stats: Stats): string | null;
  /** What the reader noted on a graph loaded at this stamp (a newer ONNX IR version, an input naming no node); [] else. */
  knownNotes(absPath: string, graph: string | null, stats: Stats): readonly string[];
  /** The event file's listing at its current stamp, or a promise that settles when it has been scanned. */
  events(absPath: string, stats: Stats): EventListing | Promise<unknown>;
  /** The run metadata records the listing's scan found at this stamp, and where it stopped; null when not scanned. */
  knownRunMetadata(absPath: string, stats: Stats): Pick<EventFileIndex, 'runMetadata' | 'nextOffset'> | null;
  forget(absPath: string): void;
  closeAll(): void;
}

export interface TbCacheOptions {
  /** Bundled tbWorker.js; null = load in this thread. Default: found next to the server bundle. */
  workerScript?: string | null;
  /** Files smaller than this load in this thread (default 4 MiB). */
  inThreadBytes?: number;
  maxOpen?: number;
  /** Where decoded graphs are kept across restarts (tbDiskCache.ts); null / absent: not kept. */
  derived?: DerivedCacheOptions | null;
  /** Loads starting and finishing, `fromCache` when the disk cache answered (as openStore.ts reports `.vis` indexing). */
  onIndex?: (event: IndexEvent) => void;
}

type Done = { store: TbGraphStore } | { error: GraphFileError };

/** What tbWorker.ts posts: the packed structure, then the op details; or the one-line problem. */
type TbWorkerMessage =
  | { type: 'structure'; packed: PackedTbHierarchy; fromCache: boolean }
  | { type: 'details'; ops: TbDetailsData }
  | { type: 'warning'; message: string }
  | { type: 'error'; problem: string };

export function defaultTbWorkerScript(): string | null {
  return bundledScript('store/tbGraph/tbWorker.js', import.meta.url);
}

export function tbStamp(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}

export function createTbCache(options: TbCacheOptions = {}): TbCache {
  const workerScript = options.workerScript === undefined ? defaultTbWorkerScript() : options.workerScript;
  const inThreadBytes = options.inThreadBytes ?? 4 * 1024 * 1024;
  const maxOpen = options.maxOpen ?? 8;
  // Insertion order = use order, oldest first (as openStore.ts).
  const graphs = new Map<string, { stamp: string; done?: Done; job?: { settled: Promise<unknown>; progress: IndexProgress; cancel(): void } }>();
  // `entries`: where each graph's record is, so opening one reads that record instead of scanning the file again.
  type Scan = {
    stamp: string;
    listing?: EventListing;
    entries?: EventGraphEntry[];
    runMetadata?: Pick<EventFileIndex, 'runMetadata' | 'nextOffset'>;
    pending?: Promise<unknown>;
  };
  const scans = new Map<string, Scan>();
  let closed = false;

  const log = (line: string | null) => {
    if (line) options.derived?.log(line);
  };
  const load = (input: TbLoadInput, size: number): { promise: Promise<{ view: TbView; fromCache: boolean }>; cancel(): void } => {
    if (!workerScript || size < inThreadBytes) {
      const promise = loadTbHierarchy(input).then(({ packed, details, fromCache }) => {
        const ops = details();
        if (!fromCache) log(keepInCache(input, packed, ops));
        return { view: new TbView(packed, opDetailSource(ops)), fromCache };
      });
      return { promise, cancel: () => {} };
    }
    // A graph kept in the disk cache is read here (tens of milliseconds), sparing a worker's start; a miss decodes
    // in the worker.
    let worker: Worker | null = null;
    let cancelled = false;
    const fromWorker = (): Promise<{ view: TbView; fromCache: boolean }> => {
      if (cancelled) return Promise.reject(new Error('cancelled'));
      const w = (worker = new Worker(workerScript, { workerData: input }));
      let view: TbView | null = null;
      return new Promise<{ view: TbView; fromCache: boolean }>((resolve, reject) => {
        w.on('message', (m: TbWorkerMessage) => {
          if (m.type === 'structure') {
            view = new TbView(m.packed, null);
            resolve({ view, fromCache: m.fromCache });
          } else if (m.type === 'details') {
            view?.setOpDetails(opDetailSource(m.ops));
            void w.terminate();
          } else if (m.type === 'warning') log(m.message);
          else {
            reject(new TbFormatError(m.problem)); // already the one line loadProblem gives
            void w.terminate();
          }
        });
        w.once('error', (e) => {
          reject(e);
          view?.failOpDetails(e.message);
        });
        w.once('exit', (code) => {
          const problem = `the decoding worker stopped (exit code ${code})`;
          reject(new Error(problem));
          if (view && !view.hasOpDetails) view.failOpDetails(problem);
        });
      });
    };
    const promise = loadTbCached(input).then((hit) => (hit ? { view: new TbView(hit.packed, opDetailSource(hit.details())), fromCache: true } : fromWorker()));
    return {
      promise,
      cancel: () => {
        cancelled = true;
        void worker?.terminate();
      },
    };
  };

  const trim = () => {
    while (graphs.size > maxOpen) {
      const oldest = [...graphs].find(([, e]) => !e.job);
      if (!oldest) return;
      graphs.delete(oldest[0]);
    }
  };

  return {
    open(ref, stats) {
      const split = splitTbTag(ref.tag);
      const graph = split?.graph ?? null;
      const key = `${ref.absPath}\u0000${graph ?? ''}`;
      const stamp = tbStamp(stats);
      const hit = graphs.get(key);
      if (hit && hit.stamp === stamp) {
        graphs.delete(key);
        graphs.set(key, hit);
        if (hit.done && 'error' in hit.done) throw hit.done.error;
        if (hit.done) return { store: hit.done.store, stamp };
        return { indexing: hit.job!.progress, settled: hit.job!.settled };
      }
      hit?.job?.cancel();
      const scanned = ref.format === 'tfevents' ? scans.get(ref.absPath) : undefined;
      const listed = scanned?.stamp === stamp ? scanned.entries?.find((g) => graph === null || g.tag === graph) : undefined;
      const derived = options.derived;
      const cache = derived ? { cacheDir: derived.cacheDir, maxBytes: derived.maxBytes, stamp: { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino } } : undefined;
      const started = performance.now();
      options.onIndex?.({ phase: 'start', file: ref.relPath, bytes: stats.size });
      const { promise, cancel } = load({ absPath: ref.absPath, format: ref.format, graph, ...(listed ? { entry: listed } : {}), ...(cache ? { cache } : {}) }, stats.size);
      const entry: { stamp: string; done?: Done; job?: { settled: Promise<unknown>; progress: IndexProgress; cancel(): void } } = { stamp };
      const settled = promise.then(
        ({ view, fromCache }) => {
          entry.done = { store: new TbGraphStore(view, { file: ref.relPath, run: ref.run, tag: ref.tag, format: ref.format }) };
          options.onIndex?.({ phase: 'done', file: ref.relPath, bytes: stats.size, fromCache, seconds: (performance.now() - started) / 1000 });
        },
        (e: unknown) => {
          entry.done = { error: new GraphFileError(ref.relPath, loadProblem(e)) };
          options.onIndex?.({ phase: 'failed', file: ref.relPath, bytes: stats.size, problem: entry.done.error.problem });
        },
      );
      entry.job = { settled, progress: { bytesRead: 0, bytesTotal: stats.size }, cancel };
      void settled.then(() => {
        delete entry.job;
        if (!closed) trim();
      });
      graphs.delete(key);
      graphs.set(key, entry);
      return { indexing: entry.job.progress, settled };
    },
    knownProblem(absPath, stats) {
      const hit = graphs.get(`${absPath}\u0000`);
      return hit?.stamp === tbStamp(stats) && hit.done && 'error' in hit.done ? hit.done.error.problem : null;
    },
    knownNotes(absPath, graph, stats) {
      const hit = graphs.get(`${absPath}\u0000${graph ?? ''}`);
      return hit?.stamp === tbStamp(stats) && hit.done && 'store' in hit.done ? hit.done.store.notes() : [];
    },
    events(absPath, stats) {
      const stamp = tbStamp(stats);
      const hit = scans.get(absPath);
      if (hit && hit.stamp === stamp) return hit.listing ?? hit.pending!;
      const entry: Scan = { stamp };
      entry.pending = scanEvents(absPath).then(
        (index) => {
          entry.entries = index.graphs;
          entry.runMetadata = { runMetadata: index.runMetadata, nextOffset: index.nextOffset };
          entry.listing = {
            graphs: index.graphs.map((g) => ({ tag: g.tag, step: g.step })),
            problem: index.error?.message ?? null,
          };
        },
        (e: unknown) => {
          entry.listing = { graphs: [], problem: loadProblem(e) };
        },
      );
      scans.set(absPath, entry);
      return entry.pending;
    },
    knownRunMetadata(absPath, stats) {
      const hit = scans.get(absPath);
      return hit?.stamp === tbStamp(stats) ? (hit.runMetadata ?? null) : null;
    },
    forget(absPath) {
      for (const [key, e] of graphs) {
        if (key.startsWith(`${absPath}\u0000`)) {
          e.job?.cancel();
          graphs.delete(key);
        }
      }
      scans.delete(absPath);
    },
    closeAll() {
      closed = true;
      for (const e of graphs.values()) e.job?.cancel();
      graphs.clear();
      scans.clear();
    },
  };
}
