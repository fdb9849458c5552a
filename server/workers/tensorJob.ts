import {
  metricsFromHeaders,
  sameMetric,
  TensorPairAccumulator,
  type TensorJob,
  type TensorMetrics,
} from '../../src/core/compare/tensorMetrics.js';
import { isFortranNpy, openTensorFile, TensorReadError, type TensorSource } from './tensorFile.js';

/**
 * One row's real-tensor metrics: open both files, settle what the headers decide (empty, shape mismatch), then
 * stream both tensors through the accumulator in lockstep chunks. Read problems become msprobe's "unsupported".
 */

const CHUNK = 1 << 20;

// One job runs at a time per thread, so the decode buffers are allocated once and reused.
let npuBuffer = new Float64Array(0);
let benchBuffer = new Float64Array(0);

function buffers(count: number): [Float64Array, Float64Array] {
  const size = Math.min(CHUNK, Math.max(1, count));
  if (npuBuffer.length < size) {
    npuBuffer = new Float64Array(size);
    benchBuffer = new Float64Array(size);
  }
  return [npuBuffer, benchBuffer];
}

function unreadable(job: TensorJob): TensorMetrics {
  return sameMetric('unsupported', `Dump file: ['${base(job.npuPath)}', '${base(job.benchPath)}'] not found or read failed.`);
}

function base(p: string | null): string {
  return p === null ? '-1' : p.slice(p.lastIndexOf('/') + 1);
}

export function runTensorJob(job: TensorJob): TensorMetrics {
  if (job.npuPath === null) return sameMetric('unsupported', 'NPU does not have data file.');
  if (job.benchPath === null) return sameMetric('unsupported', 'Bench does not have data file.');
  let npu: TensorSource | null = null;
  let bench: TensorSource | null = null;
  try {
    // Both sides Fortran-ordered: pairing in file order is pairing by index, no reordering needed.
    const fileOrder = isFortranNpy(job.npuPath) && isFortranNpy(job.benchPath);
    npu = openTensorFile(job.npuPath, { fileOrder });
    bench = openTensorFile(job.benchPath, { fileOrder });
    const early = metricsFromHeaders(npu.info, bench.info);
    if (early) return early;
    if (bench.count === 0) return sameMetric('unsupported', 'This is empty data, can not compare.');
    const acc = new TensorPairAccumulator(npu.info, bench.info);
    const [n, b] = buffers(Math.max(npu.count, bench.count));
    const chunk = n.length;
    if (npu.info.shape.length === 0) {
      // numpy broadcasts a 0-d NPU tensor against the Bench array.
      if (npu.read(n, 1) !== 1) throw new TensorReadError(job.npuPath, 'empty 0-d tensor');
      n.fill(n[0]);
      for (let got = bench.read(b, chunk); got > 0 && !acc.done; got = bench.read(b, chunk)) acc.push(n, b, got);
    } else {
      for (;;) {
        const got = npu.read(n, chunk);
        if (got === 0) break;
        if (bench.read(b, got) !== got) throw new TensorReadError(job.benchPath, 'fewer elements than its shape says');
        acc.push(n, b, got);
        if (acc.done) break;
      }
    }
    return acc.finish();
  } catch (e) {
    if (e instanceof TensorReadError) return unreadable(job);
    throw e;
  } finally {
    npu?.close();
    bench?.close();
  }
}
