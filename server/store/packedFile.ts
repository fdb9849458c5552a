import { createHash } from 'node:crypto';
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeAtomically } from '../atomicFile.js';
import { makeDirs } from '../makeDirs.js';

/**
 * The one file format of our cache directory (the `.vis` index, derivedCache.ts): a JSON header and typed arrays,
 * written to a temporary name, fsynced and renamed, so a reader sees a whole file or none.
 *
 * Layout: 8-byte magic, u32 header length, header JSON, padding to 8, then each array's bytes padded to 8. The header
 * holds the caller's header and each array's kind, length and offset; the file's size must be exactly what they add
 * up to. With `digest`, a SHA-256 of the array bytes is kept and checked on reading (~1 ms per MB): worth it for small
 * files; the index (hundreds of MB, read on every server start) relies on the size check and its own validation.
 */

const MAGIC = Buffer.from('PBPACK\0\x01', 'latin1');
const LEAD = MAGIC.length + 4;
/** A header larger than this is damage, not data. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;

export type TypedArray = Uint8Array | Int32Array | Uint32Array | Float64Array;
export type ArrayKind = 'u8' | 'i32' | 'u32' | 'f64';

const CTORS = { u8: Uint8Array, i32: Int32Array, u32: Uint32Array, f64: Float64Array } as const;

export function kindOf(a: TypedArray): ArrayKind {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Int32Array) return 'i32';
  if (a instanceof Uint32Array) return 'u32';
  return 'f64';
}

/** An empty array of this kind and length, to read stored bytes into. */
export function allocate(kind: ArrayKind, length: number): TypedArray {
  return new CTORS[kind](length);
}

interface Stored {
  header: Record<string, unknown>;
  layout: Array<{ kind: ArrayKind; length: number; offset: number }>;
  sha256?: string;
}

const pad8 = (n: number) => Math.ceil(n / 8) * 8;
const bytesOf = (a: TypedArray) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Writes `target` atomically (mode 0o600); throws (ENOSPC, EACCES, …) for the caller to log, leaving no partial file. */
export function writePackedFile(target: string, header: Record<string, unknown>, arrays: TypedArray[], options: { digest?: boolean } = {}): void {
  makeDirs(path.dirname(target));
  const layout: Stored['layout'] = [];
  let pos = 0;
  for (const a of arrays) {
    layout.push({ kind: kindOf(a), length: a.length, offset: pos });
    pos = pad8(pos + a.byteLength);
  }
  const stored: Stored = { header, layout };
  if (options.digest) stored.sha256 = digestOf(arrays);
  const json = Buffer.from(JSON.stringify(stored));
  const dataStart = pad8(LEAD + json.length);

  writeAtomically(
    target,
    (fd) => {
      const lead = Buffer.alloc(LEAD);
      MAGIC.copy(lead);
      lead.writeUInt32LE(json.length, MAGIC.length);
      writeAll(fd, lead, 0);
      writeAll(fd, json, LEAD);
      arrays.forEach((a, k) => writeAll(fd, bytesOf(a), dataStart + layout[k].offset));
      // Padding after the last array (or the header), so the size is what the layout says.
      ftruncateSync(fd, dataStart + pos);
    },
    0o600,
  );
}

/** The header and arrays of a packed file; null when it is absent, truncated, of another format or damaged. */
export function readPackedFile(file: string): { header: Record<string, unknown>; arrays: TypedArray[] } | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const stored = readStored(fd);
    if (!stored || !Array.isArray(stored.layout)) return null;
    const dataStart = pad8(LEAD + stored.jsonLength);
    let end = 0;
    for (const spec of stored.layout) {
      if (!(spec.kind in CTORS) || !Number.isSafeInteger(spec.length) || spec.length < 0 || spec.offset !== end) return null;
      end = pad8(end + spec.length * CTORS[spec.kind].BYTES_PER_ELEMENT);
    }
    if (fstatSync(fd).size !== dataStart + end) return null;
    const arrays = stored.layout.map((spec) => {
      const a = allocate(spec.kind, spec.length);
      const bytes = bytesOf(a);
      for (let done = 0; done < bytes.length; ) {
        const n = readSync(fd, bytes, done, bytes.length - done, dataStart + spec.offset + done);
        if (n <= 0) throw new Error('short read');
        done += n;
      }
      return a;
    });
    if (stored.sha256 !== undefined && stored.sha256 !== digestOf(arrays)) return null;
    return { header: stored.header, arrays };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Only the caller's header (cache pruning reads which file an entry was made from); null when unreadable. */
export function readPackedHeader(file: string): Record<string, unknown> | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    return readStored(fd)?.header ?? null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function readStored(fd: number): (Stored & { jsonLength: number }) | null {
  const lead = Buffer.alloc(LEAD);
  if (readSync(fd, lead, 0, LEAD, 0) !== LEAD || !lead.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const jsonLength = lead.readUInt32LE(MAGIC.length);
  if (jsonLength > MAX_HEADER_BYTES) return null;
  const json = Buffer.alloc(jsonLength);
  if (readSync(fd, json, 0, jsonLength, LEAD) !== jsonLength) return null;
  const stored = JSON.parse(json.toString('utf8')) as Stored;
  if (typeof stored !== 'object' || stored === null || typeof stored.header !== 'object' || stored.header === null) return null;
  return { ...stored, jsonLength };
}

function digestOf(arrays: TypedArray[]): string {
  const hash = createHash('sha256');
  for (const a of arrays) hash.update(bytesOf(a));
  return hash.digest('hex');
}

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
