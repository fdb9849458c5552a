import type { Stats } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { TbFormatError } from '../../../src/core/formats/tb/tbError.js';
import { TbView, type PackedTbHierarchy, type StringTable } from '../../../src/core/tbgraph/packed.js';
import { bundledScript } from '../../workers/bundledScript.js';
import { GraphFileError } from '../graphStore.js';
import type { IndexProgress } from '../visJsonIndex/indexJobs.js';
import type { EventFileIndex, EventGraphEntry } from '../../../src/core/formats/tb/eventFile.js';
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
}

type Done = { store: TbGraphStore } | { error: GraphFileError };

/** What tbWorker.ts posts: the packed structure, then the op details; or the one-line problem. */
type TbWorkerMessage = { type: 'structure'; packed: PackedTbHierarchy } | { type: 'details'; ops: StringTable } | { type: 'error'; problem: string };

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

  const load = (input: TbLoadInput, size: number): { promise: Promise<TbView>; cancel(): void } => {
    if (!workerScript || size < inThreadBytes) {
      return { promise: loadTbHierarchy(input).then(({ packed, details }) => new TbView(packed, details())), cancel: () => {} };
    }
    const worker = new Worker(workerScript, { workerData: input });
    let view: TbView | null = null;
    const promise = new Promise<TbView>((resolve, reject) => {
      worker.on('message', (m: TbWorkerMessage) => {
        if (m.type === 'structure') resolve((view = new TbView(m.packed, null)));
        else if (m.type === 'details') {
          view?.setOpDetails(m.ops);
          void worker.terminate();
        } else {
          reject(new TbFormatError(m.problem)); // already the one line loadProblem gives
          void worker.terminate();
        }
      });
      worker.once('error', (e) => {
        reject(e);
        view?.failOpDetails(e.message);
      });
      worker.once('exit', (code) => {
        const problem = `the decoding worker stopped (exit code ${code})`;
        reject(new Error(problem));
        if (view && !view.hasOpDetails) view.failOpDetails(problem);
      });
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
      const scanned = ref.format === 'tfevents' ? scans.get(ref.absPath) : undefined;
      const listed = scanned?.stamp === stamp ? scanned.entries?.find((g) => graph === null || g.tag === graph) : undefined;
      const { promise, cancel } = load({ absPath: ref.absPath, format: ref.format, graph, ...(listed ? { entry: listed } : {}) }, stats.size);
      const entry: { stamp: string; done?: Done; job?: { settled: Promise<unknown>; progress: IndexProgress; cancel(): void } } = { stamp };
      const settled = promise.then(
        (view) => {
          entry.done = { store: new TbGraphStore(view, { file: ref.relPath, run: ref.run, tag: ref.tag, format: ref.format }) };
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
