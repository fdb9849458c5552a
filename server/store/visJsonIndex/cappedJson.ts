import { parsePyJson } from '../../../src/core/formats/pyJson.js';
import { checkBudget } from '../workBudget.js';
import { JsonCursor, type ByteSource } from './jsonCursor.js';
import { readLiteral, skipValue } from './jsonValues.js';

/**
 * A node record read in bounded memory and time whatever its size (issue 12: one 392 MB escaped string ran the
 * server out of heap). The bytes stream through a JsonCursor in chunks; values are built like parsePyJson's `js`
 * mode (null-prototype objects, the last repeated key wins), except that:
 * - a string over STRING_CAP bytes keeps its first bytes plus a marker with its size, and the rest is validated and
 *   skipped without being decoded;
 * - a container keeps its first MAX_ENTRIES entries plus a note of how many were left out;
 * - all strings together keep at most RECORD_ROOM bytes (the answer stays small however the caps combine);
 * - containers deeper than MAX_BUILT_DEPTH become a marker (the answer is serialised recursively).
 */

export const STRING_CAP = 64 * 1024;
export const MAX_ENTRIES = 10_000;
export const RECORD_ROOM = 8 * 1024 * 1024;
export const MAX_BUILT_DEPTH = 1000;
/** Read size: a long string is skipped 1 MiB at a time. */
const CHUNK = 1024 * 1024;
/**
 * Values shorter than this cannot reach any cap (10,000 entries take 20,000 bytes, 1,000 levels 2,000): they go
 * through parsePyJson, a third faster on the many small matched_node_link lists of a children page.
 */
const EXACT_BELOW = 2000;
/** Values below this size may be parsed whole first (farFromCaps decides whether that answer stands). */
const FAST_BELOW = 1024 * 1024;
/** Longer number tokens (digits by the million in a damaged file) become a marker. */
const NUMBER_CAP = 1024;
const NUMBER_BYTE = new Uint8Array(256);
for (const ch of '0123456789+-.eE') NUMBER_BYTE[ch.charCodeAt(0)] = 1;
/** Key of the note an object gets when members were left out. */
export const TRUNCATED_KEY = '…';

const utf8 = new TextDecoder('utf-8');
const count = (n: number) => n.toLocaleString('en-US');

/** `<prefix>… [truncated: N bytes]`: what a long string becomes. */
export function truncatedString(prefix: string, bytes: number): string {
  return `${prefix}… [truncated: ${count(bytes)} bytes]`;
}

/**
 * Reads the one JSON value of `src` (all of it: trailing bytes are an error) with the caps above. Throws
 * JsonSyntaxError (offset within `src`), or PyJsonError for a small value.
 */
export function readCappedJson(src: ByteSource): unknown {
  if (src.size < FAST_BELOW) {
    const bytes = new Uint8Array(src.size);
    let got = 0;
    for (let n = 1; got < bytes.length && n > 0; got += n) n = src.read(bytes, got, bytes.length - got, got);
    const text = utf8.decode(bytes.subarray(0, got));
    if (src.size < EXACT_BELOW) return parsePyJson(text);
    // Most records are far from every cap: parsed whole (5× faster), and kept when no cap could have applied.
    // Anything near one (a long string or number, a large container, deep nesting, a syntax error) is read again
    // below, so the answer is the capped reader's in every case.
    if (!hasLongNumber(bytes, got)) {
      try {
        const v = parsePyJson(text, { maxDepth: MAX_BUILT_DEPTH - 1 });
        if (farFromCaps(v)) return v;
      } catch {
        // the capped reader reports it
      }
    }
  }
  return readCappedJsonStreamed(src);
}

/** Whether a run of NUMBER_CAP number bytes occurs: one linear pass (a `{1024}` regex rescans every run). */
function hasLongNumber(bytes: Uint8Array, end: number): boolean {
  let run = 0;
  for (let i = 0; i < end; i++) {
    if (NUMBER_BYTE[bytes[i]] === 0) run = 0;
    else if (++run >= NUMBER_CAP) return true;
  }
  return false;
}

/** The capped reader alone (tests hold the fast path of readCappedJson to its answers). */
export function readCappedJsonStreamed(src: ByteSource): unknown {
  const c = new JsonCursor(src, Math.min(CHUNK, src.size));
  const reader = new CappedReader(c);
  const v = reader.value(0);
  if (c.ws() >= 0) c.fail(`unexpected ${c.describe()} after the end of the JSON value`);
  return v;
}

/** A ByteSource over `length` bytes at `position` of a larger source, checking the request's work budget per read. */
export function rangeSource(read: (into: Uint8Array, at: number, length: number, position: number) => number, position: number, length: number): ByteSource {
  return {
    size: length,
    read(into, at, want, pos) {
      checkBudget();
      const n = Math.min(want, length - pos);
      return n > 0 ? read(into, at, n, position + pos) : 0;
    },
  };
}

class CappedReader {
  private room = RECORD_ROOM;

  constructor(private readonly c: JsonCursor) {}

  value(depth: number): unknown {
    const c = this.c;
    const ch = c.next();
    if (ch === 0x7b || ch === 0x5b) {
      if (depth >= MAX_BUILT_DEPTH) {
        skipValue(c, depth);
        return `[truncated: nested deeper than ${MAX_BUILT_DEPTH} levels]`;
      }
      return ch === 0x7b ? this.object(depth) : this.array(depth);
    }
    if (ch === 0x22) return this.string();
    // Scalars: numbers (a long token becomes a marker) and literals.
    this.room--;
    return ch === 0x2d || (ch >= 0x30 && ch <= 0x39) ? this.number() : readLiteral(c, ch);
  }

  private object(depth: number): Record<string, unknown> {
    const c = this.c;
    const out: Record<string, unknown> = Object.create(null);
    if (!c.openObject()) return out;
    let kept = 0;
    let left = 0;
    do {
      checkBudget();
      if (c.next() !== 0x22) c.fail(`expected a key string, found ${c.describe()}`);
      if (kept < MAX_ENTRIES && this.room > 0) {
        const key = this.string();
        c.colon();
        out[key] = this.value(depth + 1);
        kept++;
      } else {
        c.skipString();
        c.colon();
        skipValue(c, depth + 1);
        left++;
      }
    } while (c.nextMember());
    if (left > 0) out[TRUNCATED_KEY] = `[truncated: ${count(left)} more keys]`;
    return out;
  }

  private array(depth: number): unknown[] {
    const c = this.c;
    const out: unknown[] = [];
    if (!c.openArray()) return out;
    let left = 0;
    do {
      checkBudget();
      if (out.length < MAX_ENTRIES && this.room > 0) out.push(this.value(depth + 1));
      else {
        skipValue(c, depth + 1);
        left++;
      }
    } while (c.nextElement());
    if (left > 0) out.push(`[truncated: ${count(left)} more elements]`);
    return out;
  }

  /** The number at p; a token longer than NUMBER_CAP (validated while indexing) is skipped, not kept whole. */
  private number(): number | string {
    const c = this.c;
    c.ensure(NUMBER_CAP);
    let k = c.p;
    while (k < c.end && NUMBER_BYTE[c.buf[k]]) k++;
    if (k - c.p < NUMBER_CAP) return c.readNumber();
    const startAbs = c.at();
    for (;;) {
      while (c.p < c.end && NUMBER_BYTE[c.buf[c.p]]) c.p++;
      if (c.p < c.end || c.eof) break;
      c.refill(c.p);
    }
    return `[truncated: a ${count(c.at() - startAbs)}-byte number]`;
  }

  /** The string at p: whole when short, else its first bytes and a marker; the rest is never decoded. */
  private string(): string {
    const c = this.c;
    const cap = Math.max(0, Math.min(STRING_CAP, this.room));
    c.ensure(cap + 8);
    const buf = c.buf;
    const from = c.p + 1;
    const end = c.end;
    // Walk escape by escape so the cut never splits one; a quote within `cap` bytes means the string is short.
    let p = from;
    let cut = from;
    while (p < end && p - from <= cap && buf[p] !== 0x22) {
      p += buf[p] === 0x5c ? (buf[p + 1] === 0x75 ? 6 : 2) : 1;
      if (p - from <= cap) cut = p;
    }
    if (p < end && p - from <= cap && buf[p] === 0x22) {
      const s = c.readString();
      this.room -= s.length;
      return s;
    }
    const startAbs = c.at();
    const prefix = buf.slice(from, cut);
    c.skipString();
    const total = c.at() - startAbs - 2;
    this.room -= prefix.length;
    return truncatedString(decodePrefix(prefix), total);
  }
}

/** Raw string bytes (already validated by skipString) cut at an escape boundary → text, a split UTF-8 tail dropped. */
function decodePrefix(raw: Uint8Array): string {
  let end = raw.length;
  for (let k = 1; k <= 3 && end - k >= 0; k++) {
    const b = raw[end - k];
    if (b < 0x80) break;
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      if (need > k) end -= k;
      break;
    }
  }
  const text = utf8.decode(raw.subarray(0, end));
  return text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text;
}

/**
 * True when no cap of the capped reader could have cut `v`: every string shorter than STRING_CAP / 6 characters (its
 * JSON text is then under STRING_CAP bytes even if every character was a \\uXXXX escape) and every container under
 * MAX_ENTRIES entries. The record room cannot run out in a value under FAST_BELOW bytes.
 */
function farFromCaps(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') {
      if (x.length >= STRING_CAP / 6) return false;
    } else if (Array.isArray(x)) {
      if (x.length >= MAX_ENTRIES) return false;
      for (const e of x) stack.push(e);
    } else if (x !== null && typeof x === 'object') {
      const keys = Object.keys(x);
      if (keys.length >= MAX_ENTRIES) return false;
      for (const k of keys) stack.push(k, (x as Record<string, unknown>)[k]);
    }
  }
  return true;
}
