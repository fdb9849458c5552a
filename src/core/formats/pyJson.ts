/**
 * A JSON reader for files written by Python's `json.dump` (msprobe-format.md §1.4.3).
 *
 * Why not `JSON.parse`: Python writes the bare tokens `NaN`, `Infinity`, `-Infinity` (allow_nan=True), and msprobe's
 * output text depends on whether a number was written as `423` or `423.0`, and on key order (including integer-like
 * keys, which JS objects would move to the front). No maintained library keeps all three, so this small recursive
 * descent parser does, in two modes:
 *
 * - `js` (default): plain objects (null prototype, `__proto__` is an ordinary key), every number a JS `number`.
 *   Enough for `.vis` files, where every value that matters is a string.
 * - `python`: objects become `Map` (file order kept), integers become `bigint` (exact, and distinguishable from
 *   floats: `423n` vs `423`), floats and NaN/±Infinity become `number`. Use for dump.json / construct.json.
 *
 * Errors are values: a `PyJsonError` names the file, line and column.
 */

export type PyValue = null | boolean | string | number | bigint | PyValue[] | Map<string, PyValue>;

export interface ParseOptions {
  mode?: 'js' | 'python';
  /** Shown in error messages. */
  file?: string;
  /** Deeper nesting is refused (default 10,000; values shown to a browser want less, as JSON.stringify recurses). */
  maxDepth?: number;
}

export class PyJsonError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}:${column}: ${problem}`);
    this.name = 'PyJsonError';
  }
}

const WS = new Uint8Array(128);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;

// Python ints are bigints; the small ones (shapes, counts) come from a table instead of one allocation each.
const SMALL_INT_LIMIT = 1 << 16;
const smallInts: bigint[] = [];
function pyInt(v: number): bigint {
  if (v < SMALL_INT_LIMIT) return (smallInts[v] ??= BigInt(v));
  return BigInt(v);
}

/**
 * Short strings repeat endlessly in a dump (keys such as "Max" and "dtype", values such as "torch.Tensor"): one
 * string per distinct text keeps memory down and makes later Map lookups cheap. The table is keyed by a hash of the
 * characters, so a repeat costs no allocation; it is shared by every parse (bounded, oldest-first eviction is not
 * needed: once full, new texts are simply not interned).
 */
const INTERN_MAX_LENGTH = 40;
const INTERN_SLOTS = 1 << 14;
const INTERN_MAX_ENTRIES = INTERN_SLOTS >> 1;
const internTable: Array<string | undefined> = new Array(INTERN_SLOTS);
let internEntries = 0;

export function parsePyJson(text: string, options: ParseOptions = {}): unknown {
  const python = options.mode === 'python';
  const file = options.file ?? '<input>';
  const maxDepth = options.maxDepth ?? 10_000;
  let i = 0;
  const n = text.length;

  const fail = (problem: string, at = i): never => {
    let line = 1;
    let lineStart = 0;
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 0x0a) {
        line++;
        lineStart = k + 1;
      }
    }
    throw new PyJsonError(file, line, at - lineStart + 1, problem);
  };

  const skipWs = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128 && WS[c]) i++;
      else break;
    }
  };

  const describe = (at: number) => (at >= n ? 'end of file' : `'${text[at]}'`);

  /** text[start, end) as a string, interned when short. */
  const plainString = (start: number, end: number, hash: number): string => {
    const len = end - start;
    if (len > INTERN_MAX_LENGTH) return text.slice(start, end);
    let slot = (hash ^ (hash >>> 15) ^ len) & (INTERN_SLOTS - 1);
    for (;;) {
      const known = internTable[slot];
      if (known === undefined) break;
      if (known.length === len) {
        let k = 0;
        while (k < len && known.charCodeAt(k) === text.charCodeAt(start + k)) k++;
        if (k === len) return known;
      }
      slot = (slot + 1) & (INTERN_SLOTS - 1);
    }
    // A flat copy: a slice would keep the whole file text alive for as long as the string lives.
    const s = len < 13 ? text.slice(start, end) : flatten(text.slice(start, end));
    if (internEntries < INTERN_MAX_ENTRIES) {
      internTable[slot] = s;
      internEntries++;
    }
    return s;
  };

  const parseString = (): string => {
    // i is at the opening quote
    i++;
    const begin = i;
    // Fast scan over plain characters; most strings have no escapes.
    let hash = 0;
    let c = 0;
    while (i < n) {
      c = text.charCodeAt(i);
      if (c === 0x22 || c === 0x5c || c < 0x20) break;
      hash = (Math.imul(hash, 31) + c) | 0;
      i++;
    }
    if (i >= n) fail('unterminated string (file truncated?)');
    if (c === 0x22) {
      i++;
      return plainString(begin, i - 1, hash);
    }
    return escapedString(begin);
  };

  const escapedString = (begin: number): string => {
    let start = begin;
    let out = '';
    while (true) {
      let c = 0;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === 0x22 || c === 0x5c || c < 0x20) break;
        i++;
      }
      if (i >= n) fail('unterminated string (file truncated?)');
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('control character in string');
      out += text.slice(start, i);
      i++;
      if (i >= n) fail('unterminated string (file truncated?)');
      const e = text[i];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          const hex = text.slice(i + 1, i + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape in string');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
          break;
        }
        default:
          fail(`bad escape '\\${e}' in string`);
      }
      i++;
      start = i;
    }
  };

  // JSON number grammar by hand (a sticky regex allocates a match per number, and dumps are mostly numbers).
  const parseNumber = (): number | bigint => {
    const start = i;
    let c = text.charCodeAt(i);
    const negative = c === 0x2d;
    if (negative) c = text.charCodeAt(++i);
    // Integer digits are accumulated as they are scanned: ints (and short ones are most) need no substring.
    let value = 0;
    const digitsStart = i;
    if (c === 0x30) i++;
    else if (c > 0x30 && c <= 0x39) {
      do {
        value = value * 10 + (c - 0x30);
        c = text.charCodeAt(++i);
      } while (c >= 0x30 && c <= 0x39);
    } else return fail(`unexpected ${describe(start)}`, start);
    let isFloat = false;
    c = text.charCodeAt(i);
    if (c === 0x2e) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0x30 && d <= 0x39) {
        isFloat = true;
        i += 2;
        for (c = text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i));
      }
    }
    if (c === 0x65 || c === 0x45) {
      let j = i + 1;
      const sign = text.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      const d = text.charCodeAt(j);
      if (d >= 0x30 && d <= 0x39) {
        isFloat = true;
        i = j + 1;
        for (c = text.charCodeAt(i); c >= 0x30 && c <= 0x39; c = text.charCodeAt(++i));
      }
    }
    if (!isFloat) {
      // 15 digits are always exact in a double; longer ints go through the text.
      if (i - digitsStart <= 15) {
        if (!python) return negative ? -value : value;
        return negative ? -pyInt(value) : pyInt(value);
      }
      const lexeme = text.slice(start, i);
      return python ? BigInt(lexeme) : Number(lexeme);
    }
    return Number(text.slice(start, i));
  };

  const literal = (word: string, value: unknown) => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail(`unexpected ${describe(i)}`);
  };

  const parseObject = (depth: number): unknown => {
    i++;
    const map: Map<string, unknown> | null = python ? new Map() : null;
    const obj: Record<string, unknown> | null = python ? null : Object.create(null);
    skipWs();
    if (text.charCodeAt(i) === 0x7d) {
      i++;
      return map ?? obj;
    }
    while (true) {
      skipWs();
      if (text.charCodeAt(i) !== 0x22) fail(i >= n ? 'unexpected end of file (file truncated?)' : `expected a key string, found ${describe(i)}`);
      const key = parseString();
      skipWs();
      if (text.charCodeAt(i) !== 0x3a) fail(`expected ':' after key, found ${describe(i)}`);
      i++;
      const v = parseValue(depth + 1);
      if (map) map.set(key, v);
      else obj![key] = v;
      skipWs();
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i++;
        continue;
      }
      if (c === 0x7d) {
        i++;
        return map ?? obj;
      }
      fail(i >= n ? 'unexpected end of file (file truncated?)' : `expected ',' or '}', found ${describe(i)}`);
    }
  };

  const parseArray = (depth: number): unknown[] => {
    i++;
    const arr: unknown[] = [];
    skipWs();
    if (text.charCodeAt(i) === 0x5d) {
      i++;
      return arr;
    }
    while (true) {
      arr.push(parseValue(depth + 1));
      skipWs();
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i++;
        continue;
      }
      if (c === 0x5d) {
        i++;
        return arr;
      }
      fail(i >= n ? 'unexpected end of file (file truncated?)' : `expected ',' or ']', found ${describe(i)}`);
    }
  };

  // Iterative nesting would be faster on pathological depth; msprobe files are at most a few hundred levels deep.
  const parseValue = (depth: number): unknown => {
    if (depth > maxDepth) fail('nesting too deep');
    skipWs();
    if (i >= n) fail('unexpected end of file (file truncated?)');
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
        return parseObject(depth);
      case 0x5b: // [
        return parseArray(depth);
      case 0x22: // "
        return parseString();
      case 0x74: // t
        return literal('true', true);
      case 0x66: // f
        return literal('false', false);
      case 0x6e: // n
        return literal('null', null);
      case 0x4e: // N
        return literal('NaN', NaN);
      case 0x49: // I
        return literal('Infinity', Infinity);
      case 0x2d: // -
        if (text.startsWith('-Infinity', i)) {
          i += 9;
          return -Infinity;
        }
        return parseNumber();
      default:
        if (c >= 0x30 && c <= 0x39) return parseNumber();
        return fail(`unexpected ${describe(i)}`);
    }
  };

  if (text.charCodeAt(0) === 0xfeff) i = 1; // UTF-8 BOM
  const value = parseValue(0);
  skipWs();
  if (i < n) fail(`unexpected ${describe(i)} after the end of the JSON value`);
  return value;
}

/** A copy of `s` that does not point into the string it was sliced from. */
function flatten(s: string): string {
  // Number-to-string coercion forces a flat sequential copy; cheaper than s.split('').join('').
  return (' ' + s).slice(1);
}

/** Objects as parsePyJson builds them: no prototype, so a key from the file never meets Object.prototype's. */
function nullPrototypes(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (const x of v) nullPrototypes(x);
  } else {
    Object.setPrototypeOf(v, null);
    for (const k in v) nullPrototypes((v as Record<string, unknown>)[k]);
  }
  return v;
}

/**
 * parsePyJson's `js`-mode value, from the native parser when it can give the same: standard JSON (no NaN / Infinity
 * literals) with fewer opening brackets than the depth limit (so nesting cannot pass it). Several times faster on the
 * items and link lists read in bulk; anything else, and every error message, comes from parsePyJson.
 */
export function parseJsonFast(text: string, options: Omit<ParseOptions, 'mode'> = {}): unknown {
  const maxDepth = options.maxDepth ?? 10_000;
  let open = 0;
  for (let k = 0; k < text.length && open <= maxDepth; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x5b || c === 0x7b) open++;
  }
  if (open <= maxDepth) {
    try {
      return nullPrototypes(JSON.parse(text));
    } catch {
      // not standard JSON: parsePyJson reads it or names the problem
    }
  }
  return parsePyJson(text, options);
}
