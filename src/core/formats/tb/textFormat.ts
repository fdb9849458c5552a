/**
 * Protobuf text format (what `.pbtxt` GraphDefs and RunMetadata dumps use), parsed against a protobufjs type into
 * the same plain objects its binary decoder yields (keepCase names, bytes as Uint8Array, enums as numbers, int64 as
 * numbers). Covers: `name: value`, `name { … }` / `name < … >` / `name: { … }`, repeated fields by repetition or
 * `[a, b]`, map entries `attr { key: "k" value { … } }`, C escapes in strings (octal, hex, \u), adjacent string
 * concatenation, numbers with exponents / hex / `inf` / `nan`, enum names and `#` comments. Unknown fields are
 * skipped (a newer writer's fields must not stop the file); errors carry the 1-based line:column.
 */
import type protobuf from 'protobufjs';
import { TbFormatError } from './tbError.js';

type Obj = Record<string, unknown>;

const INT_TYPES = new Set([
  'int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'int64', 'uint64', 'sint64', 'fixed64', 'sfixed64',
]);
const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63,
};
const SPECIAL_FLOATS: Record<string, number> = {
  inf: Infinity, infinity: Infinity, '-inf': -Infinity, '-infinity': -Infinity, nan: NaN,
};
const utf8 = new TextDecoder('utf-8');
const utf8Enc = new TextEncoder();

class Parser {
  pos = 0;
  /** Start of the token being looked at and of the one before (an error at end of file points at the last token). */
  private cur = 0;
  private prev = 0;
  constructor(private readonly text: string) {}

  fail(message: string, at = this.pos): never {
    if (at >= this.text.length) at = this.prev;
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < at; i++)
      if (this.text.charCodeAt(i) === 10) {
        line++;
        lineStart = i + 1;
      }
    const column = at - lineStart + 1;
    throw new TbFormatError(`${line}:${column}: ${message}`, { line, column });
  }

  skipSpace(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11) this.pos++;
      else if (c === 35) {
        const nl = t.indexOf('\n', this.pos);
        this.pos = nl < 0 ? t.length : nl + 1;
      } else break;
    }
    if (this.pos !== this.cur) {
      this.prev = this.cur;
      this.cur = this.pos;
    }
  }

  peek(): string {
    this.skipSpace();
    return this.text[this.pos] ?? '';
  }

  describeHere(): string {
    const c = this.peek();
    return c === '' ? 'end of file' : JSON.stringify(this.text.slice(this.pos, this.pos + 12).split(/\s/)[0] || c);
  }

  expect(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected "${ch}", found ${this.describeHere()}`);
    this.pos++;
  }

  tryEat(ch: string): boolean {
    if (this.peek() !== ch) return false;
    this.pos++;
    return true;
  }

  /** An identifier, a number or any other bare token up to a delimiter. */
  word(): string {
    this.skipSpace();
    const m = /^[A-Za-z0-9_.+\-]+/.exec(this.text.slice(this.pos, this.pos + 256));
    if (!m) this.fail(`expected a value, found ${this.describeHere()}`);
    this.pos += m[0].length;
    return m[0];
  }

  fieldName(): string {
    this.skipSpace();
    if (this.text[this.pos] === '[') {
      // An extension or Any type URL: `[type.googleapis.com/x.Y] { … }`.
      const end = this.text.indexOf(']', this.pos);
      if (end < 0) this.fail('unterminated "["');
      const name = this.text.slice(this.pos, end + 1);
      this.pos = end + 1;
      return name;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.pos, this.pos + 256));
    if (!m) this.fail(`expected a field name, found ${this.describeHere()}`);
    this.pos += m[0].length;
    return m[0];
  }

  /** One or more adjacent quoted strings, unescaped into bytes. */
  stringBytes(): Uint8Array {
    const parts: number[] = [];
    do {
      const quote = this.text[this.pos];
      const start = this.pos;
      this.pos++;
      for (;;) {
        const ch = this.text[this.pos];
        if (ch === undefined || ch === '\n') this.fail('unterminated string', start);
        this.pos++;
        if (ch === quote) break;
        if (ch !== '\\') {
          const code = this.text.codePointAt(this.pos - 1)!;
          if (code < 0x80) parts.push(code);
          else {
            if (code > 0xffff) this.pos++;
            for (const b of utf8Enc.encode(String.fromCodePoint(code))) parts.push(b);
          }
          continue;
        }
        const e = this.text[this.pos++];
        if (e in SIMPLE_ESCAPES) parts.push(SIMPLE_ESCAPES[e]);
        else if (e >= '0' && e <= '7') {
          let v = Number(e);
          for (let k = 0; k < 2 && /[0-7]/.test(this.text[this.pos]); k++) v = v * 8 + Number(this.text[this.pos++]);
          parts.push(v & 0xff);
        } else if (e === 'x' || e === 'X') {
          const m = /^[0-9A-Fa-f]{1,2}/.exec(this.text.slice(this.pos, this.pos + 2));
          if (!m) this.fail('bad \\x escape', this.pos - 2);
          this.pos += m[0].length;
          parts.push(parseInt(m[0], 16));
        } else if (e === 'u' || e === 'U') {
          const n = e === 'u' ? 4 : 8;
          const hex = this.text.slice(this.pos, this.pos + n);
          if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== n) this.fail(`bad \\${e} escape`, this.pos - 2);
          this.pos += n;
          for (const b of utf8Enc.encode(String.fromCodePoint(parseInt(hex, 16)))) parts.push(b);
        } else this.fail(`unknown escape "\\${e ?? ''}"`, this.pos - 2);
      }
      this.skipSpace();
    } while (this.text[this.pos] === '"' || this.text[this.pos] === "'");
    return Uint8Array.from(parts);
  }

  scalar(type: string, resolved: protobuf.ReflectionObject | null, at: number): unknown {
    const c = this.peek();
    if (c === '"' || c === "'") {
      const bytes = this.stringBytes();
      if (type === 'bytes') return bytes;
      if (type === 'string') return utf8.decode(bytes);
      this.fail(`expected a ${type}, found a string`, at);
    }
    if (type === 'string' || type === 'bytes') this.fail(`expected a string, found ${this.describeHere()}`);
    const w = this.word();
    if (resolved && 'values' in resolved) {
      const values = (resolved as protobuf.Enum).values;
      if (w in values) return values[w];
      if (/^-?\d+$/.test(w)) return Number(w);
      this.fail(`unknown ${(resolved as protobuf.Enum).name} value "${w}"`, at);
    }
    if (type === 'bool') {
      if (w === 'true' || w === 'True' || w === 't' || w === '1') return true;
      if (w === 'false' || w === 'False' || w === 'f' || w === '0') return false;
      this.fail(`expected true or false, found "${w}"`, at);
    }
    if (INT_TYPES.has(type)) {
      const hex = /^(-?)0[xX]([0-9a-fA-F]+)$/.exec(w);
      const v = hex ? (hex[1] ? -1 : 1) * parseInt(hex[2], 16) : Number(w);
      if (!Number.isInteger(v)) this.fail(`expected an integer, found "${w}"`, at);
      return v;
    }
    // float / double
    if (w.toLowerCase() in SPECIAL_FLOATS) return SPECIAL_FLOATS[w.toLowerCase()];
    const lower = w.toLowerCase().replace(/f$/, '');
    const v = Number(/^-?\d+\.?\d*(e[+-]?\d+)?$|^-?\.\d+(e[+-]?\d+)?$/.test(lower) ? lower : NaN);
    if (Number.isNaN(v)) this.fail(`expected a number, found "${w}"`, at);
    // A `float` field holds what the binary decoder would: the nearest float32.
    return type === 'float' ? Math.fround(v) : v;
  }

  /** A message body up to `close` ('' = end of input) into `out`. */
  message(type: protobuf.Type, close: string, out: Obj): Obj {
    for (;;) {
      const c = this.peek();
      if (c === '') {
        if (close === '') return out;
        this.fail(`expected "${close}", found end of file`);
      }
      if (c === close) {
        this.pos++;
        return out;
      }
      const at = this.pos;
      const name = this.fieldName();
      const field = type.fields[name] as protobuf.Field | undefined;
      if (!field) this.skipValue();
      else this.fieldValue(field, out, at);
      if (!this.tryEat(';')) this.tryEat(',');
    }
  }

  fieldValue(field: protobuf.Field, out: Obj, at: number): void {
    field.resolve();
    const isMap = (field as unknown as protobuf.MapField).map === true;
    const isMessage = isMap || field.resolvedType instanceof Object && 'fields' in (field.resolvedType as object);
    const hadColon = this.tryEat(':');
    if (!hadColon && !isMessage) this.fail(`expected ":" after "${field.name}"`);
    const one = (): unknown => {
      if (isMap) return this.mapEntry(field as unknown as protobuf.MapField);
      if (isMessage) {
        const open = this.peek();
        if (open !== '{' && open !== '<') this.fail(`expected "{" after "${field.name}", found ${this.describeHere()}`);
        this.pos++;
        return this.message(field.resolvedType as protobuf.Type, open === '{' ? '}' : '>', {});
      }
      return this.scalar(field.type, field.resolvedType, this.pos);
    };
    const values: unknown[] = [];
    if (this.peek() === '[' && (field.repeated || isMap)) {
      this.pos++;
      if (!this.tryEat(']')) {
        do values.push(one());
        while (this.tryEat(','));
        this.expect(']');
      }
    } else values.push(one());
    if (isMap) {
      const map = (out[field.name] ??= {}) as Obj;
      for (const [k, v] of values as Array<[string, unknown]>) map[k] = v;
    } else if (field.repeated) ((out[field.name] ??= []) as unknown[]).push(...values);
    else {
      if (values.length !== 1) this.fail(`"${field.name}" is not repeated`, at);
      out[field.name] = values[0];
      if (field.partOf) out[field.partOf.name] = field.name;
    }
  }

  mapEntry(field: protobuf.MapField): [string, unknown] {
    const open = this.peek();
    if (open !== '{' && open !== '<') this.fail(`expected "{" for a "${field.name}" entry, found ${this.describeHere()}`);
    this.pos++;
    const close = open === '{' ? '}' : '>';
    let key: unknown = field.keyType === 'string' ? '' : 0;
    let value: unknown;
    const valueType = field.resolvedType && 'fields' in field.resolvedType ? (field.resolvedType as protobuf.Type) : null;
    while (this.peek() !== close) {
      if (this.peek() === '') this.fail(`expected "${close}", found end of file`);
      const at = this.pos;
      const name = this.fieldName();
      if (name === 'key') {
        this.expect(':');
        key = this.scalar(field.keyType, null, at);
      } else if (name === 'value') {
        if (valueType) {
          this.tryEat(':');
          const o = this.peek();
          if (o !== '{' && o !== '<') this.fail(`expected "{" after "value", found ${this.describeHere()}`);
          this.pos++;
          value = this.message(valueType, o === '{' ? '}' : '>', {});
        } else {
          this.expect(':');
          value = this.scalar(field.type, field.resolvedType, at);
        }
      } else this.skipValue();
      if (!this.tryEat(';')) this.tryEat(',');
    }
    this.pos++;
    return [String(key), value ?? (valueType ? {} : field.type === 'string' ? '' : 0)];
  }

  /** Skips an unknown field's value: a scalar, a string, a block or a list. */
  skipValue(): void {
    const colon = this.tryEat(':');
    const c = this.peek();
    if (c === '[') {
      this.pos++;
      if (!this.tryEat(']')) {
        do this.skipItem();
        while (this.tryEat(','));
        this.expect(']');
      }
    } else if (colon || c === '{' || c === '<') this.skipItem();
    else this.fail(`expected ":" or "{", found ${this.describeHere()}`);
  }

  skipItem(): void {
    const c = this.peek();
    if (c === '{' || c === '<') {
      this.pos++;
      this.skipBlock(c === '{' ? '}' : '>');
    } else if (c === '"' || c === "'") this.stringBytes();
    else this.word();
  }

  skipBlock(close: string): void {
    for (;;) {
      const c = this.peek();
      if (c === '') this.fail(`expected "${close}", found end of file`);
      if (c === close) {
        this.pos++;
        return;
      }
      this.fieldName();
      this.skipValue();
      if (!this.tryEat(';')) this.tryEat(',');
    }
  }
}

export function parseTextFormat<T>(text: string, type: protobuf.Type): T {
  const parser = new Parser(text);
  try {
    return parser.message(type, '', {}) as T;
  } catch (e) {
    // Nesting deeper than the stack: name the place instead of V8's "Maximum call stack size exceeded".
    if (e instanceof RangeError) parser.fail('nested too deeply');
    throw e;
  }
}
