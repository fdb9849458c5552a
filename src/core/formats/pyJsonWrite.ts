import { pyFloatRepr } from './pyFormat.js';

/**
 * Python `json.dumps` output, byte for byte: `ensure_ascii=True` (lower-case `\uXXXX`, surrogate pairs as two
 * escapes, `/` not escaped), `allow_nan=True` (`NaN`, `Infinity`), `indent=4` → `",\n"` + `": "` separators and
 * `{}`/`[]` for empty containers, no indent → `", "` and `": "` (msprobe-format.md §4.2–4.3).
 *
 * Numbers: a `bigint` or an integral JS number is written as a Python int, any other number as a Python float repr;
 * wrap a number in `PyFloat` when it is a Python float whatever its value (`1.0`).
 */
export type JsonTree =
  | null
  | boolean
  | string
  | number
  | bigint
  | JsonTree[]
  | ReadonlyMap<string, JsonTree>
  | LazyObject
  | PyFloat
  | JsonFragment
  | { readonly [key: string]: JsonTree };

/** An object whose entries are produced while writing, so a whole graph never sits in memory twice. */
export class LazyObject {
  constructor(readonly entries: () => Iterable<readonly [string, JsonTree]>) {}
}

/** A Python float: written as its repr even when integral (`1.0`, `NaN`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/**
 * A value rendered by its owner straight to JSON text (hot paths that would otherwise build throw-away trees).
 * `render` gets the writer's indent (null = compact) and the nesting level the value sits at.
 */
export class JsonFragment {
  constructor(
    readonly render: (indent: number | null, level: number) => string,
    /** Told where in the whole output (in characters) the rendered text starts. */
    readonly placed?: (offset: number) => void,
  ) {}
}

// Characters that need no escaping: printable ASCII except '"' and '\'.
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/** Python's `json.encoder.py_encode_basestring_ascii`. */
export function pyJsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      case 0x08: out += '\\b'; break;
      case 0x0c: out += '\\f'; break;
      default: out += '\\u' + c.toString(16).padStart(4, '0');
    }
  }
  return out + s.slice(start) + '"';
}

/** A number as `json.dumps` writes it: an integral value as an int, anything else as a float repr. */
export function numberText(v: number): string {
  if (Number.isInteger(v) && !Object.is(v, -0) && Math.abs(v) < 1e21) return String(v);
  return floatText(v);
}

/** A Python float as `json.dumps` writes it (`1.0`, `NaN`, `Infinity`). */
export function floatText(v: number): string {
  if (v !== v) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return pyFloatRepr(v);
}

const newlineIndents: string[] = [];
/** `"\n"` followed by `n` spaces (cached: the writers ask for the same few thousands of times). */
export function newlineIndent(n: number): string {
  return (newlineIndents[n] ??= '\n' + ' '.repeat(n));
}

/**
 * A list as `json.dumps(…, indent)` writes it when nested at `level` (the Writer's array, by hand), each element's
 * JSON text from `text`.
 */
export function listJson<T>(list: readonly T[], text: (element: T) => string, indent: number | null, level: number): string {
  if (list.length === 0) return '[]';
  const sep = indent === null ? ', ' : ',' + newlineIndent(indent * (level + 1));
  let out = (indent === null ? '[' : '[' + newlineIndent(indent * (level + 1))) + text(list[0]);
  for (let i = 1; i < list.length; i++) out += sep + text(list[i]);
  return out + (indent === null ? ']' : newlineIndent(indent * level) + ']');
}

/** A list of strings as `json.dumps(…, indent)` writes it when nested at `level`. */
export function stringListJson(list: readonly string[], indent: number | null, level: number): string {
  return listJson(list, pyJsonString, indent, level);
}

/** `pyJsonString(s)`, made once and kept in `known` (texts a file repeats, such as node ids). */
export function knownJsonString(s: string, known: Map<string, string>): string {
  let text = known.get(s);
  if (text === undefined) known.set(s, (text = pyJsonString(s)));
  return text;
}

/** `json.dumps(value)` with Python's default separators. */
export function pyJsonDumps(value: JsonTree): string {
  const w = new Writer(null, null, Infinity);
  w.value(value, 0);
  return w.out;
}

/** `value` as it reads when nested at `level` inside a `json.dumps(…, indent)` document. */
export function renderPyJson(value: JsonTree, indent: number | null, level: number): string {
  const w = new Writer(indent, null, Infinity);
  w.value(value, level);
  return w.out;
}

/**
 * `json.dumps(value, indent)` streamed to `sink` in chunks of about `chunkSize` characters.
 * Pass `indent = null` for the compact form.
 *
 * A chunk is a rope of many small strings, and whoever writes it out has it copied into one flat string first; at
 * 64 KiB that copy is an ordinary young object, gone at the next scavenge. Chunks of 1 MiB each took a large
 * object of their own (a fresh mapping the kernel zero-fills): a 150 MB `.vis` was written 50 ms slower.
 */
export function writePyJson(value: JsonTree, indent: number | null, sink: (chunk: string) => void, chunkSize = 1 << 16): void {
  const w = new Writer(indent, sink, chunkSize);
  w.value(value, 0);
  if (w.out) sink(w.out);
}

class Writer {
  out = '';
  /** Characters already handed to the sink. */
  private sent = 0;

  constructor(
    private readonly indent: number | null,
    private readonly sink: ((chunk: string) => void) | null,
    private readonly chunkSize: number,
  ) {}

  value(v: JsonTree, level: number): void {
    if (v === null) {
      this.out += 'null';
      return;
    }
    switch (typeof v) {
      case 'string':
        this.out += pyJsonString(v);
        return;
      case 'number':
        this.out += numberText(v);
        return;
      case 'bigint':
        this.out += v.toString();
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
    }
    if (v instanceof JsonFragment) {
      const text = v.render(this.indent, level);
      v.placed?.(this.sent + this.out.length);
      this.out += text;
      return;
    }
    if (v instanceof PyFloat) {
      this.out += floatText(v.value);
      return;
    }
    if (Array.isArray(v)) {
      this.array(v, level);
      return;
    }
    const entries: Iterable<readonly [string, JsonTree]> =
      v instanceof LazyObject ? v.entries() : v instanceof Map ? v.entries() : Object.entries(v);
    this.object(entries, level);
  }

  private array(v: JsonTree[], level: number): void {
    if (v.length === 0) {
      this.out += '[]';
      return;
    }
    const sep = this.indent === null ? ', ' : ',' + newlineIndent(this.indent * (level + 1));
    this.out += this.indent === null ? '[' : '[' + newlineIndent(this.indent * (level + 1));
    for (let i = 0; i < v.length; i++) {
      if (i) this.out += sep;
      this.value(v[i], level + 1);
    }
    this.out += this.indent === null ? ']' : newlineIndent(this.indent * level) + ']';
  }

  private object(entries: Iterable<readonly [string, JsonTree]>, level: number): void {
    const sep = this.indent === null ? ', ' : ',' + newlineIndent(this.indent * (level + 1));
    let first = true;
    for (const [key, val] of entries) {
      if (first) {
        this.out += this.indent === null ? '{' : '{' + newlineIndent(this.indent * (level + 1));
        first = false;
      } else this.out += sep;
      this.out += pyJsonString(key);
      this.out += ': ';
      this.value(val, level + 1);
      if (this.out.length >= this.chunkSize) {
        this.sink!(this.out);
        this.sent += this.out.length;
        this.out = '';
      }
    }
    if (first) this.out += '{}';
    else this.out += this.indent === null ? '}' : newlineIndent(this.indent * level) + '}';
  }
}
