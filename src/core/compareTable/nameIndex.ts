import { encodeScratch, hashBytes } from './byteArena.js';
import type { NameSource } from './nameColumn.js';

/**
 * A hash index over names (a ByteArena of compare keys, or a side's name column), optionally qualified by an
 * integer tag (the shape), that lists equal entries in insertion order. A million names take two Int32Arrays
 * instead of a JS Map of a million strings.
 */
export class NameIndex {
  private readonly mask: number;
  /** slot → first row of the distinct (name, tag), or -1. */
  private readonly head: Int32Array;
  /** row → next row with the same (name, tag), or -1. */
  readonly next: Int32Array;
  private readonly scratch = { buf: new Uint8Array(256) };

  constructor(
    private readonly names: NameSource,
    private readonly tagOf: ((row: number) => number) | null = null,
  ) {
    const n = names.length;
    let size = 16;
    // Load factor up to 0.8: linear probing stays short, and the index of a million names takes 8 MB.
    while (size < n * 1.25) size *= 2;
    this.mask = size - 1;
    this.head = new Int32Array(size).fill(-1);
    this.next = new Int32Array(n).fill(-1);
    // Inserted last to first, each row put in front of its chain: chains then run in row order.
    for (let i = n - 1; i >= 0; i--) this.insert(i);
  }

  private tag(i: number): number {
    return this.tagOf ? this.tagOf(i) : 0;
  }

  private insert(i: number): void {
    const tag = this.tag(i);
    const hash = this.names.hash(i);
    let slot = mix(hash, tag) & this.mask;
    for (;;) {
      const h = this.head[slot];
      if (h < 0) {
        this.head[slot] = i;
        return;
      }
      if (this.tag(h) === tag && this.names.hash(h) === hash && this.names.get(h) === this.names.get(i)) {
        this.next[i] = h;
        this.head[slot] = i;
        return;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /** First row whose string is `s` (and tag `tag`), or -1; follow `next` for the others. */
  first(s: string, tag = 0): number {
    const len = encodeScratch(s, this.scratch);
    const buf = this.scratch.buf;
    let slot = mix(hashBytes(buf, 0, len), tag) & this.mask;
    for (;;) {
      const h = this.head[slot];
      if (h < 0) return -1;
      if (this.tag(h) === tag && this.names.equalsBytes(h, buf, len)) return h;
      slot = (slot + 1) & this.mask;
    }
  }
}

function mix(hash: number, tag: number): number {
  return tag === 0 ? hash : Math.imul(hash ^ tag, 0x9e3779b1) >>> 0;
}
