import type { ByteArena } from './byteArena.js';

/**
 * Anything the name index can hash and compare: a plain arena of names (mapped compare keys) or a side's name
 * column.
 */
export interface NameSource {
  readonly length: number;
  get(index: number): string;
  /** FNV-1a over the UTF-8 bytes. */
  hash(index: number): number;
  equalsBytes(index: number, probe: Uint8Array, probeLength: number): boolean;
}

/**
 * The names of one side's rows. Almost every name is its API key plus a short suffix (`….forward` + `.input.0`),
 * so only the suffix is stored, with a flag; names from data files that do not start with the key are stored
 * whole. Halves the largest column of a million-row table.
 */
export class NameColumn implements NameSource {
  private cachedApi = -1;
  private cachedKey = '';

  constructor(
    private readonly suffixes: ByteArena,
    private readonly apis: ByteArena,
    private readonly api: Int32Array,
    /** Per row: bit 7 set = the stored text is a suffix of the API key. */
    private readonly flags: Uint8Array,
  ) {}

  get length(): number {
    return this.suffixes.length;
  }

  private prefixed(i: number): boolean {
    return (this.flags[i] & PREFIXED) !== 0;
  }

  private apiKey(a: number): string {
    if (a !== this.cachedApi) {
      this.cachedKey = this.apis.get(a);
      this.cachedApi = a;
    }
    return this.cachedKey;
  }

  get(i: number): string {
    const suffix = this.suffixes.get(i);
    return this.prefixed(i) ? this.apiKey(this.api[i]) + suffix : suffix;
  }

  hash(i: number): number {
    if (!this.prefixed(i)) return this.suffixes.hash(i);
    return this.suffixes.hash(i, this.apis.hash(this.api[i]));
  }

  equalsBytes(i: number, probe: Uint8Array, probeLength: number): boolean {
    if (!this.prefixed(i)) return this.suffixes.equalsBytes(i, probe, probeLength);
    const a = this.api[i];
    const head = this.apis.byteLength(a);
    if (head + this.suffixes.byteLength(i) !== probeLength) return false;
    return this.apis.matchesAt(a, probe, 0) && this.suffixes.matchesAt(i, probe, head);
  }
}

/** The flag bit, shared with the state code stored in the same byte. */
export const PREFIXED = 0x80;
