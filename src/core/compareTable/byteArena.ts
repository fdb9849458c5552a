/**
 * Strings packed as UTF-8 into one growing byte buffer. A dump of a million tensors has a million names; as JS
 * strings they cost ~3× their length (and substrings of a parsed file keep the whole file alive), packed they cost
 * their bytes plus an offset.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A finished arena's buffers, for handing it to another thread (typed arrays transfer without copying). */
export interface ByteArenaParts {
  bytes: Uint8Array;
  offsets: Uint32Array;
  count: number;
  ascii: boolean;
}

export class ByteArena {
  private bytes: Uint8Array;
  private offsets: Uint32Array;
  private used = 0;
  private count = 0;
  private ascii = true;

  static fromParts(p: ByteArenaParts): ByteArena {
    const a = new ByteArena(1, 1);
    a.bytes = p.bytes;
    a.offsets = p.offsets;
    a.count = p.count;
    a.used = p.offsets[p.count];
    a.ascii = p.ascii;
    return a;
  }

  toParts(): ByteArenaParts {
    return { bytes: this.bytes, offsets: this.offsets, count: this.count, ascii: this.ascii };
  }

  /** `shared`: the buffers are SharedArrayBuffers from the start (a worker's table then needs no final copy). */
  constructor(expectedStrings = 1024, expectedBytes = expectedStrings * 48, shared = false) {
    this.bytes = allocate(Uint8Array, Math.max(64, expectedBytes), shared);
    this.offsets = allocate(Uint32Array, Math.max(16, expectedStrings) + 1, shared);
  }

  get length(): number {
    return this.count;
  }

  /** Appends a string; returns its index. */
  push(s: string): number {
    if (this.count + 2 > this.offsets.length) this.offsets = grow(this.offsets, this.count + 2);
    const n = s.length;
    if (this.used + n * 3 > this.bytes.length) this.bytes = grow(this.bytes, this.used + n * 3);
    let p = this.used;
    let i = 0;
    // ASCII fast path; anything else goes through TextEncoder.
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      this.bytes[p++] = c;
    }
    if (i < n) {
      this.ascii = false;
      p += encoder.encodeInto(s.slice(i), this.bytes.subarray(p)).written;
    }
    this.used = p;
    this.offsets[++this.count] = p;
    return this.count - 1;
  }

  get(index: number): string {
    const start = this.offsets[index];
    const end = this.offsets[index + 1];
    if (this.ascii && end - start < 4096) {
      // Short ASCII: fromCharCode over the bytes beats TextDecoder's call overhead.
      return String.fromCharCode.apply(null, this.bytes.subarray(start, end) as unknown as number[]);
    }
    // TextDecoder refuses views of a SharedArrayBuffer: decode a copy then.
    const view = this.bytes.buffer instanceof ArrayBuffer ? this.bytes.subarray(start, end) : this.bytes.slice(start, end);
    return decoder.decode(view);
  }

  /** True when entry `index` holds exactly the UTF-8 bytes in `probe[0..probeLength)`. */
  equalsBytes(index: number, probe: Uint8Array, probeLength: number): boolean {
    const start = this.offsets[index];
    if (this.offsets[index + 1] - start !== probeLength) return false;
    const b = this.bytes;
    for (let i = 0; i < probeLength; i++) if (b[start + i] !== probe[i]) return false;
    return true;
  }

  /** FNV-1a of entry `index` (same function as `hashBytes`); `seed` continues a hash of preceding bytes. */
  hash(index: number, seed?: number): number {
    return hashBytes(this.bytes, this.offsets[index], this.offsets[index + 1], seed);
  }

  /** UTF-8 length of entry `index`. */
  byteLength(index: number): number {
    return this.offsets[index + 1] - this.offsets[index];
  }

  /** True when entry `index` equals `probe[at .. at + its length)`. */
  matchesAt(index: number, probe: Uint8Array, at: number): boolean {
    const start = this.offsets[index];
    const n = this.offsets[index + 1] - start;
    const b = this.bytes;
    for (let i = 0; i < n; i++) if (b[start + i] !== probe[at + i]) return false;
    return true;
  }

  /** Releases the slack left by growing; `shared`: the result is in SharedArrayBuffers (readable by other threads). */
  trim(shared = false): void {
    this.bytes = trimmed(this.bytes, this.used, shared);
    this.offsets = trimmed(this.offsets, this.count + 1, shared);
  }

  get totalBytes(): number {
    return this.bytes.byteLength + this.offsets.byteLength;
  }
}

export function hashBytes(b: Uint8Array, start: number, end: number, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

/** UTF-8 of `s` into a reusable scratch buffer; returns the buffer and the byte count. */
export function encodeScratch(s: string, scratch: { buf: Uint8Array }): number {
  if (scratch.buf.length < s.length * 3) scratch.buf = new Uint8Array(s.length * 3 + 64);
  const n = s.length;
  const b = scratch.buf;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    b[i] = c;
  }
  if (i === n) return n;
  return i + encoder.encodeInto(s.slice(i), b.subarray(i)).written;
}

type Typed = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

type TypedCtor<T> = { new (n: number): T; new (b: SharedArrayBuffer, offset: number, length: number): T; BYTES_PER_ELEMENT: number };

/** A zeroed typed array, on a SharedArrayBuffer when `shared`. */
export function allocate<T extends Typed>(ctor: TypedCtor<T>, n: number, shared: boolean): T {
  return shared ? new ctor(new SharedArrayBuffer(n * ctor.BYTES_PER_ELEMENT), 0, n) : new ctor(n);
}

/**
 * The first `length` elements as a table keeps them: a plain copy, or for shared buffers a view when little would
 * be saved by copying (a copy of a big column would briefly double it).
 */
export function trimmed<T extends Typed>(a: T, length: number, shared: boolean): T {
  if (shared && a.buffer instanceof SharedArrayBuffer) {
    if (length >= a.length * 0.75) return a.subarray(0, length) as T;
  }
  if (!shared) return a.slice(0, length) as T;
  const ctor = a.constructor as TypedCtor<T>;
  const out = allocate(ctor, length, true);
  out.set(a.subarray(0, length) as never);
  return out;
}

/** A copy of `a` with room for at least `min` elements (×1.5 growth keeps the peak of a copy modest). */
export function grow<T extends Typed>(a: T, min: number): T {
  const size = Math.max(min, Math.ceil(a.length * 1.5) + 16);
  const out = allocate(a.constructor as TypedCtor<T>, size, a.buffer instanceof SharedArrayBuffer);
  out.set(a);
  return out;
}
