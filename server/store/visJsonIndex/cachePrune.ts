import { closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { indexCachePath } from './indexCache.js';

/**
 * Keeps the index cache from growing without end: every large `.vis` ever opened leaves its index behind. After an
 * index is written the cache drops, in this order: temporary files older than an hour (a writer that crashed),
 * indexes of files that no longer exist, then the least recently used indexes until the total fits `maxBytes`.
 * Using an index marks it (its mtime), so what a user keeps opening stays. All of it is best effort: a file that
 * cannot be listed or removed is left alone.
 */

/** Default size of the index cache. */
export const DEFAULT_CACHE_MAX_BYTES = 4 * 2 ** 30;

const STALE_TEMP_MS = 60 * 60 * 1000;

export interface PruneResult {
  removed: string[];
  keptBytes: number;
}

/** Marks the index of `absPath` as just used. */
export function touchIndexCache(cacheDir: string, absPath: string): void {
  try {
    const now = new Date();
    utimesSync(indexCachePath(cacheDir, absPath), now, now);
  } catch {
    // gone or read-only: it only loses its place in the order
  }
}

export function pruneIndexCache(cacheDir: string, maxBytes: number, keep: string | null = null, now = Date.now()): PruneResult {
  const dir = path.join(cacheDir, 'vis-index');
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { removed, keptBytes: 0 };
  }
  const remove = (file: string): void => {
    try {
      rmSync(file, { force: true });
      removed.push(file);
    } catch {
      // left for the next time
    }
  };
  const live: Array<{ file: string; size: number; used: number }> = [];
  for (const name of names) {
    const file = path.join(dir, name);
    let st;
    try {
      st = statSync(file);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    if (name.endsWith('.tmp')) {
      if (now - st.mtimeMs > STALE_TEMP_MS) remove(file);
      continue;
    }
    if (!name.endsWith('.idx')) continue;
    if (file !== keep) {
      const source = indexedFile(file);
      if (source !== null && !existsSync(source)) {
        remove(file);
        continue;
      }
    }
    live.push({ file, size: st.size, used: st.mtimeMs });
  }
  let total = live.reduce((sum, e) => sum + e.size, 0);
  live.sort((a, b) => a.used - b.used);
  for (const e of live) {
    if (total <= maxBytes) break;
    if (e.file === keep) continue;
    remove(e.file);
    total -= e.size;
  }
  return { removed, keptBytes: total };
}

/** The `.vis` an index file was made from (its header's `absPath`), or null when the header cannot be read. */
function indexedFile(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const lead = Buffer.alloc(12);
    if (readSync(fd, lead, 0, 12, 0) !== 12) return null;
    const length = lead.readUInt32LE(8);
    if (length > 1 << 20) return null;
    const header = Buffer.alloc(length);
    if (readSync(fd, header, 0, length, 12) !== length) return null;
    const absPath = (JSON.parse(header.toString('utf8')) as { absPath?: unknown }).absPath;
    return typeof absPath === 'string' ? absPath : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
