import type { PyValue } from './pyJson.js';
import { Kind, scanDocument, type DocScan } from './pyJsonScan.js';
import { utf8Bytes, utf8Decode, type Utf8Decode } from './utf8.js';

/**
 * The fast way to read a large Python-written JSON file (dump.json): the native `JSON.parse`, about four times
 * faster than any parser written in JavaScript, with Python's semantics put back (msprobe-format.md §1.4.3):
 *
 * - int vs float: a pre-scan of the text (pyJsonScan.ts) notes, for every number token in file order, whether it was
 *   written as an int (`423`) or a float (`423.0`, `1e3`); a walk of the parsed tree in the same order turns ints
 *   into bigints.
 * - `NaN`, `Infinity`, `-Infinity` (which `JSON.parse` rejects) are replaced by `0` in the text and noted the same way.
 * - key order: JS objects keep insertion order except for integer-like keys, so a value with such a key (or any key
 *   with an escape, which could decode to one) is not read here. Duplicate keys are detected by counting keys in the
 *   text and in the tree (a duplicate makes the tree smaller).
 *
 * Dicts stay plain objects (`PlainDict`): a dump's descriptors are read once into items, and a Map each would cost
 * four times the memory. `toPy` turns any part of the tree into the parser's Map form. Whenever the file is not
 * one this reader can read exactly (including malformed JSON, whose error message the hand parser words),
 * `parsePyJsonNative` returns undefined and the caller uses `parsePyJson`.
 */

export interface PlainDict {
  [key: string]: DumpValue;
}

/** A parsed value whose dicts are plain objects (this reader) or Maps (`parsePyJson`). */
export type DumpValue = PyValue | PlainDict | DumpValue[] | Map<string, DumpValue>;

/** A dict of either form. */
export type DumpDict = PlainDict | Map<string, DumpValue>;

const SMALL_INT_LIMIT = 1 << 16;
const smallInts: bigint[] = [];

/** A Python int as a bigint; small ones come from a table instead of one allocation each. */
export function pyIntOf(v: number): bigint {
  if (v >= 0 && v < SMALL_INT_LIMIT) return (smallInts[v] ??= BigInt(v));
  return BigInt(v);
}

/**
 * `JSON.parse(text)` when it is a JSON object, else null (malformed, or another kind of value): the first step of
 * the readers of files whose content the native parser gives exactly (construct.json, stack.json).
 */
export function nativeObject(text: string): Record<string, unknown> | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * The tree of a JSON file (its text, or its UTF-8 bytes with their `scan`), or undefined when this reader cannot
 * read it exactly (see above).
 */
export function parsePyJsonNative(
  src: string | Uint8Array,
  scan?: DocScan | null,
  decode: Utf8Decode = utf8Decode,
): { value: DumpValue } | undefined {
  const bytes = typeof src === 'string' ? utf8Bytes(src) : src;
  if (scan === undefined) scan = scanDocument(bytes, decode);
  if (!scan || !scan.keysPlain) return undefined;
  let value: DumpValue;
  try {
    const text = scan.specials.length
      ? replaceSpecials(bytes, scan.specials, 0, bytes.length, decode)
      : typeof src === 'string'
        ? src
        : decode(bytes, 0, bytes.length);
    value = JSON.parse(text) as DumpValue;
  } catch {
    return undefined;
  }
  const walk = new TypingWalk(scan, 0, 0);
  value = walk.value(value);
  if (walk.at !== scan.count || walk.keys !== scan.keys) return undefined;
  return { value };
}

/** The text of bytes[from, to) with the NaN/Infinity tokens in it replaced by `0` (their kinds say what they were). */
export function replaceSpecials(bytes: Uint8Array, specials: number[], from: number, to: number, decode: Utf8Decode = utf8Decode): string {
  const parts: string[] = [];
  let at = from;
  for (let k = 0; k < specials.length; k += 2) {
    if (specials[k] < from || specials[k] >= to) continue;
    parts.push(decode(bytes, at, specials[k]), '0');
    at = specials[k + 1];
  }
  parts.push(decode(bytes, at, to));
  return parts.join('');
}

/**
 * Visits numbers and keys of a parsed value in file order, turning each number into its Python value; `at` and
 * `keys` say how many were seen (the caller checks them against the scan).
 */
export class TypingWalk {
  keys = 0;

  constructor(
    private readonly scan: DocScan,
    public at: number,
    private bigAt: number,
  ) {}

  private number(v: number): number | bigint {
    if (this.at >= this.scan.count) return v;
    switch (this.scan.kinds[this.at++]) {
      case Kind.Int:
        return pyIntOf(v);
      case Kind.Float:
        return v;
      case Kind.BigInt:
        return BigInt(this.scan.bigInts[this.bigAt++]);
      case Kind.NaN:
        return NaN;
      case Kind.Infinity:
        return Infinity;
      default:
        return -Infinity;
    }
  }

  value(v: DumpValue): DumpValue {
    if (typeof v === 'number') return this.number(v);
    if (v !== null && typeof v === 'object') {
      if (Array.isArray(v)) this.array(v);
      else this.object(v as PlainDict);
    }
    return v;
  }

  private array(a: DumpValue[]): void {
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      if (typeof x === 'number') a[i] = this.number(x);
      else if (x !== null && typeof x === 'object') this.value(x);
    }
  }

  private object(o: PlainDict): void {
    for (const k in o) {
      this.keys++;
      const x = o[k];
      if (typeof x === 'number') o[k] = this.number(x);
      else if (x !== null && typeof x === 'object') this.value(x);
    }
  }
}

/** A dict of either form. */
export function isDict(v: DumpValue | undefined): v is DumpDict {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `v` in the hand parser's form: plain dicts (at any depth) become Maps; everything else is returned as is. */
export function toPy(v: DumpValue | undefined): PyValue {
  if (v === undefined) return null;
  if (v === null || typeof v !== 'object') return v;
  // Maps come from the hand parser, whose trees hold no plain dicts.
  if (v instanceof Map) return v as Map<string, PyValue>;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (x !== null && typeof x === 'object') return v.map(toPy);
    }
    return v as PyValue[];
  }
  const out = new Map<string, PyValue>();
  for (const k in v) out.set(k, toPy(v[k]));
  return out;
}

/** `d[key]` of a dict of either form (own keys only). */
export function dictGet(d: DumpDict, key: string): DumpValue | undefined {
  if (d instanceof Map) return d.get(key);
  return Object.hasOwn(d, key) ? d[key] : undefined;
}

export function dictHas(d: DumpDict, key: string): boolean {
  return d instanceof Map ? d.has(key) : Object.hasOwn(d, key);
}

/** Calls `fn` with each key and value in order. */
export function forEachDictEntry(d: DumpDict, fn: (key: string, value: DumpValue) => void): void {
  if (d instanceof Map) for (const [k, v] of d) fn(k, v);
  else for (const k in d) fn(k, d[k]);
}
