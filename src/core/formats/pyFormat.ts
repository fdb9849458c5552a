import type { PyValue } from './pyJson.js';

/**
 * Python's text forms of numbers and values, to the letter (msprobe-format.md §4.1 "TypeScript parity notes").
 * msprobe writes every item value through `str()`, `round(x, 6)` or `"{:.6e}"`, so the output bytes depend on
 * CPython's rules, which differ from JavaScript's in three places:
 * - `str(float)` switches to exponent notation below 1e-4 and from 1e16 (JS: 1e-7 and 1e21), always shows `.0` on
 *   integral values and pads the exponent to two digits (`1e-07`);
 * - `round()` and `"{:.6f}"`/`"{:.6e}"` round exact binary ties half-to-even (JS `toFixed`/`toExponential` round
 *   them up), and such ties are common in bf16/fp16 statistics (e.g. 0.0078125 → "0.007812");
 * - `str(list)` is a repr with `", "` separators and quoted strings.
 * Values follow pyJson's python mode: `bigint` = int, `number` = float, `Map` = dict.
 */

const TWO_POW = new Float64Array(1);
const TWO_POW_BITS = new Uint32Array(TWO_POW.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** `str(x)` / `repr(x)` of a Python float. */
export function pyFloatRepr(x: number): string {
  if (x !== x) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const ax = x < 0 ? -x : x;
  if (ax >= 1e-4 && ax < 1e16) {
    // Both languages print fixed notation with the same shortest round-trip digits in this range.
    const s = String(x);
    return s.includes('.') ? s : s + '.0';
  }
  // toExponential() without an argument gives the shortest round-trip digits, as Python's repr does.
  const e = x.toExponential();
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  const mantissa = e.slice(0, at);
  return `${mantissa}e${exp < 0 ? '-' : '+'}${pad2(Math.abs(exp))}`;
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

/** Python `round(x, ndigits)` for a float: exact decimal rounding of the binary value, ties to even. */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0 || Math.abs(x) >= 1e21) return x;
  return Number(pyFixed(x, ndigits));
}

/** Python `f"{x:.{digits}f}"` for a float. */
export function pyFixed(x: number, digits: number): string {
  if (x !== x) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Math.abs(x) >= 1e21) return exactFixed(x, digits);
  // A tie needs 2·x·10^digits to be an odd integer.
  if (isTie(x, digits)) return exactFixed(x, digits);
  // toFixed keeps the sign of a small negative value ("-0.000000") as Python does, but not of -0 itself.
  return Object.is(x, -0) ? '-' + x.toFixed(digits) : x.toFixed(digits);
}

/** Python `f"{x:.{digits}e}"` for a float (two-digit minimum exponent). */
export function pyExp(x: number, digits: number): string {
  if (x !== x) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x !== 0 && mayTieExp(x, digits)) return exactExp(x, digits);
  const s = x.toExponential(digits);
  if (Object.is(x, -0)) return '-' + s.slice(0, -1) + '00';
  // JS writes the exponent with as few digits as it needs ("e-7"), Python with two at least ("e-07").
  const n = s.length;
  const c = s.charCodeAt(n - 2);
  return c === 0x2b || c === 0x2d ? s.slice(0, n - 1) + '0' + s.slice(n - 1) : s;
}

/** Whether x is a tie at `digits` significant digits after the first (E being x's decimal exponent, or one off it). */
function mayTieExp(x: number, digits: number): boolean {
  const e0 = Math.floor(Math.log10(Math.abs(x)));
  for (let e = e0 - 1; e <= e0 + 1; e++) if (isTie(x, digits - e)) return true;
  return false;
}

/**
 * Whether x lies exactly halfway between two multiples of 10^-k, i.e. 2·x·10^k is an odd integer, decided exactly
 * (no product is rounded). For k ≥ 0, 2·x·10^k = x·2^(k+1)·5^k and x is dyadic, so it is an odd integer exactly when
 * x·2^(k+1) is one: 2^-24 is a tie at k = 23 (its 16th digit), where 10^k is no longer a double. Values of short
 * binary mantissas (bfloat16 statistics) are mostly whole there, so they skip the exact formatter.
 */
function isTie(x: number, k: number): boolean {
  if (k >= 0) {
    const y = k < 1022 ? x * POW2[k + 1] : x * POW2[1000] * POW2[k + 1 - 1000];
    return Number.isInteger(y) && y % 2 !== 0;
  }
  // k < 0: 2·x / 10^-k is odd exactly when x / 2^(-k-1) is an odd integer divisible by 5^-k.
  if (k < -22) return false; // 5^23 exceeds every odd mantissa
  const y = x / POW2[-k - 1];
  return Number.isInteger(y) && y % 2 !== 0 && y % 5 ** -k === 0;
}

/** 2^0 … 2^1022, exact. */
const POW2 = Float64Array.from({ length: 1023 }, (_, k) => 2 ** k);

/** |x| = mantissa · 2^exponent, exactly. */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  TWO_POW[0] = x;
  const hi = TWO_POW_BITS[LITTLE_ENDIAN ? 1 : 0];
  const lo = TWO_POW_BITS[LITTLE_ENDIAN ? 0 : 1];
  const expBits = (hi >>> 20) & 0x7ff;
  let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (expBits === 0) return { mantissa, exponent: -1074 };
  mantissa |= 1n << 52n;
  return { mantissa, exponent: expBits - 1075 };
}

/** round(num / den) with ties to even, for non-negative bigints. */
function divRoundHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r2 = (num % den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) return q + 1n;
  return q;
}

function exactFixed(x: number, digits: number): string {
  const negative = x < 0 || Object.is(x, -0);
  const { mantissa, exponent } = decompose(x);
  const scale = 10n ** BigInt(digits);
  const q =
    exponent >= 0 ? (mantissa << BigInt(exponent)) * scale : divRoundHalfEven(mantissa * scale, 1n << BigInt(-exponent));
  let s = q.toString();
  if (digits > 0) {
    s = s.padStart(digits + 1, '0');
    s = s.slice(0, s.length - digits) + '.' + s.slice(s.length - digits);
  }
  return (negative ? '-' : '') + s;
}

function exactExp(x: number, digits: number): string {
  const negative = x < 0;
  const { mantissa, exponent } = decompose(x);
  // Exact decimal digits of |x|: value = all · 10^pow.
  let all: bigint;
  let pow: number;
  if (exponent >= 0) {
    all = mantissa << BigInt(exponent);
    pow = 0;
  } else {
    all = mantissa * 5n ** BigInt(-exponent);
    pow = exponent;
  }
  const len = all.toString().length;
  let e = len - 1 + pow;
  const drop = len - (digits + 1);
  let kept = drop > 0 ? divRoundHalfEven(all, 10n ** BigInt(drop)) : all * 10n ** BigInt(-drop);
  if (kept.toString().length > digits + 1) {
    kept /= 10n;
    e += 1;
  }
  const ds = kept.toString();
  const body = digits > 0 ? `${ds[0]}.${ds.slice(1)}` : ds;
  return `${negative ? '-' : ''}${body}e${e < 0 ? '-' : '+'}${pad2(Math.abs(e))}`;
}

/** Python `str(v)`: strings as-is, everything else as its repr. */
export function pyStr(v: PyValue | undefined): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

/** Python `repr(v)` for the values a JSON file can hold (bigint = int, number = float, Map = dict). */
export function pyRepr(v: PyValue | undefined): string {
  if (v === null || v === undefined) return 'None';
  switch (typeof v) {
    case 'string':
      return pyStrRepr(v);
    case 'boolean':
      return v ? 'True' : 'False';
    case 'bigint':
      return intText(v);
    case 'number':
      return pyFloatRepr(v);
  }
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      out += (i ? ', ' : '') + (typeof x === 'bigint' ? intText(x) : pyRepr(x));
    }
    return out + ']';
  }
  let out = '{';
  let first = true;
  for (const [k, val] of v) {
    out += (first ? '' : ', ') + pyStrRepr(k) + ': ' + pyRepr(val);
    first = false;
  }
  return out + '}';
}

// Every tensor's shape is a list of ints, written out once per item: the texts of small ints are kept.
const SMALL_INTS = 1 << 16;
const smallIntTexts: string[] = [];

function intText(v: bigint): string {
  const n = Number(v);
  if (n >= 0 && n < SMALL_INTS) return (smallIntTexts[n] ??= v.toString());
  return v.toString();
}

/**
 * Python's repr of a str: single quotes unless the text has ' and no ", escapes for the unprintable. The runs
 * between escapes are appended whole: a string built a character at a time is a chain of one small object per
 * character until it is flattened, which the compare table's stack texts (kept for every API) never were (issue 19).
 */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const q = quote.charCodeAt(0);
  let out = quote;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let escape: string;
    if (c === q || c === 0x5c) escape = '\\' + s[i];
    else if (c === 0x0a) escape = '\\n';
    else if (c === 0x0d) escape = '\\r';
    else if (c === 0x09) escape = '\\t';
    // Python's isprintable() is false for C0/C1 controls, DEL, NBSP and the soft hyphen.
    else if (c < 0x20 || (c >= 0x7f && c <= 0xa0) || c === 0xad) escape = '\\x' + c.toString(16).padStart(2, '0');
    else continue;
    out += s.slice(from, i) + escape;
    from = i + 1;
  }
  return out + s.slice(from) + quote;
}

/** Python `str(type(v))`, e.g. `<class 'int'>` (gen_op_item's dtype of a scalar argument). */
export function pyTypeName(v: PyValue | undefined): string {
  if (v === null || v === undefined) return "<class 'NoneType'>";
  switch (typeof v) {
    case 'string':
      return "<class 'str'>";
    case 'boolean':
      return "<class 'bool'>";
    case 'bigint':
      return "<class 'int'>";
    case 'number':
      return "<class 'float'>";
  }
  return Array.isArray(v) ? "<class 'list'>" : "<class 'dict'>";
}

/** Python truthiness of a JSON value. */
export function pyTruthy(v: PyValue | undefined): boolean {
  if (v === null || v === undefined) return false;
  switch (typeof v) {
    case 'string':
      return v.length > 0;
    case 'boolean':
      return v;
    case 'bigint':
      return v !== 0n;
    case 'number':
      return v !== 0; // NaN is truthy in Python too
  }
  return Array.isArray(v) ? v.length > 0 : v.size > 0;
}
