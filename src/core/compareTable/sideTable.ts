import type { PyValue } from '../formats/pyJson.js';
import { ByteArena, type ByteArenaParts } from './byteArena.js';
import { NameColumn, PREFIXED } from './nameColumn.js';
import type { RowState } from './opRows.js';
import { numericOf, pyFloat, statCell, type Cell } from './statCells.js';

/**
 * All rows of one side (NPU or Bench) in a columnar, compact form (~75 bytes a row for statistics dumps): names as
 * suffixes of their API key, statistics as doubles with a kind tag, md5s as 32-bit codes, dtype and shape
 * interned. Every column is a typed array, so a worker can hand a finished table over without copying, or share it
 * (SharedArrayBuffers) with other threads. Written by SideTableBuilder (sideTableBuilder.ts).
 */

export const STATES: RowState[] = ['input', 'parameters', 'output', 'parameters_grad', 'debug'];

/** Statistic kinds: a float, a safe int (stored as a double), or anything else (an index into `others`). */
export const FLOAT = 0;
export const INT = 1;
export const OTHER = 2;

/** requires_grad codes. */
export const RG_NONE = 0;
export const RG_TRUE = 1;
export const RG_FALSE = 2;
export const RG_OTHER = 3;

/** md5 kinds: 8 lowercase hex digits in `md5Code`, none (a None argument), or other text in `md5Other`. */
export const MD5_HEX = 0;
export const MD5_NONE = 1;
export const MD5_OTHER = 2;

export interface SideTableParts {
  rows: number;
  /** Name suffixes (or whole names; see NameColumn and the PREFIXED bit of `state`). */
  names: ByteArena;
  /** data_name per row, '' for "-1" (no file). */
  dataNames: ByteArena;
  /** API keys, one per dump entry. */
  apis: ByteArena;
  md5Code: Uint32Array;
  md5Kind: Uint8Array;
  md5Other: Map<number, string>;
  /** State code in the low bits, PREFIXED in bit 7. */
  state: Uint8Array;
  api: Int32Array;
  dtype: Uint16Array;
  shape: Uint32Array;
  stats: Float64Array;
  statKind: Uint8Array;
  rg: Uint8Array;
  /** Non-numeric statistics ("None", "True", strings, big ints…): `stats[at]` holds an index into this list. */
  others: PyValue[];
  /**
   * Numeric statistics whose pandas reading (`to_numeric(str(v))`) is not the value itself: stat positions
   * (ascending) and the values pandas reads.
   */
  overrideAt: Int32Array;
  overrideValue: Float64Array;
  otherRg: Map<number, string>;
  p2p: Map<number, [PyValue, PyValue]>;
  dtypes: string[];
  shapes: string[];
}

export type SideTableMessage = Omit<SideTableParts, 'names' | 'dataNames' | 'apis'> & {
  names: ByteArenaParts;
  dataNames: ByteArenaParts;
  apis: ByteArenaParts;
};

const TYPED_KEYS = ['md5Code', 'md5Kind', 'state', 'api', 'dtype', 'shape', 'stats', 'statKind', 'rg', 'overrideAt', 'overrideValue'] as const;

export type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** The first `length` elements of `a` in a new SharedArrayBuffer (or `a` itself when already shared and whole). */
export function sharedCopy<T extends Typed>(a: T, length = a.length): T {
  if (a.buffer instanceof SharedArrayBuffer && length === a.length) return a;
  const ctor = a.constructor as new (buffer: SharedArrayBuffer, offset: number, length: number) => T;
  const out = new ctor(new SharedArrayBuffer(length * a.BYTES_PER_ELEMENT), 0, length);
  out.set(a.subarray(0, length) as never);
  return out;
}

export class SideTable {
  private readonly nameColumn: NameColumn;
  private cachedApi = -1;
  private cachedKey = '';

  constructor(private readonly p: SideTableParts) {
    this.nameColumn = new NameColumn(p.names, p.apis, p.api, p.state);
  }

  get length(): number {
    return this.p.rows;
  }
  get apiCount(): number {
    return this.p.apis.length;
  }
  /** The API keys as bytes (`get(i)`, hashing), e.g. to look stacks up by key. */
  get apiKeys(): ByteArena {
    return this.p.apis;
  }
  name(i: number): string {
    return this.nameColumn.get(i);
  }
  /** The names as the name index reads them (hashing and comparing bytes). */
  get nameArena(): NameColumn {
    return this.nameColumn;
  }
  dtype(i: number): string {
    return this.p.dtypes[this.p.dtype[i]];
  }
  shape(i: number): string {
    return this.p.shapes[this.p.shape[i]];
  }
  /** The interned shape of row i, and the interned shapes by id. */
  shapeId(i: number): number {
    return this.p.shape[i];
  }
  get shapeCount(): number {
    return this.p.shapes.length;
  }
  shapeText(id: number): string {
    return this.p.shapes[id];
  }
  state(i: number): RowState {
    return STATES[this.p.state[i] & ~PREFIXED];
  }
  apiIndex(i: number): number {
    return this.p.api[i];
  }
  apiKey(i: number): string {
    return this.apiKeyAt(this.p.api[i]);
  }
  apiKeyAt(apiIndex: number): string {
    if (apiIndex !== this.cachedApi) {
      this.cachedKey = this.p.apis.get(apiIndex);
      this.cachedApi = apiIndex;
    }
    return this.cachedKey;
  }
  /** Statistic k (0 Max, 1 Min, 2 Mean, 3 Norm) with Python types: bigint for ints, number for floats. */
  stat(i: number, k: number): PyValue {
    const at = i * 4 + k;
    const kind = this.p.statKind[at];
    if (kind === FLOAT) return this.p.stats[at];
    if (kind === INT) return BigInt(this.p.stats[at]);
    return this.p.others[this.p.stats[at]];
  }
  /** The statistic as a table cell (NPU max … columns): NaN is the string "Nan"; ints as plain numbers. */
  statCell(i: number, k: number): Cell {
    const at = i * 4 + k;
    if (this.p.statKind[at] !== OTHER) {
      const v = this.p.stats[at];
      return v !== v ? 'Nan' : v;
    }
    return statCell(this.p.others[this.p.stats[at]]);
  }
  /** The statistic as msprobe's summary compare reads it: pandas-parsed double, NaN, or undefined (not numeric). */
  pandasStat(i: number, k: number): number | undefined {
    const at = i * 4 + k;
    if (this.p.statKind[at] !== OTHER) {
      const o = this.override(at);
      return o === undefined ? this.p.stats[at] : o;
    }
    return numericOf(this.p.others[this.p.stats[at]]);
  }
  /** Python `float(v)` of the raw statistic (the relative error's denominator). */
  floatStat(i: number, k: number): number {
    const at = i * 4 + k;
    if (this.p.statKind[at] !== OTHER) return this.p.stats[at];
    return pyFloat(this.p.others[this.p.stats[at]]);
  }
  private override(at: number): number | undefined {
    const positions = this.p.overrideAt;
    let lo = 0;
    let hi = positions.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const p = positions[mid];
      if (p === at) return this.p.overrideValue[mid];
      if (p < at) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }
  requiresGrad(i: number): string | null {
    const c = this.p.rg[i];
    if (c === RG_TRUE) return 'True';
    if (c === RG_FALSE) return 'False';
    if (c === RG_NONE) return null;
    return this.p.otherRg.get(i) ?? null;
  }
  dataName(i: number): string {
    const d = this.p.dataNames.get(i);
    return d === '' ? '-1' : d;
  }
  md5(i: number): string | null {
    const kind = this.p.md5Kind[i];
    if (kind === MD5_HEX) return this.p.md5Code[i].toString(16).padStart(8, '0');
    if (kind === MD5_NONE) return null;
    return this.p.md5Other.get(i) ?? null;
  }
  p2p(i: number): [PyValue, PyValue] {
    return this.p.p2p.get(i) ?? [null, null];
  }
  /** Rows of one API are contiguous: true for the first of them. */
  isFirstOfApi(i: number): boolean {
    return i === 0 || this.p.api[i - 1] !== this.p.api[i];
  }

  /** Bytes held by the columns. */
  get byteLength(): number {
    const p = this.p;
    let n = p.names.totalBytes + p.dataNames.totalBytes + p.apis.totalBytes;
    for (const k of TYPED_KEYS) n += p[k].byteLength;
    return n;
  }

  /**
   * A structured-clone-friendly form, for posting to or from a worker thread. `shared`: the typed arrays are
   * SharedArrayBuffers (copied there if needed; then several threads read one table); else they are listed in
   * `transfer` to be moved.
   */
  toMessage(shared = false): { message: SideTableMessage; transfer: ArrayBuffer[] } {
    const { names, dataNames, apis, ...rest } = this.p;
    const message: SideTableMessage = { ...rest, names: names.toParts(), dataNames: dataNames.toParts(), apis: apis.toParts() };
    const arenas = [message.names, message.dataNames, message.apis];
    if (shared) {
      for (const arena of arenas) {
        arena.bytes = sharedCopy(arena.bytes);
        arena.offsets = sharedCopy(arena.offsets);
      }
      for (const k of TYPED_KEYS) (message as unknown as Record<string, Typed>)[k] = sharedCopy(message[k]);
      return { message, transfer: [] };
    }
    const arrays: Typed[] = [...arenas.flatMap((a) => [a.bytes, a.offsets]), ...TYPED_KEYS.map((k) => message[k])];
    return { message, transfer: arrays.map((a) => a.buffer as ArrayBuffer) };
  }

  static fromMessage(m: SideTableMessage): SideTable {
    return new SideTable({
      ...m,
      names: ByteArena.fromParts(m.names),
      dataNames: ByteArena.fromParts(m.dataNames),
      apis: ByteArena.fromParts(m.apis),
    });
  }
}
