import { existsSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { readPackedHeader } from '../packedFile.js';

/**
 * Keeps the cache directory from growing without end: every large `.vis` ever opened leaves its index behind
 * (`vis-index/*.idx`, indexCache.ts), and stores leave derived data (`derived/<kind>/*.bin`, derivedCache.ts). After
 * either is written the cache drops, in this order: temporary files older than an hour (a writer that crashed),
 * entries whose source file no longer exists, then the least recently used entries of both kinds until the total
 * fits `maxBytes` (one budget: an index is ~110 bytes a node, a `.vis.db` rated list 16). Using an entry marks it (its mtime),
 * so what a user keeps opening stays. All of it is best effort: a file that cannot be listed or removed is left alone.
 */

/** Default size of the cache. */
export const DEFAULT_CACHE_MAX_BYTES = 4 * 2 ** 30;
export const INDEX_DIR = 'vis-index';
export const DERIVED_DIR = 'derived';

const STALE_TEMP_MS = 60 * 60 * 1000;

export interface PruneResult {
  removed: string[];
  keptBytes: number;
}

/** Marks a cache entry as just used. */
export function markUsed(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // gone or read-only: it only loses its place in the order
  }
}

export function pruneCache(cacheDir: string, maxBytes: number, keep: string | null = null, now = Date.now()): PruneResult {
  const removed: string[] = [];
  const remove = (file: string): void => {
    try {
      rmSync(file, { force: true });
      removed.push(file);
    } catch {
      // left for the next time
    }
  };
  const live: Array<{ file: string; size: number; used: number }> = [];
  const derived = path.join(cacheDir, DERIVED_DIR);
  const dirs = [{ dir: path.join(cacheDir, INDEX_DIR), ext: '.idx' }, ...listNames(derived).map((kind) => ({ dir: path.join(derived, kind), ext: '.bin' }))];
  for (const { dir, ext } of dirs) {
    for (const name of listNames(dir)) {
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
      if (!name.endsWith(ext)) continue;
      if (file !== keep) {
        const source = readPackedHeader(file)?.absPath;
        if (typeof source === 'string' && !existsSync(source)) {
          remove(file);
          continue;
        }
      }
      live.push({ file, size: st.size, used: st.mtimeMs });
    }
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

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
