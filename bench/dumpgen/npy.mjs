// NumPy `.npy` (format 1.0) encoding for the tensor files of a `task: tensor` dump (msprobe-format.md §1.7), and the
// float16 rounding needed to make the statistics in dump.json match the stored values exactly.

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** IEEE half bits of `x` (round to nearest even; via float32, whose extra rounding is harmless here). @param {number} x */
export function halfBits(x) {
  f32[0] = x;
  const b = f32Bits[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 112; // rebias 127 → 15
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++; // a carry into the exponent is the correct rounding
  return sign | h;
}

/** @param {number} h */
export function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 0x1f) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** torch dtype name → npy descr and element size. */
export const NPY_DTYPES = /** @type {const} */ ({
  'torch.float32': { descr: '<f4', size: 4 },
  'torch.float16': { descr: '<f2', size: 2 },
  'torch.float64': { descr: '<f8', size: 8 },
  'torch.int64': { descr: '<i8', size: 8 },
  'torch.int32': { descr: '<i4', size: 4 },
  'torch.bool': { descr: '|b1', size: 1 },
});

/**
 * Rounds `values` in place to what `dtype` can hold, so that statistics computed afterwards describe the file.
 * @param {Float64Array} values
 * @param {string} dtype
 */
export function roundToDtype(values, dtype) {
  if (dtype === 'torch.float32') for (let i = 0; i < values.length; i++) values[i] = Math.fround(values[i]);
  else if (dtype === 'torch.float16') for (let i = 0; i < values.length; i++) values[i] = halfToNumber(halfBits(values[i]));
  else if (dtype === 'torch.int64' || dtype === 'torch.int32')
    for (let i = 0; i < values.length; i++) values[i] = Math.trunc(values[i]);
  else if (dtype === 'torch.bool') for (let i = 0; i < values.length; i++) values[i] = values[i] ? 1 : 0;
}

/** @param {number[]} shape */
function shapeTuple(shape) {
  if (shape.length === 0) return '()';
  if (shape.length === 1) return `(${shape[0]},)`;
  return `(${shape.join(', ')})`;
}

/**
 * The bytes of an .npy file holding `values` (C order, logical layout) as `dtype`. With `fortran` the data is stored
 * column-major and the header says so, as numpy does for `np.asfortranarray`.
 * @param {Float64Array} values
 * @param {number[]} shape
 * @param {string} dtype
 * @param {boolean} [fortran]
 * @returns {Buffer}
 */
export function encodeNpy(values, shape, dtype, fortran = false) {
  const spec = NPY_DTYPES[/** @type {keyof typeof NPY_DTYPES} */ (dtype)];
  if (!spec) throw new Error(`npy: unsupported dtype ${dtype}`);
  const order = fortran && shape.length > 1 ? toFortranOrder(values, shape) : values;
  let header = `{'descr': '${spec.descr}', 'fortran_order': ${fortran && shape.length > 1 ? 'True' : 'False'}, 'shape': ${shapeTuple(shape)}, }`;
  // numpy pads the header with spaces so that the data starts on a 64-byte boundary, ending in '\n'.
  const unpadded = 10 + header.length + 1;
  header += ' '.repeat((64 - (unpadded % 64)) % 64) + '\n';
  const out = Buffer.alloc(10 + header.length + order.length * spec.size);
  out.write('\x93NUMPY', 0, 'latin1');
  out[6] = 1;
  out[7] = 0;
  out.writeUInt16LE(header.length, 8);
  out.write(header, 10, 'latin1');
  const data = out.subarray(10 + header.length);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < order.length; i++) {
    const v = order[i];
    switch (spec.descr) {
      case '<f4': view.setFloat32(i * 4, v, true); break;
      case '<f8': view.setFloat64(i * 8, v, true); break;
      case '<f2': view.setUint16(i * 2, halfBits(v), true); break;
      case '<i8': view.setBigInt64(i * 8, BigInt(v), true); break;
      case '<i4': view.setInt32(i * 4, v, true); break;
      case '|b1': view.setUint8(i, v ? 1 : 0); break;
    }
  }
  return out;
}

/** @param {Float64Array} values @param {number[]} shape */
function toFortranOrder(values, shape) {
  const out = new Float64Array(values.length);
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const idx = new Array(shape.length).fill(0);
  // Walk the column-major sequence (first index fastest) and read each element from its C-order position.
  for (let f = 0; f < values.length; f++) {
    let c = 0;
    for (let d = 0; d < shape.length; d++) c += idx[d] * strides[d];
    out[f] = values[c];
    for (let d = 0; d < shape.length; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}
