import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TensorPairAccumulator, type TensorInfo, type TensorMetrics } from '../../src/core/compare/tensorMetrics.js';
import { encodeNpy } from '../../src/core/formats/npy.js';
import { pyFloatRepr } from '../../src/core/formats/pyFormat.js';
import { runTensorJob } from '../../server/workers/tensorJob.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'pb-tensor-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let fileNo = 0;
function npy(values: number[], descr: string, shape: number[] = [values.length], fortranOrder = false): string {
  const p = path.join(tmp, `t${fileNo++}.npy`);
  writeFileSync(p, encodeNpy(values, descr, shape, { fortranOrder }));
  return p;
}

function pair(n: number[], b: number[], descr = '<f8', shape?: number[], benchDescr = descr): TensorMetrics {
  return runTensorJob({ npuPath: npy(n, descr, shape), benchPath: npy(b, benchDescr, shape) });
}

function acc(npu: TensorInfo, bench: TensorInfo, n: number[], b: number[]): TensorMetrics {
  const a = new TensorPairAccumulator(npu, bench);
  a.push(Float64Array.from(n), Float64Array.from(b), n.length);
  return a.finish();
}

describe('real-tensor metrics on hand-made tensors', () => {
  it('identical tensors: cosine 1, zero errors, ratios 1', () => {
    const m = pair([1, 2, 3, 4], [1, 2, 3, 4]);
    expect(m).toMatchObject({ cosine: 1, eucDist: 0, maxAbsErr: 0, maxRelativeErr: 0, oneThousandth: 1, fiveThousandths: 1 });
  });

  it('relative error uses 2**-52 on zero bench positions (float64)', () => {
    const m = pair([1, 0, 3], [0, 0, 3]);
    // (1 + eps - eps) / eps = 2**52
    expect(m.maxRelativeErr).toBe(4503599627370496);
    expect(m.maxAbsErr).toBe(1);
    expect(m.oneThousandth).toBe(formatRatio(2, 3));
  });

  it('float32 arithmetic of the relative error', () => {
    const m = pair([1.1, 2], [1, 2], '<f4');
    const n = Math.fround(1.1);
    expect(m.maxRelativeErr).toBe(Number((Math.fround(Math.fround(n - 1) / 1)).toFixed(12)));
  });

  it('float16 zeros in bench give inf relative error (the epsilon vanishes)', () => {
    const m = pair([1, 2], [0, 2], '<f2');
    expect(m.maxRelativeErr).toBe(Infinity);
    const z = pair([0, 2], [0, 2], '<f2');
    expect(z.maxRelativeErr).toBe('Nan'); // 0/0 in float16
  });

  it('inf/nan at the same positions are zeroed; elsewhere every metric is N/A', () => {
    const same = pair([1, Infinity, NaN, 4], [1, Infinity, NaN, 4]);
    expect(same.maxAbsErr).toBe(0);
    expect(same.cosine).toBe(1);
    const diff = pair([1, Infinity, 3], [1, 2, 3]);
    expect(diff).toMatchObject({ cosine: 'N/A', eucDist: 'N/A', maxAbsErr: 'N/A', maxRelativeErr: 'N/A' });
    const kind = pair([NaN, 1], [Infinity, 1]);
    expect(kind.cosine).toBe('N/A');
  });

  it('all-zero sides: cosine Nan on one side, 1.0 on both', () => {
    expect(pair([0, 0], [1, 2]).cosine).toBe('Nan');
    expect(pair([1, 2], [0, 0]).cosine).toBe('Nan');
    expect(pair([0, 0], [0, 0]).cosine).toBe(1);
  });

  it('0-d tensors: only MaxAbsErr and MaxRelativeErr', () => {
    const m = pair([3], [2], '<f4', []);
    expect(m).toMatchObject({ cosine: 'unsupported', eucDist: 'unsupported', oneThousandth: 'unsupported' });
    expect(m.maxAbsErr).toBe(1);
    expect(m.maxRelativeErr).toBe(0.5);
  });

  it('length-1 tensors have no cosine but an EucDist', () => {
    const m = pair([3], [2], '<f4', [1]);
    expect(m.cosine).toBe('unsupported');
    expect(m.eucDist).toBe(1);
  });

  it('empty, shape mismatch, missing files', () => {
    expect(pair([], [], '<f4', [0]).cosine).toBe('unsupported');
    const mismatch = runTensorJob({ npuPath: npy([1, 2, 3, 4], '<f4', [2, 2]), benchPath: npy([1, 2, 3, 4], '<f4', [4]) });
    expect(mismatch.maxAbsErr).toBe('shape unmatched');
    const missing = runTensorJob({ npuPath: npy([1], '<f4'), benchPath: path.join(tmp, 'nope.npy') });
    expect(missing.cosine).toBe('unsupported');
    expect(runTensorJob({ npuPath: null, benchPath: null }).eucDist).toBe('unsupported');
  });

  it('Fortran and C order pair elements by index', () => {
    const values = [1, 2, 3, 4, 5, 6];
    const f = runTensorJob({ npuPath: npy(values, '<f4', [2, 3], true), benchPath: npy(values, '<f4', [2, 3]) });
    expect(f.maxAbsErr).toBe(0);
    const ff = runTensorJob({ npuPath: npy(values, '<f4', [2, 3], true), benchPath: npy(values, '<f4', [2, 3], true) });
    expect(ff.maxAbsErr).toBe(0);
  });

  it('ratio 1/8192 rounds half-even at 12 decimals (0.000122070312)', () => {
    const n = new Array(8192).fill(1);
    const b = new Array(8192).fill(2);
    b[0] = 1;
    const m = pair(n, b, '<f4');
    expect(m.oneThousandth).toBe(0.000122070312);
  });

  it('int and bool tensors compare in float64', () => {
    const m = acc({ dtype: 'int64', shape: [3] }, { dtype: 'int64', shape: [3] }, [1, 2, 5], [1, 2, 4]);
    expect(m.maxRelativeErr).toBe(0.25);
    const bools = acc({ dtype: 'bool', shape: [3] }, { dtype: 'bool', shape: [3] }, [1, 0, 1], [1, 1, 1]);
    expect(bools.maxAbsErr).toBe(1);
  });
});

function formatRatio(a: number, b: number): number {
  return Number((a / b).toFixed(12));
}

/** `['a.npy', 'b.npy']` → [a, b] */
function dataNames(cell: unknown): [string, string] | null {
  const m = /^\['([^']*)', '([^']*)'\]$/.exec(String(cell));
  return m ? [m[1], m[2]] : null;
}

const NUMERIC_TOLERANCE: Record<string, number> = { EucDist: 1e-12 };

describeShared('real-tensor metrics against msprobe compare goldens', () => {
  const base = sharedDataDir() ?? '';
  for (const name of ['ms_tensor', 'ms_tensor_edge']) {
    it(`${name}: every metric cell`, () => {
      const dir = path.join(base, 'golden-compare', name);
      const out = readdirSync(path.join(dir, 'out')).find((f) => f.endsWith('.cells.json'))!;
      const sheet = JSON.parse(readFileSync(path.join(dir, 'out', out), 'utf8')) as Record<string, Array<Array<{ v: unknown }>>>;
      const rows = Object.values(sheet)[0];
      const header = rows[0].map((c) => c.v as string);
      const col = (r: Array<{ v: unknown }>, h: string) => r[header.indexOf(h)]?.v;
      const metrics = ['Cosine', 'EucDist', 'MaxAbsErr', 'MaxRelativeErr', 'One Thousandth Err Ratio', 'Five Thousandths Err Ratio'];
      let checked = 0;
      for (const r of rows.slice(1)) {
        const names = dataNames(col(r, 'Data_name'));
        if (!names || names.includes('-1') || col(r, 'Bench Name') === 'N/A') continue;
        const m = runTensorJob({
          npuPath: path.join(dir, 'npu', 'dump_tensor_data', names[0]),
          benchPath: path.join(dir, 'bench', 'dump_tensor_data', names[1]),
        });
        const got = [m.cosine, m.eucDist, m.maxAbsErr, m.maxRelativeErr, m.oneThousandth, m.fiveThousandths];
        metrics.forEach((h, i) => {
          const want = col(r, h);
          const label = `${col(r, 'NPU Name')} ${h}`;
          if (typeof want === 'number') {
            expect(typeof got[i], label).toBe('number');
            const tol = NUMERIC_TOLERANCE[h];
            if (tol) expect(Math.abs((got[i] as number) - want), label).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(want)));
            else expect((got[i] as number).toPrecision(16), label).toBe(want.toPrecision(16));
          } else {
            // the xlsx holds Python's str() of non-finite floats ('inf')
            const text = typeof got[i] === 'number' ? pyFloatRepr(got[i] as number) : String(got[i]);
            expect(text, label).toBe(String(want));
          }
        });
        checked++;
      }
      expect(checked).toBeGreaterThan(5);
    });
  }
});
