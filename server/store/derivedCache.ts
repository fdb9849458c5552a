import { createHash } from 'node:crypto';
import path from 'node:path';
import { DEFAULT_CACHE_MAX_BYTES, DERIVED_DIR, markUsed, pruneCache } from './visJsonIndex/cachePrune.js';
import { readPackedFile, writePackedFile, type TypedArray } from './packedFile.js';
import { sameStamp, type FileStamp } from './visJsonIndex/visIndex.js';

/**
 * Data a store derives from a user's file and would rather not derive again in the next server process (the
 * `.vis.db` worst table's rated list, heatmap cells…), kept in our cache directory (never beside the user's files):
 * `${cacheDir}/derived/${kind}/${sha256(absPath, key)}.bin`, a packed file (packedFile.ts, with its digest) valid
 * while the source file's size, mtime and inode are those recorded inside. `kind` names the data and its layout:
 * a new layout is a new kind (e.g. `db-rated-v2`), and the old kind's files age out of the cache (cachePrune.ts).
 * Pruned with the index cache, least recently used first, within the one `--cache_max_mb` budget.
 */

/** The container's own version: files of another are ignored. */
const DERIVED_FORMAT = 1;

export type { TypedArray };

interface DerivedHeader {
  format: number;
  kind: string;
  /** The source file (cache pruning drops entries whose source is gone). */
  absPath: string;
  key: string;
  stamp: FileStamp;
  data: Record<string, unknown>;
}

export function derivedCachePath(cacheDir: string, kind: string, absPath: string, key: string): string {
  if (!/^[\w.-]+$/.test(kind)) throw new Error(`derived cache kind "${kind}" is not a plain name`);
  const name = createHash('sha256').update(absPath).update('\0').update(key).digest('hex').slice(0, 40);
  return path.join(cacheDir, DERIVED_DIR, kind, `${name}.bin`);
}

/**
 * Writes atomically (temp + fsync + rename, 0o600), then prunes the cache to `maxBytes`; throws (ENOSPC, EACCES,
 * ENOTDIR…) for the caller to log, leaving no partial file behind.
 */
export function writeDerived(
  cacheDir: string,
  kind: string,
  absPath: string,
  key: string,
  stamp: FileStamp,
  header: Record<string, unknown>,
  arrays: TypedArray[],
  maxBytes = DEFAULT_CACHE_MAX_BYTES,
): void {
  const target = derivedCachePath(cacheDir, kind, absPath, key);
  const stored: DerivedHeader = { format: DERIVED_FORMAT, kind, absPath, key, stamp, data: header };
  writePackedFile(target, stored as unknown as Record<string, unknown>, arrays, { digest: true });
  pruneCache(cacheDir, maxBytes, target);
}

/**
 * The stored header and arrays, or null when absent, made from another version of the file (size, mtime, inode),
 * of another format, or damaged (the caller still checks that the arrays fit what it knows). A hit is marked as just
 * used, for the pruning's order.
 */
export function readDerived(
  cacheDir: string,
  kind: string,
  absPath: string,
  key: string,
  stamp: FileStamp,
): { header: Record<string, unknown>; arrays: TypedArray[] } | null {
  const file = derivedCachePath(cacheDir, kind, absPath, key);
  const packed = readPackedFile(file);
  if (!packed) return null;
  const h = packed.header as Partial<DerivedHeader>;
  if (h.format !== DERIVED_FORMAT || h.kind !== kind || h.absPath !== absPath || h.key !== key) return null;
  if (typeof h.stamp !== 'object' || h.stamp === null || !sameStamp(h.stamp, stamp)) return null;
  if (typeof h.data !== 'object' || h.data === null) return null;
  markUsed(file);
  return { header: h.data, arrays: packed.arrays };
}

/** Where a store or the overlay keeps derived data (null: `--cache_dir` off), and where it reports a failed write. */
export interface DerivedCacheOptions {
  cacheDir: string;
  maxBytes?: number;
  log: (line: string) => void;
}

/** The line a caller logs when writeDerived throws: the data is derived again next time, nothing else is lost. */
export function derivedWriteProblem(cacheDir: string, e: unknown): string {
  const reason = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
  return `cannot write to the cache in ${cacheDir} (${reason}); what it would keep is derived again next time`;
}
