import { closeSync, fstatSync, openSync } from 'node:fs';
import { buildVisIndex, VisIndexError } from './buildIndex.js';
import { fileSource } from './byteSource.js';
import { packIndex, type PackedIndex } from './indexCodec.js';
import { DEFAULT_CACHE_MAX_BYTES, markUsed, pruneCache } from './cachePrune.js';
import { indexCachePath, readIndexCache, writeIndexCache } from './indexCache.js';
import { sameStamp, type FileStamp } from './visIndex.js';

/**
 * One indexing job, the same code in the worker thread (indexWorker.ts) and, when no worker script is available,
 * in the calling thread: reuse the cached index if it matches the file's stamp, else stream the file, then try to
 * cache the result. Messages go out through `post`, so the caller decides whether they cross a thread boundary.
 */

export interface IndexJobInput {
  absPath: string;
  stamp: FileStamp;
  /** null: no cache (in-memory only). */
  cacheDir: string | null;
  /** Size the cache is pruned to after an index is written (cachePrune.ts; default 4 GiB). */
  cacheMaxBytes?: number;
  chunkSize?: number;
}

export type IndexJobMessage =
  | { type: 'progress'; bytesRead: number }
  | { type: 'done'; packed: PackedIndex; fromCache: boolean }
  | { type: 'warning'; message: string }
  | { type: 'error'; problem: string };

/** Progress at most this often, so a fast index does not flood the parent with messages. */
const PROGRESS_EVERY_MS = 100;

export function runIndexJob(input: IndexJobInput, post: (msg: IndexJobMessage) => void): void {
  if (input.cacheDir) {
    const cached = readIndexCache(input.cacheDir, input.absPath, input.stamp);
    if (cached) {
      markUsed(indexCachePath(input.cacheDir, input.absPath));
      post({ type: 'done', packed: cached, fromCache: true });
      return;
    }
  }
  let fd: number;
  try {
    fd = openSync(input.absPath, 'r');
  } catch (e) {
    post({ type: 'error', problem: `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}` });
    return;
  }
  let packed: PackedIndex;
  try {
    const st = fstatSync(fd);
    const stamp = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
    // The path was re-pointed between the caller's stat and this open: index what is there, under its own stamp.
    let last = 0;
    const index = buildVisIndex(fileSource(fd, st.size), {
      stamp: sameStamp(stamp, input.stamp) ? input.stamp : stamp,
      chunkSize: input.chunkSize,
      onRead: (bytesRead) => {
        const now = Date.now();
        if (now - last < PROGRESS_EVERY_MS) return;
        last = now;
        post({ type: 'progress', bytesRead });
      },
    });
    const after = fstatSync(fd);
    if (!sameStamp({ size: after.size, mtimeMs: after.mtimeMs, ino: after.ino }, index.stamp)) {
      post({ type: 'error', problem: 'the file changed while it was being indexed; reload to index it again' });
      return;
    }
    packed = packIndex(index);
  } catch (e) {
    if (e instanceof VisIndexError) {
      post({ type: 'error', problem: e.problem });
      return;
    }
    post({ type: 'error', problem: `cannot index: ${e instanceof Error ? e.message : String(e)}` });
    return;
  } finally {
    closeSync(fd);
  }
  if (input.cacheDir) {
    try {
      writeIndexCache(input.cacheDir, input.absPath, packed);
      pruneCache(input.cacheDir, input.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES, indexCachePath(input.cacheDir, input.absPath));
    } catch (e) {
      // A full or read-only cache directory costs a re-index next time, never the request.
      const reason = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
      post({ type: 'warning', message: `cannot write the index cache in ${input.cacheDir} (${reason}); keeping it in memory` });
    }
  }
  post({ type: 'done', packed, fromCache: false });
}
