import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { readPackedFile, readPackedHeader, writePackedFile } from '../packedFile.js';
import { INDEX_DIR } from './cachePrune.js';
import { unpackIndex, type IndexHeader, type PackedIndex } from './indexCodec.js';
import { INDEX_FORMAT_VERSION, sameStamp, type FileStamp } from './visIndex.js';

/**
 * Index files in a cache directory of ours (never beside the user's files): one per `.vis`, named by a hash of its
 * absolute path, valid while the file's size, mtime and inode are those recorded inside. A packed file
 * (packedFile.ts) without a digest: hashing ~270 MB per 10^6-node file would cost more than a reopen may take, and
 * unpackIndex checks that every array is there with its kind and length.
 */

/** `$XDG_CACHE_HOME/probeboard`, else `~/.cache/probeboard`. */
export function defaultCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'probeboard');
}

export function indexCachePath(cacheDir: string, absPath: string): string {
  const name = createHash('sha256').update(absPath).digest('hex').slice(0, 40);
  return path.join(cacheDir, INDEX_DIR, `${name}.idx`);
}

/** Writes atomically; throws (ENOSPC, EACCES, …) for the caller to log, leaving no partial file behind. */
export function writeIndexCache(cacheDir: string, absPath: string, packed: PackedIndex): void {
  writePackedFile(indexCachePath(cacheDir, absPath), { ...packed.header, absPath }, packed.arrays);
}

/** The cached index for this file at this stamp, or null (absent, stale, another version, damaged). */
export function readIndexCache(cacheDir: string, absPath: string, stamp: FileStamp): PackedIndex | null {
  const packed = readPackedFile(indexCachePath(cacheDir, absPath));
  if (!packed) return null;
  const { absPath: storedPath, ...header } = packed.header as unknown as IndexHeader & { absPath: unknown };
  const index = { header, arrays: packed.arrays };
  try {
    if (header.version !== INDEX_FORMAT_VERSION || storedPath !== absPath || !sameStamp(header.stamp, stamp)) return null;
    // Arrays that do not fit the header are damage: indexed again, never an error.
    unpackIndex(index);
  } catch {
    return null;
  }
  return index;
}

/** Whether a cached index for this file at this stamp is there, from its header alone (the arrays are not read). */
export function hasIndexCache(cacheDir: string, absPath: string, stamp: FileStamp): boolean {
  const header = readPackedHeader(indexCachePath(cacheDir, absPath));
  try {
    return header !== null && header.version === INDEX_FORMAT_VERSION && header.absPath === absPath && sameStamp(header.stamp as FileStamp, stamp);
  } catch {
    return false;
  }
}
