import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { pyStr, pyTruthy } from './pyFormat.js';
import { nativeObject } from './pyJsonNative.js';
import { textOfBytes } from './textLimit.js';
import { utf8Bytes, utf8Decode, type Utf8Decode } from './utf8.js';
import { jsonString, skipWs, stringEnd } from './jsonBytes.js';

export const STACK_NOT_DICT_PROBLEM =
  'The format of the stack.json is incorrect, the outermost layer of stack.json should be a dict type.';

/**
 * stack.json in either shape (msprobe-format.md §1.6) → dump name → stack lines.
 * Old: `{name: [lines]}`. New (2025-05+, detected by a truthy `"0"`): `{"0": [[names], [lines]], …}`.
 * A value that is not a list becomes `[]` (msprobe would copy it verbatim; no dumper writes one).
 * `input` is the file's text or its UTF-8 bytes (the common case then never becomes one string); `decode` turns
 * byte ranges of them into text (Node callers pass Buffer's).
 */
export function parseStackJson(input: string | Uint8Array, file = 'stack.json', decode: Utf8Decode = utf8Decode): Map<string, string[]> {
  const scanned = scanOldFormat(typeof input === 'string' ? utf8Bytes(input) : input, decode);
  if (scanned) return scanned;
  const text = typeof input === 'string' ? input : textOfBytes(input, file, decode);
  const top = nativeStack(text) ?? (parsePyJson(text, { mode: 'python', file }) as PyValue);
  if (!(top instanceof Map)) throw new DumpFileError(file, STACK_NOT_DICT_PROBLEM);
  const out = new Map<string, string[]>();
  if (!pyTruthy(top.get('0'))) {
    // Old files repeat the same stack for many names; one shared array each keeps memory and export work down.
    // Candidates are found by a cheap key (sizes, first, middle and last line), then compared line by line.
    const interned = new Map<string, string[][]>();
    for (const [name, lines] of top) {
      const stack = stackLines(lines);
      let chars = 0;
      for (const line of stack) chars += line.length;
      const ends = `${stack[0] ?? ''}\u0000${stack[stack.length >> 1] ?? ''}\u0000${stack[stack.length - 1] ?? ''}`;
      const key = `${stack.length}:${chars}\u0000${ends}`;
      let candidates = interned.get(key);
      if (!candidates) interned.set(key, (candidates = []));
      const shared = candidates.find((c) => sameLines(c, stack));
      if (!shared) candidates.push(stack);
      out.set(name, shared ?? stack);
    }
    return out;
  }
  for (const group of top.values()) {
    if (!Array.isArray(group) || group.length !== 2) continue;
    const [names, lines] = group;
    if (!Array.isArray(names)) continue;
    const stack = stackLines(lines);
    // Later groups win for a repeated name, as msprobe's dict.update does; names are hashed as their str().
    for (const name of names) out.set(pyStr(name), stack);
  }
  return out;
}

/**
 * The common case, an old-format file (`{name: [lines]}`) that repeats a few hundred distinct stacks thousands of
 * times, read from its bytes without parsing every copy (and without the text of the whole file): the scan only
 * finds where each value starts and ends, and each distinct value is decoded and parsed once (equal values share one
 * array). Anything unexpected (the new format, a value that is not a list of strings, malformed JSON) returns null
 * for the general readers below.
 */
function scanOldFormat(bytes: Uint8Array, decode: Utf8Decode): Map<string, string[]> | null {
  // Scanned as given: a Buffer's indexOf (memchr) finds the ends of these long lines faster than a plain view's.
  const n = bytes.length;
  // Distinct values by a cheap fingerprint (length and a few bytes), then by comparing their text: hashing every
  // value's whole text as a Map key costs more than the comparisons.
  const byPrint = new Map<number, Array<{ raw: string; lines: string[] }>>();
  const out = new Map<string, string[]>();
  let i = skipWs(bytes, 0);
  if (bytes[i] !== 0x7b) return null;
  i = skipWs(bytes, i + 1);
  if (bytes[i] === 0x7d) return null; // {} takes the general path (nothing to gain)
  for (;;) {
    i = skipWs(bytes, i);
    if (bytes[i] !== 0x22) return null;
    const keyStart = i;
    i = stringEnd(bytes, i);
    if (i < 0) return null;
    // A raw control character or a bad escape: the general path reports it where it is.
    const key = jsonString(bytes, keyStart, i, decode);
    if (key === null) return null;
    // The new format's group numbers: the general path decides between the formats.
    if (key === '0') return null;
    i = skipWs(bytes, i);
    if (bytes[i] !== 0x3a) return null;
    i = skipWs(bytes, i + 1);
    if (bytes[i] !== 0x5b) return null;
    const valueStart = i;
    i = skipWs(bytes, i + 1);
    if (bytes[i] !== 0x5d) {
      for (;;) {
        i = skipWs(bytes, i);
        if (bytes[i] !== 0x22) return null;
        i = stringEnd(bytes, i);
        if (i < 0) return null;
        i = skipWs(bytes, i);
        const c = bytes[i];
        if (c === 0x2c) {
          i++;
          continue;
        }
        if (c === 0x5d) break;
        return null;
      }
    }
    i++;
    const length = i - valueStart;
    let print = length;
    for (let k = 1; k <= 8; k++) print = (Math.imul(print, 31) + bytes[valueStart + ((length * k) >> 3) - 1]) | 0;
    let candidates = byPrint.get(print);
    if (!candidates) byPrint.set(print, (candidates = []));
    const raw = decode(bytes, valueStart, i);
    let lines: string[] | undefined;
    for (const c of candidates) {
      if (c.raw === raw) {
        lines = c.lines;
        break;
      }
    }
    if (!lines) {
      try {
        lines = JSON.parse(raw) as string[];
      } catch {
        return null;
      }
      candidates.push({ raw, lines });
    }
    out.set(key, lines);
    i = skipWs(bytes, i);
    const c = bytes[i];
    if (c === 0x2c) {
      i++;
      continue;
    }
    if (c !== 0x7d) return null;
    return skipWs(bytes, i + 1) === n ? out : null;
  }
}

/**
 * stack.json holds only names and text, so the native parser (3× faster) reads it the same way whenever the file
 * is an object of string lists: integer-like keys come first in JS objects, but those are the new format's group
 * numbers, which msprobe writes in ascending order anyway. Anything else goes through the Python-mode parser.
 */
function nativeStack(text: string): Map<string, PyValue> | null {
  const obj = nativeObject(text);
  if (!obj) return null;
  const entries = Object.entries(obj);
  for (const [, value] of entries) if (!stringLists(value, 0)) return null;
  return new Map(entries as Array<[string, PyValue]>);
}

function stringLists(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return depth > 0;
  return Array.isArray(v) && depth < 2 && v.every((x) => stringLists(x, depth + 1));
}

function sameLines(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function stackLines(v: PyValue): string[] {
  if (!Array.isArray(v)) return [];
  return v.map((line) => pyStr(line));
}
