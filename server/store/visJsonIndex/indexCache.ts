import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDirs } from '../../makeDirs.js';
import { allocate, type IndexHeader, type PackedIndex } from './indexCodec.js';
import { INDEX_FORMAT_VERSION, sameStamp, type FileStamp } from './visIndex.js';

/**
 * Index files in a cache directory of ours (never beside the user's files): one per `.vis`, named by a hash of its
 * absolute path, valid while the file's size, mtime and inode are those recorded inside. Written to a temporary name,
 * fsynced and renamed, so a reader sees a whole file or none.
 *
 * Layout: 8-byte magic, u32 header length, header JSON, padding to 8, then each array's bytes padded to 8.
 */

const MAGIC = Buffer.from('PBVIDX\0\x01', 'latin1');

/** `$XDG_CACHE_HOME/probeboard`, else `~/.cache/probeboard`. */
export function defaultCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'probeboard');
}

export function indexCachePath(cacheDir: string, absPath: string): string {
  const name = createHash('sha256').update(absPath).digest('hex').slice(0, 40);
  return path.join(cacheDir, 'vis-index', `${name}.idx`);
}

interface StoredHeader extends IndexHeader {
  absPath: string;
  /** Byte offset of each array, relative to the data start (the first multiple of 8 after the header). */
  offsets: number[];
}

const pad8 = (n: number) => Math.ceil(n / 8) * 8;

/** Writes atomically; throws (ENOSPC, EACCES, …) for the caller to log, leaving no partial file behind. */
export function writeIndexCache(cacheDir: string, absPath: string, packed: PackedIndex): void {
  const target = indexCachePath(cacheDir, absPath);
  makeDirs(path.dirname(target));
  const offsets: number[] = [];
  let pos = 0;
  for (const a of packed.arrays) {
    offsets.push(pos);
    pos = pad8(pos + a.byteLength);
  }
  const header = Buffer.from(JSON.stringify({ ...packed.header, absPath, offsets } satisfies StoredHeader));
  const dataStart = pad8(MAGIC.length + 4 + header.length);

  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    const lead = Buffer.alloc(MAGIC.length + 4);
    MAGIC.copy(lead);
    lead.writeUInt32LE(header.length, MAGIC.length);
    writeAll(fd, lead, 0);
    writeAll(fd, header, lead.length);
    packed.arrays.forEach((a, k) => writeAll(fd, new Uint8Array(a.buffer, a.byteOffset, a.byteLength), dataStart + offsets[k]));
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, target);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw e;
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}

/** The cached index for this file at this stamp, or null (absent, stale, another version, damaged). */
export function readIndexCache(cacheDir: string, absPath: string, stamp: FileStamp): PackedIndex | null {
  let fd: number;
  try {
    fd = openSync(indexCachePath(cacheDir, absPath), 'r');
  } catch {
    return null;
  }
  try {
    const lead = Buffer.alloc(MAGIC.length + 4);
    if (readSync(fd, lead, 0, lead.length, 0) !== lead.length || !lead.subarray(0, MAGIC.length).equals(MAGIC)) return null;
    const headerLength = lead.readUInt32LE(MAGIC.length);
    if (headerLength > 64 * 1024 * 1024) return null;
    const headerBytes = Buffer.alloc(headerLength);
    if (readSync(fd, headerBytes, 0, headerLength, lead.length) !== headerLength) return null;
    const header = JSON.parse(headerBytes.toString('utf8')) as StoredHeader;
    if (header.version !== INDEX_FORMAT_VERSION || header.absPath !== absPath || !sameStamp(header.stamp, stamp)) return null;
    const dataStart = pad8(lead.length + headerLength);
    const specs = [header.sides.npu, header.sides.bench].flatMap((s) => s?.arrays ?? []);
    if (specs.length !== header.offsets.length) return null;
    const arrays = specs.map((spec, k) => {
      const a = allocate(spec);
      const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      for (let done = 0; done < bytes.length; ) {
        const n = readSync(fd, bytes, done, bytes.length - done, dataStart + header.offsets[k] + done);
        if (n <= 0) throw new Error('short read');
        done += n;
      }
      return a;
    });
    const { absPath: _a, offsets: _o, ...rest } = header;
    return { header: rest, arrays };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
