import { pyFixed, pyFloatRepr, pyRound } from '../formats/pyFormat.js';
import type { PyValue } from '../formats/pyJson.js';

export { pyFixed, pyFloatRepr, pyRound };

/**
 * Python number semantics the comparison must reproduce bit for bit (msprobe-format.md §3.4, §3.6, §3.8), on top
 * of the text forms in formats/pyFormat: msprobe's `format_value`, `float(str)` as `str2float` uses it, int/float
 * arithmetic and comparisons, and `==` across int/float/list/dict.
 * Python ints are `bigint`, floats are `number` (the pyJson python-mode convention).
 */

/** Python `str()` of an int or float value. */
export function pyNumberStr(x: number | bigint): string {
  return typeof x === 'bigint' ? x.toString() : pyFloatRepr(x);
}

/** msprobe `format_value`: `float('{:.12f}'.format(x))` (exact half-even, so 2**-13 → 0.000122070312). */
export function formatValue12(x: number): number {
  if (!Number.isFinite(x)) return x;
  return Number(pyFixed(x, 12));
}

const PY_FLOAT_RE = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const PY_SPECIAL_RE = /^([+-]?)(inf|infinity|nan)$/i;

/** Python `float(s)` for a str; null where Python raises ValueError. */
const SIMPLE_FLOAT_RE = /^[+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?$/;

export function pyParseFloat(s: string): number | null {
  const t = s.trim();
  // the common case (our own relative-error strings) needs no Python-specific grammar
  if (SIMPLE_FLOAT_RE.test(t)) return Number(t);
  const special = PY_SPECIAL_RE.exec(t);
  if (special) {
    if (special[2].toLowerCase() === 'nan') return NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (!PY_FLOAT_RE.test(t)) return null;
  return Number(t.replace(/_/g, ''));
}

/** Python `isinstance(v, (int, float)) and not isinstance(v, bool)` with the pyJson representation. */
export function isPyNumber(v: unknown): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

function toFloat(v: number | bigint): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

/** Python `a - b` for ints/floats. */
export function pySub(a: number | bigint, b: number | bigint): number | bigint {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a - b;
  return toFloat(a) - toFloat(b);
}

/** Python `a / b` (true division, b != 0). */
export function pyTrueDiv(a: number | bigint, b: number | bigint): number {
  return toFloat(a) / toFloat(b);
}

export function pyIsZero(v: number | bigint): boolean {
  return typeof v === 'bigint' ? v === 0n : v === 0;
}

export function pyIsNaN(v: number | bigint): boolean {
  return typeof v === 'number' && Number.isNaN(v);
}

/** Python `a > b` for numbers (NaN compares false). */
export function pyGreater(a: number | bigint, b: number | bigint): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a > b;
  return toFloat(a) > toFloat(b);
}

/** Python `max(a, b)`: keeps `a` unless `b > a` (so a NaN `b` never wins, a NaN `a` is never replaced). */
export function pyMax<T extends number | bigint>(a: T, b: T): T {
  return pyGreater(b, a) ? b : a;
}

/** Python `min(a, b)`: keeps `a` unless `b < a`. */
export function pyMin<T extends number | bigint>(a: T, b: T): T {
  return pyGreater(a, b) ? b : a;
}

/** Python `==` between two parsed JSON values (int == float by value, dicts ignore key order). */
export function pyEquals(a: PyValue | undefined, b: PyValue | undefined): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (isPyNumber(a) || typeof a === 'boolean') {
    if (!(isPyNumber(b) || typeof b === 'boolean')) return false;
    // Python: True == 1 and 1 == 1.0; bools only reach here in raw dumps, items hold "True"/"False" strings.
    const x = typeof a === 'boolean' ? (a ? 1n : 0n) : a;
    const y = typeof b === 'boolean' ? (b ? 1n : 0n) : b;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x === y;
    if (typeof x === 'bigint') return Number.isInteger(y) && BigInt(y as number) === x;
    if (typeof y === 'bigint') return Number.isInteger(x) && BigInt(x) === y;
    return x === y;
  }
  if (a === null || typeof a === 'string') return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!pyEquals(a[i], b[i])) return false;
    return true;
  }
  if (!(b instanceof Map) || a.size !== b.size) return false;
  for (const [k, v] of a) {
    if (!b.has(k) || !pyEquals(v, b.get(k))) return false;
  }
  return true;
}
