import { describe, expect, it } from 'vitest';
import { crc32Hex } from '../../src/core/formats/crc32.js';
import { formatValue } from '../../src/core/formats/itemFormat.js';
import { pyExp, pyFixed, pyFloatRepr, pyRepr, pyRound, pyStr, pyTypeName } from '../../src/core/formats/pyFormat.js';
import { pyJsonDumps, PyFloat, writePyJson } from '../../src/core/formats/pyJsonWrite.js';
import { formatG16 } from '../../src/core/compareTable/xlsxParts.js';
import { seededRandom } from '../helpers/seededRandom.js';

// Expected strings were produced by CPython 3 (repr, round, format, json.dumps, zlib.crc32); see msprobe-format.md §4.1.
describe('export formatting of floats (format_node_data)', () => {
  it.each([
    [31999, '31999.0'],
    [-5, '-5.0'],
    [1234567890, '1234567890.0'],
    [9007199254740992, '9007199254740992.0'],
    [1e16, '1.000000e+16'],
    [-0, '-0.0'],
    [0.5, '0.5'],
    [2.0000004, '2.0'],
    [1.23456789e-5, '1.234568e-05'],
    [123456789012.1234567, '123456789012.12346'],
  ])('%s → %s', (x, text) => {
    expect(formatValue(x)).toBe(text);
  });
});

describe('Python number formatting', () => {
  it.each([
    [1e-7, '1e-07'],
    [1e16, '1e+16'],
    [9999999999999998.0, '9999999999999998.0'],
    [0.0001, '0.0001'],
    [0.00009999, '9.999e-05'],
    [123.0, '123.0'],
    [-0.0, '-0.0'],
    [1.5e-5, '1.5e-05'],
    [2.5e20, '2.5e+20'],
    [1e22, '1e+22'],
    [0.1, '0.1'],
    [1 / 3, '0.3333333333333333'],
    [16050.638671875, '16050.638671875'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [-1234.5678e-10, '-1.2345678e-07'],
    [NaN, 'nan'],
    [-Infinity, '-inf'],
  ])('str(%s) = %s', (x, text) => {
    expect(pyFloatRepr(x)).toBe(text);
  });

  it.each([
    [0.0078125, '0.007812'],
    [0.0234375, '0.023438'],
    [-0.0078125, '-0.007812'],
    [2.5e-7, '0.0'],
    [5e-7, '0.0'],
    [1.0000005, '1.000001'],
    [16050.638671875, '16050.638672'],
    [0.000316619873046875, '0.000317'],
    [4503599627.0078125, '4503599627.007812'],
    [-1e-7, '-0.0'],
    [123456789012.1234567, '123456789012.12346'],
  ])('str(round(%s, 6)) = %s (exact binary ties go to even)', (x, text) => {
    expect(pyFloatRepr(pyRound(x, 6))).toBe(text);
  });

  it.each([
    [1e-7, '1.000000e-07'],
    [1.2345675e-5, '1.234567e-05'],
    [1.0000005e16, '1.000000e+16'],
    [1.0000015e16, '1.000002e+16'],
    [-3.14159e-12, '-3.141590e-12'],
    [5.600728e-6, '5.600728e-06'],
    [0, '0.000000e+00'],
    [NaN, 'nan'],
    [Infinity, 'inf'],
    [9.9999995e-5, '9.999999e-05'],
    [1.364242e-12, '1.364242e-12'],
    [-0, '-0.000000e+00'],
    [-2.5e-300, '-2.500000e-300'],
    [1.5e100, '1.500000e+100'],
    [-7e-5, '-7.000000e-05'],
  ])('"{:.6e}".format(%s) = %s', (x, text) => {
    expect(pyExp(x, 6)).toBe(text);
  });

  it.each([
    [0.0078125, '0.007812'],
    [23.076923076923077, '23.076923'],
    [1.0000005, '1.000001'],
    [2.5, '2.500000'],
    [-0.0, '-0.000000'],
    [1e21, '1000000000000000000000.000000'],
    [123.4567895, '123.456789'],
  ])('"{:.6f}".format(%s) = %s', (x, text) => {
    expect(pyFixed(x, 6)).toBe(text);
  });
});

describe('Python str() of values', () => {
  it('prints lists, dicts and strings as repr', () => {
    const v = [1n, 2.5, 'a', null, true, "it's", 'x"y', new Map([['k', [1.0]]]), '\n\x7f\xa0é'];
    expect(pyRepr(v)).toBe(`[1, 2.5, 'a', None, True, "it's", 'x"y', {'k': [1.0]}, '\\n\\x7f\\xa0é']`);
    expect(pyStr('plain')).toBe('plain');
    expect(pyStr([2n, 3n])).toBe('[2, 3]');
  });

  it('names Python types as gen_op_item does', () => {
    expect([1n, 1.5, true, 'x', null, [], new Map()].map((v) => pyTypeName(v))).toEqual([
      "<class 'int'>",
      "<class 'float'>",
      "<class 'bool'>",
      "<class 'str'>",
      "<class 'NoneType'>",
      "<class 'list'>",
      "<class 'dict'>",
    ]);
  });

  it.each([
    ['', '00000000'],
    ['1', '83dcefb7'],
    ['0', 'f4dbdf21'],
    ['False', 'ea0c4734'],
    ['True', '5dcee3b3'],
    ['None', 'dfa2aff1'],
    ['[0, 1]', '77849d8c'],
    ['与', '77b62bf9'],
  ])('crc32(%j) = %s', (text, hex) => {
    expect(crc32Hex(text)).toBe(hex);
  });
});

describe('json.dumps', () => {
  it('escapes like ensure_ascii and writes NaN', () => {
    expect(pyJsonDumps(['\u4e0e', '\x7f', '😀', '/', '\t\b\f', 'a"b\\c', new PyFloat(1), NaN])).toBe(
      '["\\u4e0e", "\\u007f", "\\ud83d\\ude00", "/", "\\t\\b\\f", "a\\"b\\\\c", 1.0, NaN]',
    );
  });

  it('indents like indent=4, with {} and [] for empty containers', () => {
    let text = '';
    writePyJson(new Map<string, unknown>([['a', []], ['b', {}], ['c', [1, new Map([['d', null]])]]]) as never, 4, (c) => (text += c));
    expect(text).toBe('{\n    "a": [],\n    "b": {},\n    "c": [\n        1,\n        {\n            "d": null\n        }\n    ]\n}');
  });
});

/** The exact value of a double as num / den (den a power of two), for the oracle below. */
function exactRatio(x: number): { num: bigint; den: bigint } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (exp !== 0) mant |= 1n << 52n;
  const e = (exp === 0 ? 1 : exp) - 1075;
  return e >= 0 ? { num: mant << BigInt(e), den: 1n } : { num: mant, den: 1n << BigInt(-e) };
}

/** round(num / den) with ties to even. */
function roundEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r2 = (num % den) * 2n;
  return r2 > den || (r2 === den && q % 2n === 1n) ? q + 1n : q;
}

/** Python's `f"{x:.{p}f}"` and `f"{x:.{p}e}"` by exact arithmetic (finite, non-zero x; p ≥ 1). */
function oracle(x: number, p = 6): { fixed: string; exp: string } {
  const { num, den } = exactRatio(x);
  const sign = x < 0 ? '-' : '';
  const f = roundEven(num * 10n ** BigInt(p), den).toString().padStart(p + 1, '0');
  let e = num.toString().length - den.toString().length;
  // 10^e <= |x| < 10^(e+1)
  const scaled = (k: number) => (k >= 0 ? { n: num * 10n ** BigInt(k), d: den } : { n: num, d: den * 10n ** BigInt(-k) });
  for (;;) {
    const lo = scaled(-e);
    if (lo.n < lo.d) e--;
    else if (lo.n >= lo.d * 10n) e++;
    else break;
  }
  const sp = scaled(p - e);
  let digits = roundEven(sp.n, sp.d);
  if (digits >= 10n ** BigInt(p + 1)) {
    digits /= 10n;
    e++;
  }
  const ds = digits.toString();
  return {
    fixed: `${sign}${f.slice(0, -p)}.${f.slice(-p)}`,
    exp: `${sign}${ds[0]}.${ds.slice(1)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`,
  };
}

describe('6-place formatting against exact arithmetic', () => {
  it('agrees on short binary mantissas (bfloat16 / float16 statistics), exact ties and random doubles', () => {
    const rand = seededRandom(99);
    const values: number[] = [];
    for (let k = 0; k < 20000; k++) {
      const bits = 1 + Math.floor(rand() * 11);
      const m = 2 ** bits + Math.floor(rand() * 2 ** bits);
      const scale = 2 ** (Math.floor(rand() * 60) - 45);
      values.push((rand() < 0.5 ? -1 : 1) * m * scale);
      values.push((rand() - 0.5) * 10 ** (Math.floor(rand() * 24) - 12));
    }
    // ties of the last place kept, both ways of rounding
    values.push(0.0078125, 2.5e-7, 1.5e-6, 0.0000125, 1.25e-5, -3.5e-6, 4.5e-7, 0.5, 1234.0000005);
    for (const x of values) {
      const want = oracle(x);
      expect(pyFixed(x, 6), `${x}`).toBe(want.fixed);
      expect(pyExp(x, 6), `${x}`).toBe(want.exp);
    }
  });
});

describe('ties where 10^k is no longer a double (k > 22)', () => {
  it('rounds 2^-24 half to even at 16 digits, as printf and Python do (float16 subnormal step)', () => {
    expect(pyExp(2 ** -24, 15)).toBe('5.960464477539062e-08');
    expect(pyExp(-(2 ** -24), 15)).toBe('-5.960464477539062e-08');
    expect(formatG16(-(2 ** -24))).toBe('-5.960464477539062e-08');
    expect(formatG16(0.9999430775642395 - 0.9999431371688843)).toBe('-5.960464477539062e-08');
    expect(formatG16(3 * 2 ** -25)).toBe('8.940696716308594e-08');
  });

  it('agrees with exact arithmetic on powers of two and short mantissas at 1–20 places', () => {
    const rand = seededRandom(7);
    const values: number[] = [];
    for (let e = -80; e <= 80; e++) values.push(2 ** e, -(2 ** e), 3 * 2 ** e, 5 * 2 ** e);
    for (let k = 0; k < 2000; k++) values.push((1 + Math.floor(rand() * 255)) * 2 ** (Math.floor(rand() * 120) - 90));
    for (const x of values) {
      for (const p of [1, 3, 6, 9, 12, 15, 16, 20]) {
        const want = oracle(x, p);
        expect(pyExp(x, p), `${x} .${p}e`).toBe(want.exp);
        if (Math.abs(x) < 1e21) expect(pyFixed(x, p), `${x} .${p}f`).toBe(want.fixed);
      }
    }
  });
});
