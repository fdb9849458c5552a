import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffTensors, showTensor } from '../../server/compare/tensorTool.js';
import { halfBitsToNumber, roundToBfloat16, roundToHalf } from '../../src/core/formats/float16.js';
import { encodeNpy } from '../../src/core/formats/npy.js';

/**
 * `probeboard tensor show|diff` on generated files: every numeric dtype incl. float16 and bfloat16, Fortran order,
 * and a tensor bigger than one read chunk. Expectations are computed here from the values written.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'pb-tensor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, values: ArrayLike<number>, descr: string, shape: number[], fortran = false): string {
  const p = path.join(dir, name);
  writeFileSync(p, encodeNpy(values, descr, shape, { fortranOrder: fortran }));
  return p;
}

describe('tensor show', () => {
  it('statistics and first values for every dtype', () => {
    const values = [3, -1, 0, 7, 2, 5];
    for (const descr of ['<f2', '<f4', '<f8', '<i1', '<i2', '<i4', '<i8', '<u1', '<u2', '<u4', '<u8', '>f4', '>i8', '<V2']) {
      const v = descr.includes('u') ? values.map(Math.abs) : values;
      const s = showTensor(file(`show${descr.replace(/[<>|]/g, '')}.npy`, v, descr, [2, 3]), 4).summary;
      expect(s.count, descr).toBe(6);
      expect(s.max, descr).toBe(Math.max(...v));
      expect(s.min, descr).toBe(Math.min(...v));
      expect(s.mean, descr).toBeCloseTo(v.reduce((a, b) => a + b, 0) / 6, 12);
      expect(s.head, descr).toEqual(v.slice(0, 4));
    }
  });

  it('bfloat16 and float16 values are decoded exactly; NaN propagates', () => {
    const raw = [0.1, 1000.7, -3.3];
    const bf = showTensor(file('bf.npy', raw, '<V2', [3])).summary;
    // the test encoder stores the upper 16 bits of the float32 (truncation)
    const truncated = raw.map((x) => {
      const u = new Uint32Array(new Float32Array([x]).buffer);
      u[0] &= 0xffff0000;
      return new Float32Array(u.buffer)[0];
    });
    expect(bf.head).toEqual(truncated);
    expect(truncated[0]).not.toBe(roundToBfloat16(raw[0]));
    const half = showTensor(file('half.npy', [0.1, NaN, 65504], '<f2', [3])).summary;
    expect(half.head[0]).toBe(roundToHalf(0.1));
    expect(half.max).toBeNaN();
    expect(half.nanCount).toBe(1);
    expect(halfBitsToNumber(0x7bff)).toBe(65504);
  });

  it('Fortran order is shown in C order', () => {
    const c = [1, 2, 3, 4, 5, 6];
    const s = showTensor(file('fortran.npy', c, '<f4', [2, 3], true)).summary;
    expect(s.head).toEqual(c);
  });
});

describe('tensor diff', () => {
  it('allclose, cosine, error count and the largest errors with their indices', () => {
    const a = [1, 2, 3, 4, 5, 6];
    const b = [1, 2.5, 3, 4.0005, 5, 9];
    const atol = 0.001;
    const rtol = 0.001;
    const r = diffTensors(file('a.npy', a, '<f8', [2, 3]), file('b.npy', b, '<f8', [2, 3]), { atol, rtol, top: 2 });
    const errors = a.map((x, i) => Math.abs(x - b[i]) > atol + rtol * Math.abs(b[i]));
    expect(r.diff.errorCount).toBe(errors.filter(Boolean).length);
    expect(r.diff.allClose).toBe(false);
    const dot = a.reduce((s, x, i) => s + x * b[i], 0);
    const cos = dot / (Math.hypot(...a) * Math.hypot(...b));
    expect(r.diff.cosine).toBeCloseTo(cos, 14);
    expect(r.diff.top.map((e) => e.index)).toEqual([5, 1]);
    expect(r.text).toMatch(/\(1, 2\)\s+6\s+9\s+3/);
    expect(r.text).toMatch(/ErrorPer:\s+33\.3333%/);
  });

  it('NaN is never close; equal infinities are', () => {
    const r = diffTensors(file('na.npy', [NaN, Infinity, 1], '<f4', [3]), file('nb.npy', [NaN, Infinity, Infinity], '<f4', [3]), {
      atol: 0.001,
      rtol: 0.001,
      top: 5,
    });
    expect(r.diff.errorCount).toBe(2);
    expect(r.diff.top.map((e) => e.index).sort()).toEqual([0, 2]);
  });

  it('streams tensors larger than a read chunk, Fortran on both sides paired in file order', () => {
    const n = 1_500_000;
    const a = new Float64Array(n).map((_, i) => Math.sin(i));
    const b = a.map((x, i) => (i % 100_000 === 7 ? x + 1 : x));
    const r = diffTensors(file('big_a.npy', a, '<f4', [n]), file('big_b.npy', b, '<f4', [n]), { atol: 1e-6, rtol: 0, top: 3 });
    expect(r.diff.count).toBe(n);
    expect(r.diff.errorCount).toBe(15);
    const shape = [1000, 1500];
    const fa = file('fa.npy', a, '<f4', shape, true);
    const fb = file('fb.npy', b, '<f4', shape, true);
    const f = diffTensors(fa, fb, { atol: 1e-6, rtol: 0, top: 1 });
    expect(f.diff.errorCount).toBe(15);
    // reported index is the C-order index of the element
    const idx = f.diff.top[0].index;
    expect([7, 100_007, 200_007, 300_007].includes(idx) || idx % 100_000 === 7).toBe(true);
  });

  it('different element counts are an error naming the file', () => {
    expect(() => diffTensors(file('c1.npy', [1, 2], '<f4', [2]), file('c2.npy', [1, 2, 3], '<f4', [3]), { atol: 0, rtol: 0, top: 0 })).toThrow(
      /c2\.npy: has 3 elements/,
    );
  });
});
