import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { halfBitsToNumber, roundToHalf, roundToHalfExact } from '../../src/core/formats/float16.js';
import { encodeNpy, NpyFormatError, parseNpyHeader, readNpy } from '../../src/core/formats/npy.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { openTensorFile, TensorReadError } from '../../server/workers/tensorFile.js';
import { runTensorJob } from '../../server/workers/tensorJob.js';
import { repoRoot } from '../helpers/shared.js';
import { pickleTensor, ptBytes } from '../helpers/torchPt.js';

/** .npy files written by numpy 2.4 (test/fixtures/compare/npy; expected.json holds numpy's own values). */
const fixtures = path.join(repoRoot, 'test/fixtures/compare/npy');
const expected = parsePyJson(readFileSync(path.join(fixtures, 'expected.json'), 'utf8')) as Record<
  string,
  { values: number[]; shape: number[] }
>;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'pb-npy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('npy reader', () => {
  for (const [name, want] of Object.entries(expected)) {
    it(`${name}: values and shape as numpy has them`, () => {
      const { header, values } = readNpy(new Uint8Array(readFileSync(path.join(fixtures, `${name}.npy`))), name);
      expect(header.shape).toEqual(want.shape);
      expect(Array.from(values)).toEqual(want.values);
    });
  }

  it('dtype and order details', () => {
    const h = (n: string) => parseNpyHeader(new Uint8Array(readFileSync(path.join(fixtures, `${n}.npy`))), n);
    expect(h('fortran_2x3x4')).toMatchObject({ fortranOrder: true, dtype: 'float32' });
    expect(h('float32_be')).toMatchObject({ littleEndian: false, itemSize: 4 });
    expect(h('bfloat16_v2')).toMatchObject({ descr: '|V2', dtype: 'bfloat16' });
    expect(h('uint16')).toMatchObject({ dtype: 'uint16' });
    expect(h('zero_d').shape).toEqual([]);
  });

  it('bad files are NpyFormatErrors naming the file', () => {
    expect(() => readNpy(new Uint8Array(16), 'x.npy')).toThrow(NpyFormatError);
    expect(() => readNpy(new Uint8Array(16), 'x.npy')).toThrow(/^x\.npy: not a \.npy file/);
    const complex = encodeNpy([1, 2], '<f8', [2]);
    const text = new TextDecoder('latin1').decode(complex).replace("'<f8'", "'<c8'");
    expect(() => readNpy(Uint8Array.from(text, (c) => c.charCodeAt(0)), 'c.npy')).toThrow(/unsupported dtype '<c8'/);
    const truncated = encodeNpy([1, 2, 3], '<f4', [3]).slice(0, -2);
    expect(() => readNpy(truncated, 't.npy')).toThrow(/truncated data/);
  });

  it('encoder round trip incl. Fortran order and float16', () => {
    const values = [1, 2, 3, 4, 5, 6];
    const f = readNpy(encodeNpy(values, '<f2', [3, 2], { fortranOrder: true }));
    expect(f.header.fortranOrder).toBe(true);
    expect(Array.from(f.values)).toEqual(values);
  });
});

describe('float16 rounding (numpy half arithmetic)', () => {
  it('the bit-twiddling rounding equals exact half-even rounding', () => {
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    let checked = 0;
    // every float32 exponent from below the half subnormals to past the overflow point, many mantissas incl. ties
    for (let e = 0x32800000; e < 0x48000000; e += 0x800000) {
      for (let m = 0; m < 0x800000; m += 0x1000 - 1) {
        for (const bits of [e + m, e + (m & ~0x1fff) + 0x1000, e + m + 0x80000000]) {
          u[0] = bits >>> 0;
          expect(roundToHalf(f[0])).toBe(roundToHalfExact(f[0]));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(50_000);
    expect(roundToHalf(65519.996)).toBe(65504);
    expect(roundToHalf(65520)).toBe(Infinity);
    expect(roundToHalf(Math.fround(0.1))).toBe(halfBitsToNumber(0x2e66));
    expect(roundToHalf(2 ** -25)).toBe(0);
    expect(roundToHalf(Math.fround(2 ** -25 * 1.5))).toBe(2 ** -24);
  });
});

describe('streaming Node reader', () => {
  it('reads a large C-order file through a bounded buffer', () => {
    const n = 3_000_000;
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = (i % 1000) / 7;
    const file = path.join(tmp, 'big.npy');
    writeFileSync(file, encodeNpy(values, '<f4', [1000, 3000]));
    const src = openTensorFile(file);
    const out = new Float64Array(n);
    let total = 0;
    let reads = 0;
    let maxRead = 0;
    for (let got = src.read(out.subarray(total), n); got > 0; got = src.read(out.subarray(total), n)) {
      total += got;
      reads++;
      maxRead = Math.max(maxRead, got);
    }
    src.close();
    expect(total).toBe(n);
    // never more than 4 MB of file per read: the file streams instead of being loaded
    expect(maxRead).toBeLessThanOrEqual(1 << 20);
    expect(reads).toBeGreaterThan(2);
    expect(out[2_999_999]).toBe(values[2_999_999]);
  });

  it('Fortran order is served in C order, or in file order on request', () => {
    const file = path.join(fixtures, 'fortran_2x3x4.npy');
    const c = openTensorFile(file);
    const out = new Float64Array(24);
    c.read(out, 24);
    c.close();
    expect(Array.from(out)).toEqual(expected.fortran_2x3x4.values);
    const raw = openTensorFile(file, { fileOrder: true });
    raw.read(out, 24);
    raw.close();
    expect(out[1]).toBe(12); // element (1,0,0) comes second in Fortran order
  });

  it('a missing file is a TensorReadError', () => {
    expect(() => openTensorFile(path.join(tmp, 'none.npy'))).toThrow(TensorReadError);
  });
});

function writePt(name: string, pkl: Uint8Array, storage: Uint8Array, level: 0 | 6 = 0): string {
  const file = path.join(tmp, name);
  writeFileSync(file, ptBytes(pkl, storage, level));
  return file;
}

describe('torch .pt reader', () => {
  const f32 = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);

  it('plain float32 tensor', () => {
    const file = writePt('a.pt', pickleTensor({ storage: 'FloatStorage', size: [2, 3], stride: [3, 1], numel: 6 }), f32([1, 2, 3, 4, 5, 6]));
    const src = openTensorFile(file);
    expect(src.info).toEqual({ dtype: 'float32', shape: [2, 3] });
    const out = new Float64Array(6);
    expect(src.read(out, 6)).toBe(6);
    src.close();
    expect(Array.from(out)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('bfloat16 becomes float32 (msprobe converts before numpy); Parameter wrapper is unwrapped', () => {
    const bits = new Uint16Array([0x3f80, 0xc020]); // 1.0, -2.5
    const file = writePt('b.pt', pickleTensor({ storage: 'BFloat16Storage', size: [2], stride: [1], numel: 2, parameter: true }), new Uint8Array(bits.buffer));
    const src = openTensorFile(file);
    expect(src.info.dtype).toBe('float32');
    const out = new Float64Array(2);
    src.read(out, 2);
    src.close();
    expect(Array.from(out)).toEqual([1, -2.5]);
  });

  it('deflated entries are inflated; a corrupt one fails naming the file and the entry', () => {
    const values = Array.from({ length: 64 }, (_, i) => i % 5);
    const file = writePt('z.pt', pickleTensor({ storage: 'FloatStorage', size: [8, 8], stride: [8, 1], numel: 64 }), f32(values), 6);
    const raw = readFileSync(file);
    // level 6 really deflated the first entry (compression method 8 in its local header)
    expect(raw.readUInt16LE(8)).toBe(8);
    const src = openTensorFile(file);
    const out = new Float64Array(64);
    src.read(out, 64);
    src.close();
    expect(Array.from(out)).toEqual(values);
    // flip bytes inside the first entry's compressed data (after its 30-byte header and name)
    const broken = Buffer.from(raw);
    const dataAt = 30 + broken.readUInt16LE(26) + broken.readUInt16LE(28);
    for (let k = 0; k < 6; k++) broken[dataAt + k] ^= 0xff;
    const bad = path.join(tmp, 'zbad.pt');
    writeFileSync(bad, broken);
    expect(() => openTensorFile(bad)).toThrow(/zbad\.pt: zip entry archive\/data\.pkl is corrupt/);
  });

  it('a transposed view is gathered in C order', () => {
    // storage of a 2x3 row-major matrix, saved as its 3x2 transpose (stride [1, 3])
    const file = writePt('t.pt', pickleTensor({ storage: 'FloatStorage', size: [3, 2], stride: [1, 3], numel: 6 }), f32([1, 2, 3, 4, 5, 6]));
    const src = openTensorFile(file);
    const out = new Float64Array(6);
    src.read(out, 6);
    src.close();
    expect(Array.from(out)).toEqual([1, 4, 2, 5, 3, 6]);
  });

  it('pt vs npy compare end to end', () => {
    const pt = writePt('c.pt', pickleTensor({ storage: 'FloatStorage', size: [4], stride: [1], numel: 4 }), f32([1, 2, 3, 4]));
    const npy = path.join(tmp, 'c.npy');
    writeFileSync(npy, encodeNpy([1, 2, 3, 5], '<f4', [4]));
    const m = runTensorJob({ npuPath: npy, benchPath: pt });
    expect(m.maxAbsErr).toBe(1);
    expect(m.maxRelativeErr).toBe(0.25);
  });

  it('anything but a plain tensor fails naming the file', () => {
    const notTensor = Uint8Array.from([0x80, 0x02, 0x7d, 0x2e]); // {}
    const file = writePt('d.pt', notTensor, new Uint8Array(0));
    expect(() => openTensorFile(file)).toThrow(/d\.pt: not a plain tensor/);
    const legacy = path.join(tmp, 'legacy.pt');
    writeFileSync(legacy, Uint8Array.from([0x80, 0x02, 0x8a, 0x0a]));
    expect(() => openTensorFile(legacy)).toThrow(/legacy\.pt: not a torch\.save zip file/);
  });
});
