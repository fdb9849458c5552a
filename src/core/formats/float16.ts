/**
 * IEEE half and bfloat16: decoding stored bits and rounding doubles to those formats. numpy's float16 arithmetic
 * computes in float32 and rounds the result to half (round-to-nearest-even); the tensor metrics reproduce that.
 */

let halfTable: Float32Array | null = null;

function buildHalfTable(): Float32Array {
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    let v: number;
    if (exp === 0) v = frac * 2 ** -24;
    else if (exp === 31) v = frac ? NaN : Infinity;
    else v = (1 + frac / 1024) * 2 ** (exp - 15);
    t[h] = sign * v;
  }
  return t;
}

/** Lookup table: half bits → value (exact in float32). */
export function halfBitsTable(): Float32Array {
  if (!halfTable) halfTable = buildHalfTable();
  return halfTable;
}

export function halfBitsToNumber(bits: number): number {
  return halfBitsTable()[bits & 0xffff];
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

export function bfloat16BitsToNumber(bits: number): number {
  U32[0] = (bits & 0xffff) << 16;
  return F32[0];
}

const F64 = new Float64Array(1);
const U32x2 = new Uint32Array(F64.buffer);

function roundHalfEven(q: number): number {
  const f = Math.floor(q);
  const d = q - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Bits of the float16 nearest to a float32 value (ties to even) — numpy's `npy_floatbits_to_halfbits`, so the
 * per-element cost is a few integer operations. `x` must already be a float32 value (Math.fround).
 */
export function float32ToHalfBits(x: number): number {
  F32[0] = x;
  const f = U32[0];
  const sign = (f >>> 16) & 0x8000;
  const fExp = f & 0x7f800000;
  if (fExp >= 0x47800000) {
    if (fExp === 0x7f800000 && (f & 0x7fffff) !== 0) return sign | 0x7e00;
    return sign | 0x7c00;
  }
  if (fExp <= 0x38000000) {
    if (fExp < 0x33000000) return sign;
    const e = fExp >>> 23;
    let sig = (0x800000 + (f & 0x7fffff)) >>> (113 - e);
    // round half to even; bits shifted out above count as "more than half"
    if ((sig & 0x3fff) !== 0x1000 || (f & 0x7ff) !== 0) sig += 0x1000;
    return sign | (sig >>> 13);
  }
  const hExp = (fExp - 0x38000000) >>> 13;
  let sig = f & 0x7fffff;
  if ((sig & 0x3fff) !== 0x1000) sig += 0x1000;
  // a carry out of the significand bumps the exponent (up to inf), which is right
  return sign | (hExp + (sig >>> 13));
}

/** The float16 value nearest to the float32 value `x` (ties to even), as a double. Overflow → ±Infinity. */
export function roundToHalf(x: number): number {
  return halfBitsTable()[float32ToHalfBits(x)];
}

/** Reference implementation on the exact double (any x); used to check the bit version. */
export function roundToHalfExact(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  const sign = x < 0 ? -1 : 1;
  // 65520 is halfway between 65504 (odd mantissa) and 65536: ties go to the even one, which overflows.
  if (a >= 65520) return sign * Infinity;
  if (a < 2 ** -14) return sign * roundHalfEven(a * 2 ** 24) * 2 ** -24;
  F64[0] = a;
  const exp = ((U32x2[1] >>> 20) & 0x7ff) - 1023;
  const quantum = 2 ** (exp - 10);
  return sign * roundHalfEven(a / quantum) * quantum;
}

/** The bfloat16 value nearest to `x` (ties to even), as a double (via float32, like ml_dtypes). */
export function roundToBfloat16(x: number): number {
  if (x !== x) return x;
  F32[0] = x;
  const bits = U32[0];
  const rounded = (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 0;
  U32[0] = rounded & 0xffff0000;
  return F32[0];
}
