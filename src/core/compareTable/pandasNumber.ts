/**
 * pandas `to_numeric` of one string, bit for bit: msprobe computes statistic differences as
 * `to_numeric(npu.astype(str)) - to_numeric(bench.astype(str))`, and pandas (< 2.1) parses with `precise_xstrtod`,
 * which keeps at most 17 digits *counting leading zeros* and scales with one table power of ten. So
 * `0.0002841949462890625` is read as `0.000284194946289` (golden ms_pt_cross_cm_yaml, Mean diff). Infinity spellings
 * are accepted by pandas' `floatify` afterwards; anything else unparsable is NaN under `errors='coerce'`.
 */

const POW10: number[] = Array.from({ length: 309 }, (_, k) => Number(`1e${k}`));

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/** `precise_xstrtod(s, decimal='.', sci='E', skip_trailing=1)`; null when pandas reports an error or leftovers. */
function preciseXstrtod(s: string): number | null {
  let p = 0;
  const n = s.length;
  const at = (i: number) => (i < n ? s.charCodeAt(i) : 0);
  while (isSpace(at(p))) p++;
  let negative = false;
  if (at(p) === 0x2d) {
    negative = true;
    p++;
  } else if (at(p) === 0x2b) p++;
  let number = 0;
  let exponent = 0;
  let numDigits = 0;
  let numDecimals = 0;
  const maxDigits = 17;
  while (isDigit(at(p))) {
    if (numDigits < maxDigits) {
      number = number * 10 + (at(p) - 0x30);
      numDigits++;
    } else exponent++;
    p++;
  }
  if (at(p) === 0x2e) {
    p++;
    while (numDigits < maxDigits && isDigit(at(p))) {
      number = number * 10 + (at(p) - 0x30);
      p++;
      numDigits++;
      numDecimals++;
    }
    if (numDigits >= maxDigits) while (isDigit(at(p))) p++;
    exponent -= numDecimals;
  }
  if (numDigits === 0) return null;
  if (negative) number = -number;
  if (at(p) === 0x45 || at(p) === 0x65) {
    let expNegative = false;
    p++;
    if (at(p) === 0x2d) {
      expNegative = true;
      p++;
    } else if (at(p) === 0x2b) p++;
    let digits = 0;
    let e = 0;
    while (digits < maxDigits && isDigit(at(p))) {
      e = e * 10 + (at(p) - 0x30);
      digits++;
      p++;
    }
    exponent += expNegative ? -e : e;
    if (digits === 0) p--;
  }
  if (exponent > 308) return null;
  if (exponent > 0) number *= POW10[exponent];
  else if (exponent < -308) {
    if (exponent < -616) number = 0;
    else {
      number /= POW10[-308 - exponent];
      number /= POW10[308];
    }
  } else number /= POW10[-exponent];
  if (!Number.isFinite(number)) return null;
  while (isSpace(at(p))) p++;
  return p === n ? number : null;
}

const INFINITIES = new Map([
  ['inf', Infinity],
  ['+inf', Infinity],
  ['-inf', -Infinity],
  ['infinity', Infinity],
  ['+infinity', Infinity],
  ['-infinity', -Infinity],
]);

/** The double pandas makes of `s`, or NaN (coerced). */
export function pandasToNumeric(s: string): number {
  const v = preciseXstrtod(s);
  if (v !== null) return v;
  return INFINITIES.get(s.toLowerCase()) ?? NaN;
}
