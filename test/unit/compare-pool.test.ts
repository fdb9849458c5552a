import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareGraphsAsync } from '../../src/core/compare/compareGraphs.js';
import { getPrecisionIndex } from '../../src/core/compare/nodeResults.js';
import type { TensorJob } from '../../src/core/compare/tensorMetrics.js';
import { encodeNpy } from '../../src/core/formats/npy.js';
import { runTensorJob } from '../../server/workers/tensorJob.js';
import { createTensorPool } from '../../server/workers/tensorPool.js';
import { repoRoot } from '../helpers/shared.js';
import { addNode, newGraph } from './compare-helpers.js';

/**
 * The worker_threads pool, with compareWorker.ts bundled like scripts/build-server.mjs does (npm packages bundled
 * in too, since the bundle lives in a temp dir without node_modules).
 */

const tmp = mkdtempSync(path.join(os.tmpdir(), 'pb-pool-'));
const workerScript = path.join(tmp, 'compareWorker.js');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  await build({
    entryPoints: [path.join(repoRoot, 'server/workers/compareWorker.ts')],
    outfile: workerScript,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
});

function npy(name: string, values: ArrayLike<number>, descr = '<f4', shape = [values.length]): string {
  const p = path.join(tmp, name);
  writeFileSync(p, encodeNpy(values, descr, shape));
  return p;
}

describe('tensor worker pool', () => {
  it('gives the same metrics as the in-thread computation, in job order, on two threads', async () => {
    const jobs: TensorJob[] = [];
    for (let k = 0; k < 6; k++) {
      const n = Array.from({ length: 1000 }, (_, i) => Math.sin(i + k));
      const b = n.map((v, i) => (i % (k + 2) === 0 ? v * 1.01 : v));
      jobs.push({ npuPath: npy(`n${k}.npy`, n), benchPath: npy(`b${k}.npy`, b) });
    }
    jobs.push({ npuPath: null, benchPath: null });
    jobs.push({ npuPath: path.join(tmp, 'missing.npy'), benchPath: jobs[0].benchPath });
    const progress: number[] = [];
    const pool = createTensorPool({ workerScript, threads: 2 });
    const got = await pool(jobs, (done) => progress.push(done));
    expect(got).toEqual(jobs.map(runTensorJob));
    expect(progress[progress.length - 1]).toBe(jobs.length);
    expect(got[6].cosine).toBe('unsupported');
  });

  it('drives compareGraphsAsync in real-tensor mode', async () => {
    const npu = newGraph(path.join(tmp, 'npu'));
    const bench = newGraph(path.join(tmp, 'bench'));
    for (const [g, scale] of [[npu, 1.5], [bench, 1]] as const) {
      addNode(g, 'Functional.linear.0.forward', 'DefaultModel', {
        inputs: [['input.0', { dataName: 'Functional.linear.0.forward.input.0.npy', shape: [4] }]],
        outputs: [['output.0', { dataName: 'Functional.linear.0.forward.output.0.npy', shape: [4] }]],
      });
      const dir = path.join(g.dumpDir, 'dump_tensor_data');
      rmSync(dir, { recursive: true, force: true });
      await import('node:fs').then((fs) => fs.mkdirSync(dir, { recursive: true }));
      writeFileSync(path.join(dir, 'Functional.linear.0.forward.input.0.npy'), encodeNpy([1, 2, 3, 4], '<f4', [4]));
      writeFileSync(path.join(dir, 'Functional.linear.0.forward.output.0.npy'), encodeNpy([1, 2, 3, 4 * scale], '<f4', [4]));
    }
    await compareGraphsAsync(npu, bench, {
      mode: 'all',
      fuzzy: false,
      layerMapping: null,
      overflowCheck: false,
      tensorMetrics: createTensorPool({ workerScript, threads: 2 }),
    });
    const node = npu.nodeMap.get('Functional.linear.0.forward')!;
    // inputs identical (ratio 1), output 3 of 4 within 1e-3 → 1 - 0.75
    expect(getPrecisionIndex(node)).toBe(0.25);
    expect(node.outputData.get('Functional.linear.0.forward.output.0')!.get('MaxAbsErr')).toBe(2);
  });

  it('falls back to this thread without a worker script', async () => {
    const job = { npuPath: npy('x.npy', [1, 2]), benchPath: npy('y.npy', [1, 3]) };
    const got = await createTensorPool({ workerScript: null })([job]);
    expect(got[0].maxAbsErr).toBe(1);
  });
});
