import { parentPort } from 'node:worker_threads';
import type { TensorJob } from '../../src/core/compare/tensorMetrics.js';
import { runTensorJob } from './tensorJob.js';

/**
 * worker_threads entry for real-tensor metrics (see tensorPool.ts). Messages in: `{id, job}`; out:
 * `{id, metrics}` or `{id, error}`. One job at a time; the pool keeps every worker busy.
 */
if (!parentPort) throw new Error('compareWorker must run as a worker thread');
const port = parentPort;
port.on('message', (msg: { id: number; job: TensorJob }) => {
  try {
    port.postMessage({ id: msg.id, metrics: runTensorJob(msg.job) });
  } catch (e) {
    port.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) });
  }
});
