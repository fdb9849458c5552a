import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RealMetrics } from '../../server/compare/realMetrics.js';
import { createTensorPool } from '../../server/workers/tensorPool.js';
import { accuracyVerdict, type RealCells } from '../../src/core/compareTable/realCells.js';
import type { SideTable } from '../../src/core/compareTable/sideTable.js';
import { SideTableBuilder } from '../../src/core/compareTable/sideTableBuilder.js';
import { roundToHalf } from '../../src/core/formats/float16.js';
import { encodeNpy } from '../../src/core/formats/npy.js';
import { pyFixed, pyRound } from '../../src/core/formats/pyFormat.js';

/**
 * Real-data metric cells on hand-made tensors (msprobe-compare.md §4.5): each expectation is computed here from
 * the spec's formulas (float32/float16 arithmetic emulated with Math.fround / roundToHalf), not copied from a run.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'pb-compare-metrics-'));
const npuDir = path.join(dir, 'npu');
const benchDir = path.join(dir, 'bench');
mkdirSync(npuDir);
mkdirSync(benchDir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EPS = 2 ** -52;
const round12 = (x: number) => Number(pyFixed(x, 12));

interface Pair {
  npu: number[] | null;
  bench: number[] | null;
  descr?: string;
  benchDescr?: string;
  shape?: number[];
  benchShape?: number[];
}

let counter = 0;
/** Writes the pair's files and returns one NPU row and one bench row naming them. */
function tables(pairs: Array<Pair | 'npu-1' | 'bench-1' | 'unmatched' | 'missing'>): { npu: SideTable; bench: SideTable; n: Int32Array; b: Int32Array } {
  const npu = new SideTableBuilder();
  const bench = new SideTableBuilder();
  const n: number[] = [];
  const b: number[] = [];
  for (const p of pairs) {
    const name = `T.x.${counter++}.forward.input.0`;
    const file = `${name}.npy`;
    let npuName = file;
    let benchName = file;
    if (p === 'npu-1') npuName = '-1';
    else if (p === 'bench-1') benchName = '-1';
    else if (p !== 'unmatched' && p !== 'missing') {
      if (p.npu) writeFileSync(path.join(npuDir, file), encodeNpy(p.npu, p.descr ?? '<f4', p.shape ?? [p.npu.length]));
      if (p.bench) {
        writeFileSync(path.join(benchDir, file), encodeNpy(p.bench, p.benchDescr ?? p.descr ?? '<f4', p.benchShape ?? p.shape ?? [p.bench.length]));
      }
    } else if (p === 'missing') writeFileSync(path.join(npuDir, file), encodeNpy([1, 2], '<f4', [2]));
    const row = (dataName: string) => ({
      name,
      dtype: 'Float32',
      shape: '[2]',
      stats: [1, 0, 0.5, 1] as [number, number, number, number],
      requiresGrad: null,
      state: 'input' as const,
      dataName,
      md5: '00000000',
      p2pOp: null,
      p2pPeer: null,
    });
    n.push(npu.length);
    npu.addRow(npu.addApi(name), row(npuName));
    if (p === 'unmatched') b.push(-1);
    else {
      b.push(bench.length);
      bench.addRow(bench.addApi(name), row(benchName));
    }
  }
  return { npu: npu.finish(), bench: bench.finish(), n: Int32Array.from(n), b: Int32Array.from(b) };
}

async function cells(pairs: Parameters<typeof tables>[0]): Promise<{ cells: RealCells[]; warnings: string[] }> {
  const t = tables(pairs);
  const warnings: string[] = [];
  const real = new RealMetrics({ npuDataDir: npuDir, benchDataDir: benchDir, provider: createTensorPool({ workerScript: null }), warn: (l) => warnings.push(l) });
  return { cells: await real.cells(t.npu, t.bench, t.n, t.b), warnings };
}

function cosine(n: number[], b: number[]): number {
  let dot = 0;
  let nn = 0;
  let bb = 0;
  n.forEach((x, i) => {
    dot += x * b[i];
    nn += x * x;
    bb += b[i] * b[i];
  });
  const c = round12(dot / (Math.sqrt(nn) * Math.sqrt(bb)));
  return c > 0.9999 ? pyRound(c, 6) : c;
}

describe('real-data metrics', () => {
  it('float32 with zeros in bench: the 2^-52 epsilon survives in float32 (huge relative error)', async () => {
    const npu = [1, 2, 0.5, 3];
    const bench = [0, 2, 0.5, 3.001];
    const { cells: [c] } = await cells([{ npu, bench }]);
    const f = Math.fround;
    const rel = npu.map((x, i) => {
      const y = f(bench[i]);
      const xs = y === 0 ? f(f(x) + EPS) : f(x);
      const ys = y === 0 ? f(y + EPS) : y;
      return Math.abs(f(f(xs - ys) / ys));
    });
    const abs = npu.map((x, i) => Math.abs(f(x) - f(bench[i])));
    const euc = Math.sqrt(abs.reduce((s, d) => s + d * d, 0));
    expect(c.metrics[0]).toBe(cosine(npu.map(f), bench.map(f)));
    expect((c.metrics[1] as number) / euc).toBeCloseTo(1, 12);
    expect(c.metrics[2]).toBe(round12(Math.max(...abs)));
    expect(c.metrics[3]).toBe(round12(Math.max(...rel)));
    expect(c.metrics[3]).toBe(4503599627370496);
    expect(c.metrics[4]).toBe(round12(rel.filter((r) => r < f(0.001)).length / 4));
    expect(c.metrics[5]).toBe(round12(rel.filter((r) => r < f(0.005)).length / 4));
    expect(c.message).toBe('');
    const cos = c.metrics[0] as number;
    const maxAbs = c.metrics[2] as number;
    expect(accuracyVerdict(cos, maxAbs)).toBe((cos < 0.99 && maxAbs > 0.001) || cos < 0.9 || maxAbs > 1 ? 'No' : 'Yes');
  });

  it('NaN at the same places is zeroed; at different places every metric is N/A', async () => {
    const { cells: [same, differ] } = await cells([
      { npu: [NaN, 1, 2], bench: [NaN, 1, 2.5] },
      { npu: [NaN, 1, 2], bench: [1, NaN, 2] },
    ]);
    expect(same.metrics[0]).toBe(cosine([0, 1, 2], [0, 1, 2.5]));
    expect(same.metrics[2]).toBe(0.5);
    expect(differ.metrics).toEqual(Array(6).fill('N/A'));
    expect(differ.message).toBe('The position of inf or nan in NPU and bench Tensor do not match.');
    expect(accuracyVerdict(differ.metrics[0], differ.metrics[2])).toBe('No');
  });

  it('an inf of the opposite sign at the same place counts as matching (quirk 5)', async () => {
    const { cells: [c] } = await cells([{ npu: [Infinity, 1, 3], bench: [-Infinity, 1, 3] }]);
    expect(c.metrics.slice(0, 4)).toEqual([1, 0, 0, 0]);
  });

  it('float16: relative error in float16 (0/0 is NaN, x/0 and overflow are inf)', async () => {
    const { cells: [zero, overflow] } = await cells([
      { npu: [0, 1, 2], bench: [0, 1, 2], descr: '<f2' },
      { npu: [60000, 1], bench: [-60000, 1], descr: '<f2' },
    ]);
    expect(zero.metrics[3]).toBe('Nan');
    expect(zero.message).toBe('Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.');
    // 0/0 is NaN and never below the thresholds
    expect(zero.metrics[4]).toBe(round12(2 / 3));
    const diff16 = roundToHalf(60000 - -60000);
    expect(diff16).toBe(Infinity);
    expect(overflow.metrics[3]).toBe(Infinity);
    expect(overflow.metrics[2]).toBe(120000);
  });

  it('0-d: MaxAbsErr/MaxRelativeErr only, the message repeated 16 times (quirk 3)', async () => {
    const { cells: [c] } = await cells([{ npu: [2.5], bench: [2], shape: [] }]);
    expect(c.metrics).toEqual(['unsupported', 'unsupported', 0.5, 0.25, 'unsupported', 'unsupported']);
    const m = "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and 'Five Thousandths Err Ratio'. ";
    expect(c.message).toBe(m.repeat(16));
    expect(accuracyVerdict(c.metrics[0], c.metrics[2])).toBe('None');
  });

  it('empty, shape mismatch, length 1', async () => {
    const { cells: [empty, shape, one] } = await cells([
      { npu: [], bench: [], shape: [0] },
      { npu: [1, 2, 3, 4, 5, 6], bench: [1, 2, 3, 4, 5, 6], shape: [2, 3], benchShape: [3, 2] },
      { npu: [3], bench: [3.5] },
    ]);
    expect(empty.metrics).toEqual(Array(6).fill('unsupported'));
    expect(empty.message).toBe('This is empty data, can not compare.');
    expect(shape.metrics).toEqual(Array(6).fill('shape unmatched'));
    expect(shape.message).toBe('Shape of NPU and bench tensor do not match. Skipped.');
    expect(accuracyVerdict(shape.metrics[0], shape.metrics[2])).toBe('Unmatched');
    expect(one.metrics[0]).toBe('unsupported');
    expect(one.message).toBe('This is a 1-d tensor of length 1.');
    expect(one.metrics.slice(1, 4)).toEqual([0.5, 0.5, round12(Math.fround(Math.fround(3 - 3.5) / 3.5) * -1)]);
  });

  it('messages accumulate: dtype mismatch, then the cosine problem', async () => {
    const { cells: [c] } = await cells([{ npu: [0, 0, 0], bench: [1, 2, 3], descr: '<f4', benchDescr: '<f8' }]);
    expect(c.metrics[0]).toBe('Nan');
    expect(c.message).toBe(
      'Dtype of NPU and bench tensor do not match.Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.',
    );
  });

  it('no file, unmatched, missing file', async () => {
    const { cells: c, warnings } = await cells(['npu-1', 'bench-1', 'unmatched', 'missing']);
    expect(c.map((x) => x.message)).toEqual([
      'NPU does not have data file.',
      'Bench does not have data file.',
      'Bench api/module unmatched.',
      expect.stringMatching(/^Dump file: \['T\.x\.\d+\.forward\.input\.0\.npy', 'T\.x\.\d+\.forward\.input\.0\.npy'\] not found or read failed\.$/),
    ]);
    for (const x of c) expect(x.metrics).toEqual(Array(6).fill('unsupported'));
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toMatch(/bench.*not found/);
  });

  it('accuracy verdict thresholds', () => {
    expect(accuracyVerdict(0.995, 0.0005)).toBe('Yes');
    expect(accuracyVerdict(0.98, 0.002)).toBe('No');
    expect(accuracyVerdict(0.89, 0)).toBe('No');
    expect(accuracyVerdict(0.999, 1.5)).toBe('No');
    expect(accuracyVerdict('Nan', 0.0001)).toBe('Yes');
    expect(accuracyVerdict('unsupported', 0.1)).toBe('None');
  });
});
