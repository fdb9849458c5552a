import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { pyStr, pyTruthy } from './pyFormat.js';
import { nativeObject } from './pyJsonNative.js';
import { textOfBytes } from './textLimit.js';
import { utf8Bytes, utf8Decode, type Utf8Decode } from './utf8.js';
import { jsonString, skipWs, stringEnd } from './jsonBytes.js';
import { scanDocument } from './pyJsonScan.js';

export const STACK_NOT_DICT_PROBLEM =
  'The format of the stack.json is incorrect, the outermost layer of stack.json should be a dict type.';

/**
 * stack.json in either shape (msprobe-format.md §1.6) → dump name → stack lines.
 * Old: `{name: [lines]}`. New (2025-05+, detected by a truthy `"0"`): `{"0": [[names], [lines]], …}`.
 * A value that is not a list becomes `[]` (msprobe would copy it verbatim; no dumper writes one).
 * `input` is the file's text or its UTF-8 bytes (the common case then never becomes one string); `decode` turns
 * byte ranges of them into text (Node callers pass Buffer's).
 *
 * Frames are interned: each distinct line is one string that every stack holding it shares, so a file of thousands
 * of distinct stacks (one per API, issue 19) costs an array of references per stack rather than its text; most
 * frames repeat across stacks (the training loop, `_call_impl`, a module's lines in every layer).
 */
export function parseStackJson(input: string | Uint8Array, file = 'stack.json', decode: Utf8Decode = utf8Decode): Map<string, string[]> {
  const frames = new Map<string, string>();
  const bytes = typeof input === 'string' ? utf8Bytes(input) : input;
  const scanned = scanOldFormat(bytes, decode, frames) ?? readGrouped(bytes, decode, frames);
  if (scanned) return scanned;
  const text = typeof input === 'string' ? input : textOfBytes(input, file, decode);
  const top = nativeStack(text) ?? (parsePyJson(text, { mode: 'python', file }) as PyValue);
  if (!(top instanceof Map)) throw new DumpFileError(file, STACK_NOT_DICT_PROBLEM);
  const out = new Map<string, string[]>();
  if (!pyTruthy(top.get('0'))) {
    for (const [name, lines] of top) out.set(name, stackLines(lines, frames));
    return out;
  }
  for (const group of top.values()) {
    if (!Array.isArray(group) || group.length !== 2) continue;
    const [names, lines] = group;
    if (!Array.isArray(names)) continue;
    const stack = stackLines(lines, frames);
    // Later groups win for a repeated name, as msprobe's dict.update does; names are hashed as their str().
    for (const name of names) out.set(pyStr(name), stack);
  }
  return out;
}

/**
 * The common case, an old-format file (`{name: [lines]}`) that often repeats a few hundred distinct stacks thousands
 * of times, read from its bytes without parsing every copy (and without the text of the whole file): the scan only
 * finds where each value starts and ends, and each distinct value is decoded and parsed once (equal values share one
 * array). Anything unexpected (the new format, a value that is not a list of strings, malformed JSON) returns null
 * for the readers below.
 */
function scanOldFormat(bytes: Uint8Array, decode: Utf8Decode, frames: Map<string, string>): Map<string, string[]> | null {
  // Scanned as given: a Buffer's indexOf (memchr) finds the ends of these long lines faster than a plain view's.
  const n = bytes.length;
  // Values seen, by their text: kept only up to RAW_CACHE_CHARS, so a file whose stacks are all distinct does not
  // hold a second copy of itself while it is read (fingerprints with candidate lists collide on such files).
  const byRaw = new Map<string, string[]>();
  let rawChars = 0;
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
    const raw = decode(bytes, valueStart, i);
    let lines = byRaw.get(raw);
    if (!lines) {
      try {
        lines = internLines(JSON.parse(raw) as string[], frames);
      } catch {
        return null;
      }
      if (rawChars < RAW_CACHE_CHARS) {
        byRaw.set(raw, lines);
        rawChars += raw.length;
      }
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

const RAW_CACHE_CHARS = 1 << 20;

/**
 * A grouped file (`{"0": [[names], [lines]], …}`, first key "0", every value two lists of strings) read group by group
 * from its bytes with the document scan (pyJsonScan.ts): no text of the whole file, no parse tree of it. Anything
 * else returns null for the general readers.
 */
function readGrouped(bytes: Uint8Array, decode: Utf8Decode, frames: Map<string, string>): Map<string, string[]> | null {
  let scan;
  try {
    scan = scanDocument(bytes, decode);
  } catch {
    return null; // a key JSON cannot decode: the general readers say where
  }
  const members = scan?.top;
  if (!members || members.length === 0 || members[0].key !== '0') return null;
  const out = new Map<string, string[]>();
  for (const m of members) {
    // The scan decodes keys without looking for raw control characters, which JSON forbids.
    if (!m.plain || hasControl(bytes, m.keyStart, stringEnd(bytes, m.keyStart))) return null;
    let group: unknown;
    try {
      group = JSON.parse(decode(bytes, m.valueStart, m.valueEnd));
    } catch {
      return null;
    }
    if (!Array.isArray(group) || group.length !== 2 || !stringList(group[0]) || !stringList(group[1])) return null;
    const stack = internLines(group[1] as string[], frames);
    // Later groups win for a repeated name, as msprobe's dict.update does.
    for (const name of group[0] as string[]) out.set(name, stack);
  }
  return out;
}

function hasControl(bytes: Uint8Array, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (bytes[k] < 0x20) return true;
  return false;
}

function stringList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** `lines` with each frame replaced by its interned string (in place: the parser's array is new). */
function internLines(lines: string[], frames: Map<string, string>): string[] {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const known = frames.get(line);
    if (known === undefined) frames.set(line, line);
    else lines[i] = known;
  }
  return lines;
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

function stackLines(v: PyValue, frames: Map<string, string>): string[] {
  if (!Array.isArray(v)) return [];
  return internLines(v.map((line) => pyStr(line)), frames);
}
