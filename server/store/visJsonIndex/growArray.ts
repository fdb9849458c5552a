/**
 * Append-only typed arrays for the index builder: a million nodes become a handful of contiguous buffers, not a
 * million small objects (issue 4). `done()` trims to a standalone buffer that can be transferred between threads.
 */

type NumericArray = Float64Array | Int32Array | Uint32Array | Uint8Array;
type ArrayCtor<T extends NumericArray> = { new (length: number): T };

export class GrowArray<T extends NumericArray> {
  private data: T;
  length = 0;

  constructor(
    private readonly Ctor: ArrayCtor<T>,
    initial = 1024,
  ) {
    this.data = new Ctor(initial);
  }

  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }

  get(i: number): number {
    return this.data[i];
  }

  set(i: number, v: number): void {
    this.data[i] = v;
  }

  /** Drops everything from `length` on (a repeated key replaces what the first one added). */
  truncate(length: number): void {
    this.length = Math.min(this.length, length);
  }

  /** The raw storage; valid until the next push. */
  get raw(): T {
    return this.data;
  }

  grow(min: number): void {
    let size = Math.max(1024, this.data.length * 2);
    while (size < min) size *= 2;
    const next = new this.Ctor(size);
    next.set(this.data.subarray(0, this.length) as never);
    this.data = next;
  }

  /** A trimmed copy owning its own buffer; the builder is not used afterwards. */
  done(): T {
    const out = new this.Ctor(this.length);
    out.set(this.data.subarray(0, this.length) as never);
    this.data = new this.Ctor(0);
    this.length = 0;
    return out;
  }
}

/** Byte strings packed end to end: entry i is bytes[offsets[i] .. offsets[i + 1]). */
export class ByteTable {
  private bytes = new Uint8Array(64 * 1024);
  private used = 0;
  readonly offsets = new GrowArray(Uint32Array);

  constructor() {
    this.offsets.push(0);
  }

  get count(): number {
    return this.offsets.length - 1;
  }

  /** Appends one entry. `file` names the input in the error when the table would pass 4 GiB. */
  add(src: Uint8Array, start: number, end: number): number {
    const n = end - start;
    if (this.used + n > this.bytes.length) {
      let size = this.bytes.length * 2;
      while (size < this.used + n) size *= 2;
      if (size > 0xffffffff) throw new Error('more than 4 GiB of node ids');
      const next = new Uint8Array(size);
      next.set(this.bytes.subarray(0, this.used));
      this.bytes = next;
    }
    this.bytes.set(src.subarray(start, end), this.used);
    this.used += n;
    this.offsets.push(this.used);
    return this.count - 1;
  }

  /** Removes entries from `count` on. */
  truncate(count: number): void {
    if (count >= this.count) return;
    this.offsets.truncate(count + 1);
    this.used = this.offsets.get(count);
  }

  start(i: number): number {
    return this.offsets.get(i);
  }

  end(i: number): number {
    return this.offsets.get(i + 1);
  }

  /** The live byte storage (valid until the next add). */
  get raw(): Uint8Array {
    return this.bytes;
  }

  done(): { bytes: Uint8Array; offsets: Uint32Array } {
    const bytes = this.bytes.slice(0, this.used);
    this.bytes = new Uint8Array(0);
    return { bytes, offsets: this.offsets.done() };
  }
}
