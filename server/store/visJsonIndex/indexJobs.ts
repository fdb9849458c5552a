import { Worker } from 'node:worker_threads';
import { unpackIndex } from './indexCodec.js';
import { runIndexJob, type IndexJobInput, type IndexJobMessage } from './indexJob.js';
import type { VisIndex } from './visIndex.js';
import { bundledScript } from '../../workers/bundledScript.js';

/**
 * Starts indexing jobs for the server: in a worker thread when the bundled worker script exists (the built
 * server), otherwise in this thread (TypeScript sources, e.g. under vitest without a bundled worker).
 */

export interface IndexProgress {
  bytesRead: number;
  bytesTotal: number;
}

export interface IndexJobHandle {
  readonly progress: IndexProgress;
  /** Set when done: whether the index came from the cache rather than from reading the file. */
  fromCache: boolean;
  /** Resolves with the index; rejects with IndexJobFailure. */
  readonly done: Promise<VisIndex>;
  cancel(): void;
}

/** The file could not be indexed: `problem` is the one-line reason. */
export class IndexJobFailure extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'IndexJobFailure';
  }
}

/**
 * dist/server/cli/main.js → dist/server/store/visJsonIndex/indexWorker.js (esbuild outbase is server/); from
 * TypeScript sources there is no .js next to this file and the result is null.
 */
export function defaultIndexWorkerScript(): string | null {
  return bundledScript('store/visJsonIndex/indexWorker.js', import.meta.url);
}

export function startIndexJob(
  input: IndexJobInput,
  o: { workerScript: string | null; log: (line: string) => void },
): IndexJobHandle {
  const progress: IndexProgress = { bytesRead: 0, bytesTotal: input.stamp.size };
  let settle!: { resolve: (i: VisIndex) => void; reject: (e: Error) => void };
  const done = new Promise<VisIndex>((resolve, reject) => (settle = { resolve, reject }));
  // Nobody may be waiting (the 202 answer went out): keep an unobserved failure from killing the process.
  done.catch(() => {});
  let finished = false;
  const handle = { progress, done, fromCache: false, cancel: () => {} } as IndexJobHandle;
  const onMessage = (msg: IndexJobMessage) => {
    if (finished) return;
    switch (msg.type) {
      case 'progress':
        progress.bytesRead = msg.bytesRead;
        break;
      case 'warning':
        o.log(msg.message);
        break;
      case 'error':
        finished = true;
        settle.reject(new IndexJobFailure(msg.problem));
        break;
      case 'done':
        finished = true;
        progress.bytesRead = progress.bytesTotal;
        handle.fromCache = msg.fromCache;
        try {
          settle.resolve(unpackIndex(msg.packed));
        } catch (e) {
          settle.reject(new IndexJobFailure(`damaged index: ${(e as Error).message}`));
        }
        break;
    }
  };

  if (!o.workerScript) {
    runIndexJob(input, onMessage);
    return handle;
  }
  const worker = new Worker(o.workerScript, { workerData: input });
  worker.on('message', onMessage);
  worker.on('error', (e) => {
    if (finished) return;
    finished = true;
    settle.reject(new IndexJobFailure(`indexing failed: ${e.message}`));
  });
  worker.on('exit', (code) => {
    if (finished) return;
    finished = true;
    settle.reject(new IndexJobFailure(`indexing stopped (worker exit code ${code})`));
  });
  // An idle server must be able to exit while a job runs (tests, Ctrl-C): the worker does not hold the loop.
  worker.unref();
  handle.cancel = () => {
    if (finished) return;
    finished = true;
    settle.reject(new IndexJobFailure('cancelled'));
    void worker.terminate();
  };
  return handle;
}
