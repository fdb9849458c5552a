import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import type { TensorJob, TensorMetrics } from '../../src/core/compare/tensorMetrics.js';
import { runTensorJob } from './tensorJob.js';
import { bundledScript } from './bundledScript.js';
import { restoreJitBudget } from '../jitBudget.js';

/**
 * The real-tensor `TensorMetricsProvider`: a pool of worker threads (one per core) running compareWorker.js, each
 * streaming one file pair at a time, so at most `threads` tensor pairs are being read and nothing is held whole.
 * When the bundled worker script cannot be found (running from TypeScript sources) the jobs run in this thread.
 */

export interface TensorPoolOptions {
  /** Worker threads; default: available cores. */
  threads?: number;
  /** Path of the bundled compareWorker.js; default: next to the bundle (dist/server/workers). */
  workerScript?: string | null;
}

function defaultWorkerScript(): string | null {
  return bundledScript('workers/compareWorker.js', import.meta.url);
}

export function createTensorPool(options: TensorPoolOptions = {}): TensorMetricsProvider {
  // Tensor metrics are numeric loops that want V8's full inlining (a lowered budget made them 8% slower).
  restoreJitBudget();
  const script = options.workerScript === undefined ? defaultWorkerScript() : options.workerScript;
  const threads = Math.max(1, options.threads ?? availableParallelism());
  if (!script) return inThread;
  return (jobs, onProgress) => runPool(script, threads, jobs, onProgress);
}

async function inThread(jobs: TensorJob[], onProgress?: (done: number, total: number) => void): Promise<TensorMetrics[]> {
  const out: TensorMetrics[] = [];
  for (const job of jobs) {
    out.push(runTensorJob(job));
    onProgress?.(out.length, jobs.length);
    // let timers and signals run between tensors
    await new Promise((r) => setImmediate(r));
  }
  return out;
}

function runPool(
  script: string,
  threads: number,
  jobs: TensorJob[],
  onProgress?: (done: number, total: number) => void,
): Promise<TensorMetrics[]> {
  if (jobs.length === 0) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const results = new Array<TensorMetrics>(jobs.length);
    const workers: Worker[] = [];
    let next = 0;
    let done = 0;
    let failed = false;
    const finish = (error?: Error) => {
      for (const w of workers) void w.terminate();
      if (error) reject(error);
      else resolve(results);
    };
    const feed = (w: Worker) => {
      if (next < jobs.length) {
        const id = next++;
        w.postMessage({ id, job: jobs[id] });
      }
    };
    const count = Math.min(threads, jobs.length);
    for (let i = 0; i < count; i++) {
      const w = new Worker(script);
      workers.push(w);
      w.on('message', (msg: { id: number; metrics?: TensorMetrics; error?: string }) => {
        if (failed) return;
        if (msg.error !== undefined || !msg.metrics) {
          failed = true;
          const job = jobs[msg.id];
          finish(new Error(`tensor compare failed for ${job?.npuPath} / ${job?.benchPath}: ${msg.error}`));
          return;
        }
        results[msg.id] = msg.metrics;
        done++;
        onProgress?.(done, jobs.length);
        if (done === jobs.length) finish();
        else feed(w);
      });
      w.on('error', (e) => {
        if (failed) return;
        failed = true;
        finish(e);
      });
      feed(w);
    }
  });
}
