import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { requireRegularFile } from '../compare/regularFile.js';
import { inflateRawSync } from 'node:zlib';
import { decodeElements, fortranToC, npyHeaderLength, parseNpyHeader, type NpyElementType } from '../../src/core/formats/npy.js';
import type { TensorInfo } from '../../src/core/compare/tensorMetrics.js';
import {
  entryBytes,
  findPickleEntry,
  localDataOffset,
  locateZipDirectory,
  parseTorchPickle,
  parseZipDirectory,
  zip64Directory,
} from '../../src/core/formats/torchPt.js';
import { FileProblem } from '../../src/core/fileProblem.js';

/**
 * Node-side reader of one dumped tensor (`.npy` or torch `.pt`), handing out elements as doubles in chunks so a
 * tensor of any size streams through a fixed buffer. C-order data is read straight from the file; other layouts
 * (Fortran order, strided `.pt` views) are gathered in memory when they fit, unless the caller asks for file
 * order (both sides Fortran: pairing in file order is pairing by index).
 */

export class TensorReadError extends FileProblem {
  override name = 'TensorReadError';
}

export interface TensorSource {
  /** dtype as the comparison should see it (msprobe turns `.pt` bfloat16 into float32). */
  info: TensorInfo;
  count: number;
  /** True when the file stores the elements in Fortran order (npy) — see `openTensorFile`'s `fileOrder`. */
  fortranOrder: boolean;
  /** Next up to `max` elements into `out`; returns how many (0 at the end). */
  read(out: Float64Array, max: number): number;
  close(): void;
}

/** Layouts that are not C-contiguous are gathered in memory up to this many elements. */
const MAX_GATHER_ELEMENTS = 128 * 1024 * 1024;
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

function readAt(fd: number, length: number, position: number): Uint8Array {
  // A fresh ArrayBuffer keeps byteOffset 0, so typed-array views over it are aligned.
  const buf = new Uint8Array(new ArrayBuffer(length));
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? buf : buf.subarray(0, done);
}

function product(shape: number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Sequential C-contiguous elements starting at a byte offset. */
class FileRun implements TensorSource {
  private index = 0;
  private scratch: Uint8Array;

  constructor(
    private readonly fd: number,
    private readonly file: string,
    readonly info: TensorInfo,
    readonly count: number,
    private readonly type: NpyElementType,
    private readonly dataOffset: number,
    readonly fortranOrder: boolean,
  ) {
    // Sized to the tensor (most are small), capped at one chunk: the buffer never grows with the file.
    const chunk = READ_CHUNK_BYTES - (READ_CHUNK_BYTES % type.itemSize);
    this.scratch = new Uint8Array(new ArrayBuffer(Math.max(type.itemSize, Math.min(chunk, count * type.itemSize))));
  }

  read(out: Float64Array, max: number): number {
    const n = Math.min(max, this.count - this.index, Math.floor(this.scratch.length / this.type.itemSize));
    if (n <= 0) return 0;
    const bytes = n * this.type.itemSize;
    const position = this.dataOffset + this.index * this.type.itemSize;
    let done = 0;
    while (done < bytes) {
      const got = readSync(this.fd, this.scratch, done, bytes - done, position + done);
      if (got === 0) throw new TensorReadError(this.file, `file ends after ${this.index} of ${this.count} elements`);
      done += got;
    }
    decodeElements(this.scratch.subarray(0, bytes), this.type, out, n);
    this.index += n;
    return n;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Elements already in memory in C order. */
class MemoryRun implements TensorSource {
  private index = 0;
  constructor(
    readonly info: TensorInfo,
    private readonly values: Float64Array,
    readonly fortranOrder: boolean,
  ) {}
  get count(): number {
    return this.values.length;
  }
  read(out: Float64Array, max: number): number {
    const n = Math.min(max, this.values.length - this.index);
    out.set(this.values.subarray(this.index, this.index + n));
    this.index += n;
    return n;
  }
  close(): void {}
}

function gather(fd: number, file: string, type: NpyElementType, dataOffset: number, storageCount: number): Float64Array {
  if (storageCount > MAX_GATHER_ELEMENTS) {
    throw new TensorReadError(file, `non-contiguous layout of ${storageCount} elements is too large to reorder in memory`);
  }
  const bytes = readAt(fd, storageCount * type.itemSize, dataOffset);
  if (bytes.length < storageCount * type.itemSize) throw new TensorReadError(file, 'file is truncated');
  const values = new Float64Array(storageCount);
  decodeElements(bytes, type, values, storageCount);
  return values;
}

function openNpy(fd: number, file: string, fileOrder: boolean): TensorSource {
  const size = fstatSync(fd).size;
  let head = readAt(fd, Math.min(size, 4096), 0);
  const headerLength = npyHeaderLength(head, file);
  if (headerLength === null) throw new TensorReadError(file, 'file too short for a .npy header');
  if (headerLength > head.length) head = readAt(fd, headerLength, 0);
  const header = parseNpyHeader(head, file);
  const count = product(header.shape);
  if (header.dataOffset + count * header.itemSize > size) {
    throw new TensorReadError(file, `file is truncated: ${size} bytes, header promises ${header.dataOffset + count * header.itemSize}`);
  }
  const info: TensorInfo = { dtype: header.dtype, shape: header.shape };
  const fortran = header.fortranOrder && header.shape.filter((d) => d > 1).length > 1;
  if (!fortran || fileOrder) return new FileRun(fd, file, info, count, header, header.dataOffset, fortran);
  const values = fortranToC(gather(fd, file, header, header.dataOffset, count), header.shape);
  closeSync(fd);
  return new MemoryRun(info, values, true);
}

function openPt(fd: number, file: string): TensorSource {
  const size = fstatSync(fd).size;
  const tailLength = Math.min(size, 22 + 65535 + 20);
  const tail = readAt(fd, tailLength, size - tailLength);
  let where = locateZipDirectory(tail, size, file);
  if (where.zip64RecordOffset !== undefined) where = zip64Directory(readAt(fd, 56, where.zip64RecordOffset), file);
  const entries = parseZipDirectory(readAt(fd, where.size, where.offset), file);
  const dataStart = (entry: (typeof entries)[number]) => localDataOffset(readAt(fd, 30, entry.localHeaderOffset), entry, file);
  const { entry: pklEntry, prefix } = findPickleEntry(entries, file);
  const pkl = entryBytes(readAt(fd, pklEntry.compressedSize, dataStart(pklEntry)), pklEntry, file, inflateRawSync);
  const meta = parseTorchPickle(pkl, prefix, file);
  const storage = entries.find((e) => e.name === meta.storageEntry);
  if (!storage) throw new TensorReadError(file, `storage ${meta.storageEntry} missing from the zip`);
  const type: NpyElementType = { dtype: meta.dtype, itemSize: meta.itemSize, littleEndian: true };
  // msprobe's read_real_data: bfloat16 → float32 before numpy.
  const info: TensorInfo = { dtype: meta.dtype === 'bfloat16' ? 'float32' : meta.dtype, shape: meta.shape };
  const count = product(meta.shape);
  const storageCount = storage.size / meta.itemSize;
  let contiguous = true;
  let expected = 1;
  for (let d = meta.shape.length - 1; d >= 0; d--) {
    if (meta.shape[d] !== 1 && meta.stride[d] !== expected) contiguous = false;
    expected *= meta.shape[d];
  }
  if (storage.method !== 0) {
    const all = entryBytes(readAt(fd, storage.compressedSize, dataStart(storage)), storage, file, inflateRawSync);
    const values = new Float64Array(all.length / meta.itemSize);
    decodeElements(all, type, values, values.length);
    closeSync(fd);
    return new MemoryRun(info, strided(values, meta.shape, meta.stride, meta.storageOffset, count), false);
  }
  const base = dataStart(storage);
  if (contiguous) {
    if (meta.storageOffset + count > storageCount) throw new TensorReadError(file, 'tensor extends past its storage');
    return new FileRun(fd, file, info, count, type, base + meta.storageOffset * meta.itemSize, false);
  }
  const values = gather(fd, file, type, base, storageCount);
  closeSync(fd);
  return new MemoryRun(info, strided(values, meta.shape, meta.stride, meta.storageOffset, count), false);
}

/** A strided view's elements in C order. */
function strided(storage: Float64Array, shape: number[], stride: number[], offset: number, count: number): Float64Array {
  const out = new Float64Array(count);
  const idx = new Array<number>(shape.length).fill(0);
  let pos = offset;
  for (let c = 0; c < count; c++) {
    out[c] = storage[pos];
    for (let d = shape.length - 1; d >= 0; d--) {
      idx[d]++;
      pos += stride[d];
      if (idx[d] < shape[d]) break;
      pos -= stride[d] * shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

/**
 * Opens a dumped tensor. `fileOrder`: serve Fortran-order `.npy` data in file order instead of reordering it
 * (only valid when the other side is Fortran order with the same shape).
 */
export function openTensorFile(file: string, options: { fileOrder?: boolean } = {}): TensorSource {
  let fd: number;
  requireRegularFile(file, (f, p) => new TensorReadError(f, p));
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw new TensorReadError(file, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : String((e as Error).message));
  }
  try {
    if (file.endsWith('.pt') || file.endsWith('.pth')) return openPt(fd, file);
    return openNpy(fd, file, options.fileOrder ?? false);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed by a reader that took ownership
    }
    if (e instanceof TensorReadError) throw e;
    const problem = e instanceof Error && 'problem' in e ? String((e as { problem: string }).problem) : String((e as Error).message);
    throw new TensorReadError(file, problem);
  }
}

/** Peeks whether an `.npy` file is Fortran-ordered with more than one non-trivial dimension. */
export function isFortranNpy(file: string): boolean {
  if (!file.endsWith('.npy')) return false;
  try {
    const source = openTensorFile(file, { fileOrder: true });
    const fortran = source.fortranOrder;
    source.close();
    return fortran;
  } catch {
    return false;
  }
}
