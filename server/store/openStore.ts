import { readFileSync, statSync, type Stats } from 'node:fs';
import { GraphFileError, type GraphStore } from './graphStore.js';
import { VisJsonStore } from './visJson/visJsonStore.js';

/**
 * Opens the right GraphStore for a graph file and keeps a few open. Entries are keyed by absolute path and
 * checked against size + mtime + inode, so a file rewritten on disk is reopened, and two browser tabs on two files
 * each get their own store (no process-global "current file" as in the reference viewer, reference-viewer.md §4.2).
 * Failures are remembered the same way, so the listing can show why a file would not open without re-reading it.
 */

export type GraphFormat = 'vis' | 'db';

export interface GraphFileRef {
  absPath: string;
  /** Relative to the log dir; named in errors. */
  relPath: string;
  format: GraphFormat;
  run: string;
  tag: string;
}

/** A `.vis.db` found before its store exists. */
export class DbNotSupportedError extends GraphFileError {
  constructor(file: string) {
    super(file, '.vis.db files open in a later version of probeboard');
    this.name = 'DbNotSupportedError';
  }
}

/** Whole-file parsing holds a JS string; V8 strings stop near 2^29 characters. Issue 4's streamed index lifts this. */
export const MAX_VIS_BYTES = 512 * 1024 * 1024;

type Outcome = { store: GraphStore } | { error: GraphFileError };
interface Entry {
  stamp: string;
  outcome: Outcome;
}

export interface StoreCache {
  /** The store for `ref`, opened or reused. Throws GraphFileError when the file cannot be read as a graph. */
  open(ref: GraphFileRef): GraphStore;
  /** What is known about the file at its current stamp without opening it: a store, an error, or nothing. */
  peek(absPath: string, stats: Stats): Outcome | undefined;
  closeAll(): void;
}

export function createStoreCache(options: { maxOpen?: number; maxErrors?: number } = {}): StoreCache {
  const maxOpen = options.maxOpen ?? 4;
  const maxErrors = options.maxErrors ?? 256;
  // Map iteration order is insertion order: re-inserting on use makes the first key the least recently used.
  const stores = new Map<string, Entry>();
  const errors = new Map<string, Entry>();

  const remember = (map: Map<string, Entry>, key: string, entry: Entry, max: number) => {
    map.delete(key);
    map.set(key, entry);
    while (map.size > max) {
      const [oldest, old] = map.entries().next().value!;
      map.delete(oldest);
      if ('store' in old.outcome) old.outcome.store.close();
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

  return {
    open(ref) {
      let stats: Stats;
      try {
        stats = statSync(ref.absPath);
      } catch (e) {
        throw new GraphFileError(ref.relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
      const stamp = stampOf(stats);
      const known = lookup(ref.absPath, stamp);
      if (known) {
        if ('error' in known) throw known.error;
        remember(stores, ref.absPath, { stamp, outcome: known }, maxOpen);
        return known.store;
      }
      try {
        const store = openUncached(ref, stats);
        remember(stores, ref.absPath, { stamp, outcome: { store } }, maxOpen);
        return store;
      } catch (e) {
        if (e instanceof GraphFileError) remember(errors, ref.absPath, { stamp, outcome: { error: e } }, maxErrors);
        throw e;
      }
    },
    peek(absPath, stats) {
      return lookup(absPath, stampOf(stats));
    },
    closeAll() {
      for (const entry of stores.values()) if ('store' in entry.outcome) entry.outcome.store.close();
      stores.clear();
      errors.clear();
    },
  };
}

function stampOf(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`;
}

function openUncached(ref: GraphFileRef, stats: Stats): GraphStore {
  if (ref.format === 'db') throw new DbNotSupportedError(ref.relPath);
  if (stats.size > MAX_VIS_BYTES) {
    throw new GraphFileError(
      ref.relPath,
      `${Math.round(stats.size / 2 ** 20)} MiB is over the ${MAX_VIS_BYTES / 2 ** 20} MiB this version opens`,
    );
  }
  let text: string;
  try {
    text = readFileSync(ref.absPath, 'utf8');
  } catch (e) {
    throw new GraphFileError(ref.relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return new VisJsonStore(text, { file: ref.relPath, run: ref.run, tag: ref.tag });
}
