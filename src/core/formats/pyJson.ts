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

export function parsePyJson(text: string, options: ParseOptions = {}): unknown {
  const python = options.mode === 'python';
  const file = options.file ?? '<input>';
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

  // Object keys repeat millions of times in a dump ("Max", "dtype", …): one string object per distinct key saves
  // memory and makes later Map lookups pointer comparisons.
  const keys = new Map<string, string>();
  const internKey = (k: string): string => {
    if (k.length > 24) return k;
    const known = keys.get(k);
    if (known !== undefined) return known;
    keys.set(k, k);
    return k;
  };

  const describe = (at: number) => (at >= n ? 'end of file' : `'${text[at]}'`);

  const parseString = (): string => {
    // i is at the opening quote
    i++;
    let start = i;
    let out = '';
    while (true) {
      // Fast scan over plain characters; most strings have no escapes.
      let c = 0;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === 0x22 || c === 0x5c || c < 0x20) break;
        i++;
      }
      if (i >= n) fail('unterminated string (file truncated?)');
      if (c === 0x22) {
        out = out ? out + text.slice(start, i) : text.slice(start, i);
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

  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

  // JSON number grammar by hand (a sticky regex allocates a match per number, and dumps are mostly numbers).
  const parseNumber = (): number | bigint => {
    const start = i;
    if (text.charCodeAt(i) === 0x2d) i++;
    const first = text.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first > 0x30 && first <= 0x39) while (isDigit(text.charCodeAt(i))) i++;
    else return fail(`unexpected ${describe(start)}`, start);
    let isFloat = false;
    if (text.charCodeAt(i) === 0x2e && isDigit(text.charCodeAt(i + 1))) {
      isFloat = true;
      i += 2;
      while (isDigit(text.charCodeAt(i))) i++;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      let j = i + 1;
      const sign = text.charCodeAt(j);
      if (sign === 0x2b || sign === 0x2d) j++;
      if (isDigit(text.charCodeAt(j))) {
        isFloat = true;
        i = j + 1;
        while (isDigit(text.charCodeAt(i))) i++;
      }
    }
    const lexeme = text.slice(start, i);
    if (python && !isFloat) return BigInt(lexeme);
    return Number(lexeme);
  };

  const literal = (word: string, value: unknown) => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail(`unexpected ${describe(i)}`);
  };

  // Iterative nesting would be faster on pathological depth; msprobe files are at most a few hundred levels deep.
  const parseValue = (depth: number): unknown => {
    if (depth > 10_000) fail('nesting too deep');
    skipWs();
    if (i >= n) fail('unexpected end of file (file truncated?)');
    const c = text[i];
    switch (c) {
      case '{': {
        i++;
        const obj: Map<string, unknown> | Record<string, unknown> = python ? new Map() : Object.create(null);
        skipWs();
        if (text[i] === '}') {
          i++;
          return obj;
        }
        while (true) {
          skipWs();
          if (text[i] !== '"') fail(i >= n ? 'unexpected end of file (file truncated?)' : `expected a key string, found ${describe(i)}`);
          const key = internKey(parseString());
          skipWs();
          if (text[i] !== ':') fail(`expected ':' after key, found ${describe(i)}`);
          i++;
          const v = parseValue(depth + 1);
          if (python) (obj as Map<string, unknown>).set(key, v);
          else (obj as Record<string, unknown>)[key] = v;
          skipWs();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i] === '}') {
            i++;
            return obj;
          }
          fail(i >= n ? 'unexpected end of file (file truncated?)' : `expected ',' or '}', found ${describe(i)}`);
        }
      }
      case '[': {
        i++;
        const arr: unknown[] = [];
        skipWs();
        if (text[i] === ']') {
          i++;
          return arr;
        }
        while (true) {
          arr.push(parseValue(depth + 1));
          skipWs();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i] === ']') {
            i++;
            return arr;
          }
          fail(i >= n ? 'unexpected end of file (file truncated?)' : `expected ',' or ']', found ${describe(i)}`);
        }
      }
      case '"':
        return parseString();
      case 't':
        return literal('true', true);
      case 'f':
        return literal('false', false);
      case 'n':
        return literal('null', null);
      case 'N':
        return literal('NaN', NaN);
      case 'I':
        return literal('Infinity', Infinity);
      case '-':
        if (text.startsWith('-Infinity', i)) {
          i += 9;
          return -Infinity;
        }
        return parseNumber();
      default:
        if (c >= '0' && c <= '9') return parseNumber();
        return fail(`unexpected ${describe(i)}`);
    }
  };

  if (text.charCodeAt(0) === 0xfeff) i = 1; // UTF-8 BOM
  const value = parseValue(0);
  skipWs();
  if (i < n) fail(`unexpected ${describe(i)} after the end of the JSON value`);
  return value;
}
