import { bfloat16BitsToNumber, float32ToHalfBits, halfBitsTable } from './float16.js';
import { FileProblem } from '../fileProblem.js';

/**
 * NumPy `.npy` files (format versions 1–3): header parsing and chunked decoding of numeric data to doubles, so a
 * multi-gigabyte tensor can be streamed. Pure: pass bytes in (the Node reader lives in server/workers).
 *
 * Dtypes: bool, (u)int8/16/32/64, float16/32/64 in either byte order. bfloat16 has no numpy dtype; ml_dtypes
 * writes it as a 2-byte void (`|V2` / `<V2`), which we decode as bfloat16. msprobe itself writes MindSpore
 * bfloat16 tensors as float32 (`<f4`), and a `<u2` file is a uint16 array (as numpy would load it).
 */

/** Element types a dumped tensor file can hold (after msprobe's bfloat16 → float32 conversion for `.pt`). */
export type TensorDtype =
  | 'bool'
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'float16'
  | 'bfloat16'
  | 'float32'
  | 'float64';

export class NpyFormatError extends FileProblem {
  override name = 'NpyFormatError';
}

export interface NpyElementType {
  dtype: TensorDtype;
  itemSize: number;
  littleEndian: boolean;
}

export interface NpyHeader extends NpyElementType {
  descr: string;
  fortranOrder: boolean;
  shape: number[];
  /** Byte offset of the first element. */
  dataOffset: number;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

const KIND_TYPES: Record<string, Record<number, TensorDtype>> = {
  b: { 1: 'bool' },
  i: { 1: 'int8', 2: 'int16', 4: 'int32', 8: 'int64' },
  u: { 1: 'uint8', 2: 'uint16', 4: 'uint32', 8: 'uint64' },
  f: { 2: 'float16', 4: 'float32', 8: 'float64' },
  V: { 2: 'bfloat16' },
};

/** Bytes needed to parse the header, or null if `prefix` is too short to tell (give at least 12 bytes). */
export function npyHeaderLength(prefix: Uint8Array, file = '<npy>'): number | null {
  if (prefix.length < 10) return null;
  for (let i = 0; i < MAGIC.length; i++) {
    if (prefix[i] !== MAGIC[i]) throw new NpyFormatError(file, 'not a .npy file (bad magic)');
  }
  const major = prefix[6];
  if (major === 1) return 10 + (prefix[8] | (prefix[9] << 8));
  if (major === 2 || major === 3) {
    if (prefix.length < 12) return null;
    return 12 + (prefix[8] | (prefix[9] << 8) | (prefix[10] << 16)) + prefix[11] * 2 ** 24;
  }
  throw new NpyFormatError(file, `unsupported .npy format version ${major}`);
}

export function parseDescr(descr: string, file = '<npy>'): NpyElementType {
  const m = /^([<>|=])([biufV])(\d+)$/.exec(descr);
  const dtype = m ? KIND_TYPES[m[2]]?.[Number(m[3])] : undefined;
  if (!m || !dtype) throw new NpyFormatError(file, `unsupported dtype '${descr}' (numeric dtypes only)`);
  const itemSize = Number(m[3]);
  return { dtype, itemSize, littleEndian: m[1] !== '>' };
}

/** Parses the header dict (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`). */
export function parseNpyHeader(bytes: Uint8Array, file = '<npy>'): NpyHeader {
  const total = npyHeaderLength(bytes, file);
  if (total === null || bytes.length < total) throw new NpyFormatError(file, 'truncated .npy header');
  const headerStart = bytes[6] === 1 ? 10 : 12;
  const text = new TextDecoder(bytes[6] === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, total));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !fortran || !shape) {
    throw new NpyFormatError(file, `unreadable .npy header ${JSON.stringify(text.trim())}`);
  }
  const dims = shape[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const d = Number(s.replace(/L$/, ''));
      if (!Number.isSafeInteger(d) || d < 0) throw new NpyFormatError(file, `bad shape (${shape[1]})`);
      return d;
    });
  return {
    ...parseDescr(descr[1], file),
    descr: descr[1],
    fortranOrder: fortran[1] === 'True',
    shape: dims,
    dataOffset: total,
  };
}

/**
 * Decodes `count` elements from `bytes` (starting at byte 0 of the view) into `out[0..count)`.
 * int64/uint64 become the nearest double (like numpy's astype(float)).
 */
export function decodeElements(bytes: Uint8Array, type: NpyElementType, out: Float64Array, count: number): void {
  const { dtype, itemSize, littleEndian } = type;
  if (bytes.length < count * itemSize) throw new RangeError(`need ${count * itemSize} bytes, have ${bytes.length}`);
  const aligned = (bytes.byteOffset % itemSize) === 0 && (littleEndian || itemSize === 1);
  const buf = bytes.buffer;
  const off = bytes.byteOffset;
  if (aligned) {
    switch (dtype) {
      case 'bool':
      case 'uint8': {
        const a = new Uint8Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = dtype === 'bool' ? (a[i] ? 1 : 0) : a[i];
        return;
      }
      case 'int8': {
        const a = new Int8Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = a[i];
        return;
      }
      case 'int16': {
        const a = new Int16Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = a[i];
        return;
      }
      case 'uint16': {
        const a = new Uint16Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = a[i];
        return;
      }
      case 'int32': {
        const a = new Int32Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = a[i];
        return;
      }
      case 'uint32': {
        const a = new Uint32Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = a[i];
        return;
      }
      case 'int64':
      case 'uint64': {
        const lo = new Uint32Array(buf, off, count * 2);
        const hi = dtype === 'int64' ? new Int32Array(buf, off, count * 2) : lo;
        // hi * 2^32 is exact, so the sum rounds once: the correctly rounded double.
        for (let i = 0; i < count; i++) out[i] = hi[2 * i + 1] * 4294967296 + lo[2 * i];
        return;
      }
      case 'float16': {
        const a = new Uint16Array(buf, off, count);
        const table = halfBitsTable();
        for (let i = 0; i < count; i++) out[i] = table[a[i]];
        return;
      }
      case 'bfloat16': {
        const a = new Uint16Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = bfloat16BitsToNumber(a[i]);
        return;
      }
      case 'float32': {
        const a = new Float32Array(buf, off, count);
        for (let i = 0; i < count; i++) out[i] = a[i];
        return;
      }
      case 'float64': {
        out.set(new Float64Array(buf, off, count));
        return;
      }
    }
  }
  const view = new DataView(buf, off, count * itemSize);
  const le = littleEndian;
  for (let i = 0; i < count; i++) {
    const p = i * itemSize;
    switch (dtype) {
      case 'bool':
        out[i] = view.getUint8(p) ? 1 : 0;
        break;
      case 'uint8':
        out[i] = view.getUint8(p);
        break;
      case 'int8':
        out[i] = view.getInt8(p);
        break;
      case 'int16':
        out[i] = view.getInt16(p, le);
        break;
      case 'uint16':
        out[i] = view.getUint16(p, le);
        break;
      case 'int32':
        out[i] = view.getInt32(p, le);
        break;
      case 'uint32':
        out[i] = view.getUint32(p, le);
        break;
      case 'int64': {
        const hi = view.getInt32(le ? p + 4 : p, le);
        const lo = view.getUint32(le ? p : p + 4, le);
        out[i] = hi * 4294967296 + lo;
        break;
      }
      case 'uint64': {
        const hi = view.getUint32(le ? p + 4 : p, le);
        const lo = view.getUint32(le ? p : p + 4, le);
        out[i] = hi * 4294967296 + lo;
        break;
      }
      case 'float16':
        out[i] = halfBitsTable()[view.getUint16(p, le)];
        break;
      case 'bfloat16':
        out[i] = bfloat16BitsToNumber(view.getUint16(p, le));
        break;
      case 'float32':
        out[i] = view.getFloat32(p, le);
        break;
      case 'float64':
        out[i] = view.getFloat64(p, le);
        break;
    }
  }
}

/** Maps logical C-order element index → position in a Fortran-order buffer of the same shape. */
export function fortranIndex(shape: number[], cIndex: number): number {
  let rem = cIndex;
  let f = 0;
  let stride = 1;
  const coords = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    coords[d] = rem % shape[d];
    rem = Math.floor(rem / shape[d]);
  }
  for (let d = 0; d < shape.length; d++) {
    f += coords[d] * stride;
    stride *= shape[d];
  }
  return f;
}

/** Reorders Fortran-order values into C order (row-major), for arrays that fit in memory. */
export function fortranToC(values: Float64Array, shape: number[]): Float64Array {
  const out = new Float64Array(values.length);
  const nd = shape.length;
  if (nd <= 1) {
    out.set(values);
    return out;
  }
  const idx = new Array<number>(nd).fill(0);
  const fStride = new Array<number>(nd);
  let s = 1;
  for (let d = 0; d < nd; d++) {
    fStride[d] = s;
    s *= shape[d];
  }
  let f = 0;
  for (let c = 0; c < values.length; c++) {
    out[c] = values[f];
    // odometer increment over C order, tracking the Fortran offset
    for (let d = nd - 1; d >= 0; d--) {
      idx[d]++;
      f += fStride[d];
      if (idx[d] < shape[d]) break;
      f -= fStride[d] * shape[d];
      idx[d] = 0;
    }
  }
  return out;
}

/** Whole-file decode for small arrays: values in C (row-major) order. */
export function readNpy(bytes: Uint8Array, file = '<npy>'): { header: NpyHeader; values: Float64Array } {
  const header = parseNpyHeader(bytes, file);
  let count = 1;
  for (const d of header.shape) count *= d;
  const need = header.dataOffset + count * header.itemSize;
  if (bytes.length < need) throw new NpyFormatError(file, `truncated data: ${bytes.length} of ${need} bytes`);
  const data = bytes.slice(header.dataOffset, need);
  let values: Float64Array = new Float64Array(count);
  decodeElements(data, header, values, count);
  if (header.fortranOrder) values = fortranToC(values, header.shape);
  return { header, values };
}

/** Writes a version-1 `.npy` (tests and the bench generator). `values` are in C order. */
export function encodeNpy(
  values: ArrayLike<number>,
  descr: string,
  shape: number[],
  options: { fortranOrder?: boolean } = {},
): Uint8Array {
  const type = parseDescr(descr);
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '${descr}', 'fortran_order': ${options.fortranOrder ? 'True' : 'False'}, 'shape': ${shapeText}, }`;
  const unpadded = 10 + dict.length + 1;
  dict += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const headerLen = dict.length;
  let count = 1;
  for (const d of shape) count *= d;
  const out = new Uint8Array(10 + headerLen + count * type.itemSize);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  out[8] = headerLen & 0xff;
  out[9] = headerLen >> 8;
  for (let i = 0; i < headerLen; i++) out[10 + i] = dict.charCodeAt(i);
  const view = new DataView(out.buffer, 10 + headerLen);
  const le = type.littleEndian;
  const order: number[] = [];
  if (options.fortranOrder && shape.length > 1) {
    for (let f = 0; f < count; f++) order.push(0);
    for (let c = 0; c < count; c++) order[fortranIndex(shape, c)] = c;
  }
  for (let k = 0; k < count; k++) {
    const v = values[order.length ? order[k] : k];
    const p = k * type.itemSize;
    switch (type.dtype) {
      case 'bool':
      case 'uint8':
        view.setUint8(p, v);
        break;
      case 'int8':
        view.setInt8(p, v);
        break;
      case 'int16':
        view.setInt16(p, v, le);
        break;
      case 'uint16':
        view.setUint16(p, v, le);
        break;
      case 'int32':
        view.setInt32(p, v, le);
        break;
      case 'uint32':
        view.setUint32(p, v, le);
        break;
      case 'int64':
        view.setBigInt64(p, BigInt(v), le);
        break;
      case 'uint64':
        view.setBigUint64(p, BigInt(v), le);
        break;
      case 'float16':
        view.setUint16(p, float32ToHalfBits(Math.fround(v)), le);
        break;
      case 'bfloat16': {
        const f = new Float32Array([v]);
        view.setUint16(p, new Uint32Array(f.buffer)[0] >>> 16, le);
        break;
      }
      case 'float32':
        view.setFloat32(p, v, le);
        break;
      case 'float64':
        view.setFloat64(p, v, le);
        break;
    }
  }
  return out;
}
