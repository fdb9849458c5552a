import { TorchPtError } from './torchPtError.js';

/**
 * The zip container of torch.save files: locating the central directory (zip64 too), listing entries, and where an
 * entry's data starts. Pure: the caller reads the byte ranges, so a multi-gigabyte storage entry is never loaded.
 */

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** Where the central directory is, from the file's tail (read at least the last 22 + 65535 bytes, or all). */
export interface ZipDirectoryLocation {
  offset: number;
  size: number;
  /** Zip64: the 56-byte zip64 end record must be read at this offset first (then call `zip64Directory`). */
  zip64RecordOffset?: number;
}

const u16 = (b: Uint8Array, p: number) => b[p] | (b[p + 1] << 8);
const u32 = (b: Uint8Array, p: number) => (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16)) + b[p + 3] * 2 ** 24;
const u64 = (b: Uint8Array, p: number) => u32(b, p) + u32(b, p + 4) * 2 ** 32;

export function locateZipDirectory(tail: Uint8Array, fileSize: number, file: string): ZipDirectoryLocation {
  for (let p = tail.length - 22; p >= 0; p--) {
    if (u32(tail, p) !== 0x06054b50) continue;
    const size = u32(tail, p + 12);
    const offset = u32(tail, p + 16);
    if (offset === 0xffffffff || size === 0xffffffff || u16(tail, p + 10) === 0xffff) {
      const loc = p - 20;
      if (loc < 0 || u32(tail, loc) !== 0x07064b50) throw new TorchPtError(file, 'broken zip64 end of central directory');
      return { offset: 0, size: 0, zip64RecordOffset: u64(tail, loc + 8) };
    }
    if (offset + size > fileSize) throw new TorchPtError(file, 'zip central directory lies outside the file');
    return { offset, size };
  }
  throw new TorchPtError(file, 'not a torch.save zip file (no end of central directory); legacy .pt files are not supported');
}

export function zip64Directory(record: Uint8Array, file: string): ZipDirectoryLocation {
  if (u32(record, 0) !== 0x06064b50) throw new TorchPtError(file, 'broken zip64 end of central directory record');
  return { size: u64(record, 40), offset: u64(record, 48) };
}

export function parseZipDirectory(cd: Uint8Array, file: string): ZipEntry[] {
  const entries: ZipEntry[] = [];
  const names = new TextDecoder();
  let p = 0;
  while (p + 46 <= cd.length && u32(cd, p) === 0x02014b50) {
    const nameLen = u16(cd, p + 28);
    const extraLen = u16(cd, p + 30);
    const commentLen = u16(cd, p + 32);
    let compressedSize = u32(cd, p + 20);
    let size = u32(cd, p + 24);
    let localHeaderOffset = u32(cd, p + 42);
    const name = names.decode(cd.subarray(p + 46, p + 46 + nameLen));
    // Zip64 extra field: 64-bit values for the fields that overflowed, in this order.
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = u16(cd, e);
      const len = u16(cd, e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (size === 0xffffffff) (size = u64(cd, q)), (q += 8);
        if (compressedSize === 0xffffffff) (compressedSize = u64(cd, q)), (q += 8);
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = u64(cd, q);
      }
      e += 4 + len;
    }
    entries.push({ name, method: u16(cd, p + 10), compressedSize, size, localHeaderOffset });
    p = extraEnd + commentLen;
  }
  if (entries.length === 0) throw new TorchPtError(file, 'empty or unreadable zip central directory');
  return entries;
}

/** Offset of an entry's data, from the first 30 bytes of its local header. */
export function localDataOffset(localHeader: Uint8Array, entry: ZipEntry, file: string): number {
  if (u32(localHeader, 0) !== 0x04034b50) throw new TorchPtError(file, `broken zip local header for ${entry.name}`);
  return entry.localHeaderOffset + 30 + u16(localHeader, 26) + u16(localHeader, 28);
}

/** Raw DEFLATE decompression (the caller's: Node's zlib, or a library in a browser). */
export type Inflate = (raw: Uint8Array) => Uint8Array;

/** Entry bytes → uncompressed bytes (stored or deflated). */
export function entryBytes(raw: Uint8Array, entry: ZipEntry, file: string, inflate: Inflate): Uint8Array {
  if (entry.method === 0) return raw;
  if (entry.method === 8) {
    try {
      return inflate(raw);
    } catch (e) {
      throw new TorchPtError(file, `zip entry ${entry.name} is corrupt (${(e as Error).message})`);
    }
  }
  throw new TorchPtError(file, `zip entry ${entry.name} uses unsupported compression method ${entry.method}`);
}
