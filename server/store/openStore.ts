import { createHash } from 'node:crypto';
import { readFileSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { GraphType } from '../../src/core/api/types.js';
import type { DerivedCacheOptions } from './derivedCache.js';
import { GraphFileError, LockedFileError, StaleFileError, type GraphStore } from './graphStore.js';
import { createFindPool, defaultFindWorkerScript, type FindRequest } from './findPool.js';
import { asFileError, dbStamp } from './visDb/openDb.js';
import { VisDbStore } from './visDb/visDbStore.js';
import { parseShardTag, planShardSet, truncationProblem, type ShardProbe, type ShardTag } from './visDb/shardSet.js';
import { ShardSetStore } from './visDb/shardSetStore.js';
import { buildVisIndex, VisIndexError } from './visJsonIndex/buildIndex.js';
import { bufferSource } from './visJsonIndex/byteSource.js';
import { defaultCacheDir, hasIndexCache } from './visJsonIndex/indexCache.js';
import { unpackIndex } from './visJsonIndex/indexCodec.js';
import { runIndexJob } from './visJsonIndex/indexJob.js';
import { defaultIndexWorkerScript, IndexJobFailure, startIndexJob, type IndexJobHandle, type IndexProgress } from './visJsonIndex/indexJobs.js';
import { fileBytes, memoryBytes } from './visJsonIndex/nodeBytes.js';
import type { FileStamp, VisIndex } from './visJsonIndex/visIndex.js';
import { VisIndexStore } from './visJsonIndex/visIndexStore.js';
import { createTbCache, type TbCache } from './tbGraph/tbCache.js';
import { isTbFormat, type TbFormat } from './tbGraph/tbFiles.js';

/**
 * Opens the right GraphStore for a graph file and keeps a few open. Entries are keyed by absolute path and checked
 * against a stamp (size + mtime + inode, and the live WAL for `.vis.db`), so a file rewritten on disk is reopened,
 * and two browser tabs on two files each get their own store (no process-global "current file" as in the reference
 * viewer, reference-viewer.md §4.2). Failures are remembered the same way.
 *
 * Large `.vis` files are indexed in a worker thread: while that runs, `open` answers `{indexing}` with the bytes read
 * (routes answer 202), and every request for the file shares the one job. Small files are indexed in memory at once.
 */

/** msprobe's `.vis` / `.vis.db`, and the TensorBoard-side formats (issue 16) that tbGraph/tbCache.ts opens. */
export type GraphFormat = 'vis' | 'db' | TbFormat;

export interface GraphFileRef {
  absPath: string;
  /** Relative to the log dir; named in errors. */
  relPath: string;
  format: GraphFormat;
  run: string;
  tag: string;
  /**
   * The shard files of one `graph --shard` build served as one graph (issue 19, visDb/shardSet.ts), in name order;
   * `absPath` is the first of them, `tag` the set's (no shard suffix), `relPath` names the set.
   */
  shards?: ShardFileRef[];
}

/** One file of a shard set: its path and its own tag (`…_shard{K}of{N}`). */
export interface ShardFileRef {
  absPath: string;
  relPath: string;
  tag: string;
}

/**
 * `stamp`: the file version the store reads (size, mtime, inode, live WAL), as meta answers it and saves check it.
 * `settled` (TensorBoard graphs): resolves when the load ends, so a route may wait briefly rather than answer 202.
 */
export type OpenResult = { store: GraphStore; stamp: string } | { indexing: IndexProgress; settled?: Promise<unknown> };
type Outcome = { store: GraphStore } | { error: GraphFileError };
interface Entry {
  stamp: string;
  outcome: Outcome;
}

export interface StoreCacheOptions {
  maxOpen?: number;
  maxErrors?: number;
  /**
   * Where `.vis` indexes and derived data (a `.vis.db`'s worst-table lists, derivedCache.ts) are cached; null = keep
   * them in memory only. Default: defaultCacheDir().
   */
  cacheDir?: string | null;
  /** The cache is pruned to this size (least recently used first) after each new index; default 4 GiB. */
  cacheMaxBytes?: number;
  /** Bundled indexWorker.js; null = index in this thread. Default: found next to the server bundle. */
  indexWorkerScript?: string | null;
  /** Bundled tbWorker.js that decodes large TensorBoard / ONNX graphs; null = in this thread. Default: next to the bundle. */
  tbWorkerScript?: string | null;
  /** TensorBoard / ONNX files smaller than this decode in this thread (default: tbCache.ts). */
  tbInThreadBytes?: number;
  /** Bundled findWorker.js that runs searches and filters; null = in this thread. Default: next to the bundle. */
  findWorkerScript?: string | null;
  /** `.vis` files smaller than this are read whole and indexed at once, in this thread (default 16 MiB). */
  inThreadBytes?: number;
  /** Read size while indexing (tests use tiny chunks). */
  chunkSize?: number;
  /** One line per problem that does not fail a request (an unwritable cache directory). */
  log?: (line: string) => void;
  /** Worker indexing jobs starting and finishing (logs, tests, benchmarks). */
  onIndex?: (event: IndexEvent) => void;
}

export type IndexEvent =
  | { phase: 'start'; file: string; bytes: number }
  | { phase: 'done'; file: string; bytes: number; fromCache: boolean; seconds: number }
  | { phase: 'failed'; file: string; bytes: number; problem: string };

/** A `.vis.db`'s graph type, or its problem, and its shard record when it is a shard (issue 19). */
export type DbProbe = ShardProbe;

export interface StoreCache {
  /** The store for `ref`, opened, reused, or still indexing. Throws GraphFileError when the file cannot be read. */
  open(ref: GraphFileRef): OpenResult;
  /** What is known about the file at its current stamp without opening it: a store, an error, or nothing. */
  peek(absPath: string, stats: Stats, format: GraphFormat): Outcome | undefined;
  /** A `.vis.db`'s graph type or problem for the run listing (memoised per stamp). */
  probeDb(ref: GraphFileRef, stats: Stats): DbProbe;
  /**
   * A search or filter of `store` (just opened for `ref`) as JSON text, off this thread when the find worker exists
   * (findPool.ts). Rejects like the store (GraphFileError…), or with WorkBudgetExceeded past `budgetMs` or on `signal`.
   */
  find(ref: GraphFileRef, store: GraphStore, request: FindRequest, budgetMs: number, signal?: AbortSignal): Promise<string>;
  /** Drops what is open or remembered for the file: this process just rewrote it (issue 15's overwrite). */
  forget(absPath: string): void;
  /** Closes every store and ends the worker threads. */
  closeAll(): void;
  /** TensorBoard-side graphs and event-file listings (issue 16). */
  tb: TbCache;
  /** The cache directory for data derived from files (derivedCache.ts), null when caching is off. */
  derived: DerivedCacheOptions | null;
}

export const DEFAULT_IN_THREAD_BYTES = 16 * 1024 * 1024;

export function createStoreCache(options: StoreCacheOptions = {}): StoreCache {
  const maxOpen = options.maxOpen ?? 4;
  const maxErrors = options.maxErrors ?? 256;
  const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
  const workerScript = options.indexWorkerScript === undefined ? defaultIndexWorkerScript() : options.indexWorkerScript;
  const inThreadBytes = options.inThreadBytes ?? DEFAULT_IN_THREAD_BYTES;
  const logged = new Set<string>();
  const log = (line: string) => {
    // One line per distinct problem, not one per file or request.
    if (logged.has(line)) return;
    logged.add(line);
    (options.log ?? ((l: string) => console.warn(`probeboard: ${l}`)))(line);
  };
  // Map iteration order is insertion order: re-inserting on use makes the first key the least recently used.
  const stores = new Map<string, Entry>();
  const errors = new Map<string, Entry>();
  const jobs = new Map<string, { stamp: string; handle: IndexJobHandle }>();
  const probes = new Map<string, { stamp: string; probe: DbProbe }>();
  const findWorkerScript = options.findWorkerScript === undefined ? defaultFindWorkerScript() : options.findWorkerScript;
  // Without the worker a heatmap opens the run's other rank files through this cache.
  const finder = createFindPool({
    workerScript: findWorkerScript,
    data: { cacheDir, cacheMaxBytes: options.cacheMaxBytes, chunkSize: options.chunkSize },
    open: (ref) => cache.open(ref),
  });

  const remember = (map: Map<string, Entry>, key: string, entry: Entry, max: number) => {
    const old = map.get(key);
    map.delete(key);
    if (old && 'store' in old.outcome && old.outcome !== entry.outcome) old.outcome.store.close();
    map.set(key, entry);
    while (map.size > max) {
      const [oldest, evicted] = map.entries().next().value!;
      map.delete(oldest);
      if ('store' in evicted.outcome) evicted.outcome.store.close();
    }
  };

  const lookup = (absPath: string, stamp: string): Outcome | undefined => {
    for (const map of [stores, errors]) {
      const hit = map.get(absPath);
      if (!hit) continue;
      if (hit.stamp === stamp) return hit.outcome;
      map.delete(absPath);
      if ('store' in hit.outcome) hit.outcome.store.close();
    }
    return undefined;
  };

  const indexStore = (ref: GraphFileRef, index: VisIndex) =>
    new VisIndexStore(index, fileBytes(ref.absPath, ref.relPath, index.stamp), named(ref));

  /** The stamp each file was last handed to the find worker at (FindPool.prepare). */
  const prepared = new Map<string, string>();
  /**
   * Has the find worker open a file this process opens, when that is quick: a `.vis.db`, a `.vis` read whole, or one
   * whose index is cached (loaded, not built again, in the worker).
   */
  const prepare = (ref: GraphFileRef, stamp: string, fileStamp: FileStamp) => {
    if (prepared.get(ref.absPath) === stamp) return;
    if (ref.format === 'vis' && fileStamp.size >= inThreadBytes && !(cacheDir && hasIndexCache(cacheDir, ref.absPath, fileStamp))) return;
    prepared.set(ref.absPath, stamp);
    finder.prepare(ref);
  };

  /** Starts (or joins) the worker job for a large `.vis`; the store lands in `stores` when it finishes. */
  const startJob = (ref: GraphFileRef, stamp: string, fileStamp: FileStamp): IndexProgress => {
    const running = jobs.get(ref.absPath);
    if (running?.stamp === stamp) return running.handle.progress;
    running?.handle.cancel();
    const handle = startIndexJob({ absPath: ref.absPath, stamp: fileStamp, cacheDir, cacheMaxBytes: options.cacheMaxBytes, chunkSize: options.chunkSize }, { workerScript, log });
    jobs.set(ref.absPath, { stamp, handle });
    const started = performance.now();
    const bytes = fileStamp.size;
    options.onIndex?.({ phase: 'start', file: ref.relPath, bytes });
    // An index in the cache: the worker loads its copy meanwhile, rather than when it is first asked.
    prepare(ref, stamp, fileStamp);
    handle.done.then(
      (index) => {
        if (jobs.get(ref.absPath)?.handle !== handle) return;
        jobs.delete(ref.absPath);
        const seconds = (performance.now() - started) / 1000;
        options.onIndex?.({ phase: 'done', file: ref.relPath, bytes, fromCache: handle.fromCache, seconds });
        try {
          remember(stores, ref.absPath, { stamp: stampOfFile(index.stamp), outcome: { store: indexStore(ref, index) } }, maxOpen);
          prepare(ref, stampOfFile(index.stamp), index.stamp);
        } catch (e) {
          // Changed again since: the next request stats it and starts over.
          if (!(e instanceof StaleFileError)) throw e;
        }
      },
      (e: unknown) => {
        if (jobs.get(ref.absPath)?.handle !== handle) return;
        jobs.delete(ref.absPath);
        const problem = e instanceof IndexJobFailure ? e.problem : String(e);
        options.onIndex?.({ phase: 'failed', file: ref.relPath, bytes, problem });
        remember(errors, ref.absPath, { stamp, outcome: { error: new GraphFileError(ref.relPath, problem) } }, maxErrors);
      },
    );
    return handle.progress;
  };

  const openVis = (ref: GraphFileRef, stats: Stats, stamp: string): { store: GraphStore } | { indexing: IndexProgress } => {
    const fileStamp = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
    if (stats.size < inThreadBytes) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(ref.absPath);
      } catch (e) {
        throw new GraphFileError(ref.relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
      try {
        const index = buildVisIndex(bufferSource(bytes), { stamp: fileStamp, chunkSize: options.chunkSize });
        return { store: new VisIndexStore(index, memoryBytes(bytes), named(ref)) };
      } catch (e) {
        if (e instanceof VisIndexError) throw new GraphFileError(ref.relPath, e.problem);
        throw e;
      }
    }
    if (workerScript) return { indexing: startJob(ref, stamp, fileStamp) };
    // No worker script (TypeScript sources): the same job, in this thread, before answering.
    let result: VisIndex | GraphFileError | undefined;
    runIndexJob({ absPath: ref.absPath, stamp: fileStamp, cacheDir, cacheMaxBytes: options.cacheMaxBytes, chunkSize: options.chunkSize }, (msg) => {
      if (msg.type === 'done') result = unpackIndex(msg.packed);
      else if (msg.type === 'error') result = new GraphFileError(ref.relPath, msg.problem);
      else if (msg.type === 'warning') log(msg.message);
    });
    if (result instanceof GraphFileError) throw result;
    return { store: indexStore(ref, result!) };
  };

  const tb = createTbCache({
    workerScript: options.tbWorkerScript,
    inThreadBytes: options.tbInThreadBytes,
    derived: cacheDir ? { cacheDir, maxBytes: options.cacheMaxBytes, log } : null,
    onIndex: options.onIndex,
  });

  /**
   * A shard set (issue 19): its files probed (memoised per stamp, as the listing probes them), planned as the listing
   * plans them, and served by one ShardSetStore whose stamp covers every file, so that a shard added, removed or
   * rebuilt opens the set again.
   */
  const openSet = (ref: GraphFileRef, files: ShardFileRef[]): OpenResult => {
    const present: Array<{ f: ShardFileRef; name: ShardTag; stats: Stats }> = [];
    const stamps: string[] = [];
    for (const f of files) {
      const name = parseShardTag(f.tag);
      if (!name) continue;
      let stats: Stats;
      try {
        stats = statSync(f.absPath);
      } catch {
        continue; // removed since the request was resolved: not part of the set now
      }
      stamps.push(`${f.absPath}\0${dbStamp(f.absPath, stats)}`);
      present.push({ f, name, stats });
    }
    const key = `${path.dirname(ref.absPath)}\0${ref.tag}\0shards`;
    const stamp = `shards:${createHash('sha256').update(stamps.join('\0')).digest('hex').slice(0, 24)}`;
    const known = lookup(key, stamp);
    if (known) {
      if ('error' in known) throw known.error;
      remember(stores, key, { stamp, outcome: known }, maxOpen);
      return { store: known.store, stamp };
    }
    const candidates = present.map(({ f, name, stats }) => {
      const fileRef: GraphFileRef = { absPath: f.absPath, relPath: f.relPath, format: 'db', run: ref.run, tag: f.tag };
      return { ref: fileRef, relPath: f.relPath, name, probe: cache.probeDb(fileRef, stats) };
    });
    const plan = planShardSet(ref.relPath, candidates);
    if (plan.members.length === 0) {
      const first = plan.error?.params;
      const error = new GraphFileError(String(first?.file ?? ref.relPath), String(first?.problem ?? 'no shard file'));
      // A lock passes: only lasting problems are remembered, as for one file.
      if (!candidates.some((c) => c.probe.error instanceof LockedFileError)) remember(errors, key, { stamp, outcome: { error } }, maxErrors);
      throw error;
    }
    const store = new ShardSetStore({ file: ref.relPath, run: ref.run, tag: ref.tag }, plan.members, (m) =>
      new VisDbStore(m.absPath, { ...named(m), cacheDir, cacheMaxBytes: options.cacheMaxBytes, log }),
    );
    remember(stores, key, { stamp, outcome: { store } }, maxOpen);
    return { store, stamp };
  };

  const cache: StoreCache = {
    derived: cacheDir ? { cacheDir, maxBytes: options.cacheMaxBytes, log } : null,
    tb,
    open(ref) {
      let stats: Stats;
      try {
        stats = statSync(ref.absPath);
      } catch (e) {
        // Deleted while served: let go of what was open on it.
        lookup(ref.absPath, '');
        jobs.get(ref.absPath)?.handle.cancel();
        jobs.delete(ref.absPath);
        throw new GraphFileError(ref.relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
      if (isTbFormat(ref.format)) return tb.open({ ...ref, format: ref.format }, stats);
      if (ref.shards) return openSet(ref, ref.shards);
      const stamp = stampOf(ref.absPath, stats, ref.format);
      const known = lookup(ref.absPath, stamp);
      if (known) {
        if ('error' in known) throw known.error;
        remember(stores, ref.absPath, { stamp, outcome: known }, maxOpen);
        return { store: known.store, stamp };
      }
      try {
        const result =
          ref.format === 'db'
            ? { store: new VisDbStore(ref.absPath, { ...named(ref), cacheDir, cacheMaxBytes: options.cacheMaxBytes, log }) }
            : openVis(ref, stats, stamp);
        if (!('store' in result)) return result;
        remember(stores, ref.absPath, { stamp, outcome: { store: result.store } }, maxOpen);
        prepare(ref, stamp, { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
        return { store: result.store, stamp };
      } catch (e) {
        // A changed or locked file may open on the next request: only lasting problems are remembered.
        if (e instanceof GraphFileError && !(e instanceof StaleFileError) && !(e instanceof LockedFileError)) {
          remember(errors, ref.absPath, { stamp, outcome: { error: e } }, maxErrors);
        }
        throw e;
      }
    },
    peek(absPath, stats, format) {
      return lookup(absPath, stampOf(absPath, stats, format));
    },
    probeDb(ref, stats) {
      const stamp = stampOf(ref.absPath, stats, 'db');
      // Whatever goes wrong with one file is that file's error in the listing, never the listing's (issue 12 #1).
      const known = lookup(ref.absPath, stamp);
      if (known && 'error' in known) return { graphType: null, error: known.error, shard: null };
      if (known) {
        try {
          const shard = known.store instanceof VisDbStore ? known.store.shardMeta() : null;
          return { graphType: known.store.meta().graphType, error: null, shard };
        } catch (e) {
          return { graphType: null, error: asFileError(ref.relPath, e), shard: null };
        }
      }
      const hit = probes.get(ref.absPath);
      if (hit?.stamp === stamp) return hit.probe;
      let probe: DbProbe;
      let store: VisDbStore | undefined;
      try {
        store = new VisDbStore(ref.absPath, named(ref));
        const graphType = store.meta().graphType;
        const shard = store.shardMeta();
        // A shard cut short by a killed job may still answer its first pages (issue 19): its header says so.
        const truncated = shard ? truncationProblem(ref.absPath, stats.size) : null;
        probe = truncated ? { graphType: null, error: new GraphFileError(ref.relPath, truncated), shard: null } : { graphType, error: null, shard };
      } catch (e) {
        // A file that fails to open because it was cut short: said so rather than SQLite's "malformed".
        const truncated = truncationProblem(ref.absPath, stats.size);
        probe = { graphType: null, error: truncated ? new GraphFileError(ref.relPath, truncated) : asFileError(ref.relPath, e), shard: null };
      } finally {
        store?.close();
      }
      if (!(probe.error instanceof LockedFileError)) probes.set(ref.absPath, { stamp, probe });
      return probe;
    },
    find: (ref, store, request, budgetMs, signal) => finder.find(ref, store, request, budgetMs, signal),
    forget(absPath) {
      tb.forget(absPath);
      lookup(absPath, '');
      jobs.get(absPath)?.handle.cancel();
      jobs.delete(absPath);
      probes.delete(absPath);
    },
    closeAll() {
      finder.close();
      tb.closeAll();
      for (const entry of stores.values()) if ('store' in entry.outcome) entry.outcome.store.close();
      for (const job of jobs.values()) job.handle.cancel();
      stores.clear();
      errors.clear();
      jobs.clear();
      probes.clear();
    },
  };
  return cache;
}

/** What a store names in errors and meta. */
function named(ref: GraphFileRef): { file: string; run: string; tag: string } {
  return { file: ref.relPath, run: ref.run, tag: ref.tag };
}

/** The stamp a file has now, as `open` answers it (GraphMeta.stamp); throws like statSync. */
export function currentStamp(absPath: string, format: GraphFormat): string {
  return stampOf(absPath, statSync(absPath), format);
}

function stampOf(absPath: string, stats: Stats, format: GraphFormat): string {
  return format === 'db' ? dbStamp(absPath, stats) : stampOfFile(stats);
}

function stampOfFile(s: FileStamp): string {
  return `${s.size}:${s.mtimeMs}:${s.ino}`;
}
