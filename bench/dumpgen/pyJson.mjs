// Writes JSON text byte-for-byte as Python's `json.dump(obj, f, indent=1)` does, which is how msprobe saves
// dump.json / construct.json / stack.json (msprobe-format.md §1.4.3): floats in `repr` form ("1.0", "1e-05",
// "1.5e+16"), the bare tokens NaN / Infinity / -Infinity, non-ASCII escaped (ensure_ascii), and ints kept apart from
// floats. Value convention: JS `number` = Python float, `bigint` = Python int.
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Python `repr(float)`: the shortest digits that round-trip (the same digits JS picks), but a different switch to
 * exponent notation (decimal exponent < -4 or ≥ 16, against JS's < -6 or ≥ 21), a two-digit signed exponent, and
 * ".0" on integral values.
 * @param {number} x
 * @returns {string}
 */
export function pyFloatRepr(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  const point = exp + 1; // digits before the decimal point
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

// Python's ensure_ascii escapes everything outside printable ASCII; JSON.stringify leaves DEL and non-ASCII alone.
const NON_ASCII = /[\u007f-\uffff]/g;

/** @param {string} s */
export function pyStringRepr(s) {
  return JSON.stringify(s).replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A Python value as JSON text with no newlines (scalars only). @param {unknown} v */
function scalarText(v) {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') return pyFloatRepr(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return pyStringRepr(v);
  return null;
}

/**
 * Streams one JSON document to a file in Python's indent=1 layout. Chunks are flushed every ~1 MB so that a 30 MB
 * dump.json never sits in memory as one string.
 */
export class PyJsonFileWriter {
  /**
   * @param {string} file
   * @param {(v: object) => unknown} [resolve] turns generator-specific objects (tensors) into plain values
   */
  constructor(file, resolve = (v) => v) {
    this.fd = openSync(file, 'w');
    this.resolve = resolve;
    /** @type {string[]} */
    this.parts = [];
    this.pending = 0;
  }

  /** @param {string} s */
  emit(s) {
    this.parts.push(s);
    this.pending += s.length;
    if (this.pending > 1 << 20) this.flush();
  }

  flush() {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.pending = 0;
  }

  /**
   * Writes `value` at nesting `depth` (the caller has already written the indentation of the first line).
   * @param {unknown} value
   * @param {number} depth
   */
  value(value, depth = 0) {
    const scalar = scalarText(value);
    if (scalar !== null) {
      this.emit(scalar);
      return;
    }
    const v = this.resolve(/** @type {object} */ (value));
    if (v !== value) {
      this.value(v, depth);
      return;
    }
    const inner = `\n${' '.repeat(depth + 1)}`;
    if (Array.isArray(v)) {
      if (v.length === 0) {
        this.emit('[]');
        return;
      }
      this.emit('[');
      for (let i = 0; i < v.length; i++) {
        this.emit(i === 0 ? inner : `,${inner}`);
        this.value(v[i], depth + 1);
      }
      this.emit(`\n${' '.repeat(depth)}]`);
      return;
    }
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(/** @type {object} */ (v));
    if (entries.length === 0) {
      this.emit('{}');
      return;
    }
    this.emit('{');
    entries.forEach(([k, item], i) => {
      this.emit(`${i === 0 ? inner : `,${inner}`}${pyStringRepr(k)}: `);
      this.value(item, depth + 1);
    });
    this.emit(`\n${' '.repeat(depth)}}`);
  }

  /**
   * Writes a top-level object whose entries are produced lazily, so huge `data` maps can be streamed: the caller
   * passes an iterable of [key, value] pairs for the keys named in `lazyKeys`.
   * @param {Array<[string, unknown | Iterable<[string, unknown]>]>} entries
   * @param {Set<string>} lazyKeys
   */
  document(entries, lazyKeys = new Set()) {
    this.emit('{');
    entries.forEach(([k, item], i) => {
      this.emit(`${i === 0 ? '\n ' : ',\n '}${pyStringRepr(k)}: `);
      if (!lazyKeys.has(k)) {
        this.value(item, 1);
        return;
      }
      let first = true;
      for (const [subKey, subValue] of /** @type {Iterable<[string, unknown]>} */ (item)) {
        this.emit(`${first ? '{\n  ' : ',\n  '}${pyStringRepr(subKey)}: `);
        this.value(subValue, 2);
        first = false;
      }
      this.emit(first ? '{}' : '\n }');
    });
    this.emit(entries.length === 0 ? '}' : '\n}');
  }

  close() {
    this.flush();
    closeSync(this.fd);
  }
}

/**
 * Writes a whole value to `file` in Python's json.dump(indent=1) layout.
 * @param {string} file
 * @param {unknown} value
 * @param {(v: object) => unknown} [resolve]
 */
export function writePyJson(file, value, resolve) {
  const w = new PyJsonFileWriter(file, resolve);
  w.value(value, 0);
  w.close();
}
