import type { Stats } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { TbFormatError } from '../../../src/core/formats/tb/tbError.js';
import type { TbHierarchy } from '../../../src/core/tbgraph/hierarchy.js';
import { bundledScript } from '../../workers/bundledScript.js';
import { GraphFileError } from '../graphStore.js';
import type { IndexProgress } from '../visJsonIndex/indexJobs.js';
import { loadProblem, loadTbHierarchy, scanEvents, splitTbTag, type TbFormat, type TbLoadInput } from './tbFiles.js';
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

/** An event file's graphs as listed: tag and step each, or the problem when none could be read. */
export type EventListing = { graphs: Array<{ tag: string; step: number }>; problem: string | null };

export interface TbCache {
  /** Throws GraphFileError naming the file when it cannot be read. */
  open(ref: TbRef, stats: Stats): TbOpenResult;
  /** Why a GraphDef / ONNX file (its only graph) failed to open at this stamp, or null when not known to fail. */
  knownProblem(absPath: string, stats: Stats): string | null;
  /** The event file's listing at its current stamp, or a promise that settles when it has been scanned. */
  events(absPath: string, stats: Stats): EventListing | Promise<unknown>;
  forget(absPath: string): void;
  closeAll(): void;
}

export interface TbCacheOptions {
  /** Bundled tbWorker.js; null = load in this thread. Default: found next to the server bundle. */
  workerScript?: string | null;
  /** Files smaller than this load in this thread (default 4 MiB). */
  inThreadBytes?: number;
  maxOpen?: number;
}

type Done = { store: TbGraphStore } | { error: GraphFileError };

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
  const scans = new Map<string, { stamp: string; listing?: EventListing; pending?: Promise<unknown> }>();
  let closed = false;

  const load = (input: TbLoadInput, size: number): { promise: Promise<TbHierarchy>; cancel(): void } => {
    if (!workerScript || size < inThreadBytes) return { promise: loadTbHierarchy(input), cancel: () => {} };
    const worker = new Worker(workerScript, { workerData: input });
    const promise = new Promise<TbHierarchy>((resolve, reject) => {
      worker.once('message', (m: { type: 'done'; hierarchy: TbHierarchy } | { type: 'error'; problem: string }) => {
        if (m.type === 'done') resolve(m.hierarchy);
        else reject(new TbFormatError(m.problem)); // already the one line loadProblem gives
        void worker.terminate();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the decoding worker stopped (exit code ${code})`)));
    });
    return { promise, cancel: () => void worker.terminate() };
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
      const { promise, cancel } = load({ absPath: ref.absPath, format: ref.format, graph }, stats.size);
      const entry: { stamp: string; done?: Done; job?: { settled: Promise<unknown>; progress: IndexProgress; cancel(): void } } = { stamp };
      const settled = promise.then(
        (h) => {
          entry.done = { store: new TbGraphStore(h, { file: ref.relPath, run: ref.run, tag: ref.tag, format: ref.format }) };
        },
        (e: unknown) => {
          entry.done = { error: new GraphFileError(ref.relPath, loadProblem(e)) };
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
    events(absPath, stats) {
      const stamp = tbStamp(stats);
      const hit = scans.get(absPath);
      if (hit && hit.stamp === stamp) return hit.listing ?? hit.pending!;
      const entry: { stamp: string; listing?: EventListing; pending?: Promise<unknown> } = { stamp };
      entry.pending = scanEvents(absPath).then(
        (index) => {
          entry.listing = {
            graphs: index.graphs.map((g) => ({ tag: g.tag, step: g.step })),
            problem: index.graphs.length === 0 && index.error ? index.error.message : null,
          };
        },
        (e: unknown) => {
          entry.listing = { graphs: [], problem: loadProblem(e) };
        },
      );
      scans.set(absPath, entry);
      return entry.pending;
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
