import { parentPort, workerData } from 'node:worker_threads';
import { encodeFindError, runFind, type FindAnswer, type FindJob, type FindWorkerData } from './findPool.js';
import { createStoreCache } from './openStore.js';
import { withWorkBudget } from './workBudget.js';
import { runIdleStep } from './idleWork.js';

/**
 * Worker-thread entry (bundled to dist/server/store/findWorker.js): runs the server's searches and filters one at a
 * time (findPool.ts). Its own store cache indexes in this thread and shares the server's index cache directory, so a
 * large `.vis` the server indexed is loaded from disk, not read again. Problems are logged by the server's own cache.
 */
const data = workerData as FindWorkerData;
const cancelled = new Int32Array(data.cancel);
const IDLE_STEP_MS = 50;
const stores = createStoreCache({
  cacheDir: data.cacheDir,
  cacheMaxBytes: data.cacheMaxBytes,
  chunkSize: data.chunkSize,
  indexWorkerScript: null,
  findWorkerScript: null,
  log: () => {},
});

parentPort!.on('message', (job: FindJob) => {
  let answer: FindAnswer;
  try {
    const opened = stores.open(job.ref);
    // Without an index worker the cache indexes before answering: there is always a store.
    if (!('store' in opened)) throw new Error('the file is still being indexed');
    const { store } = opened;
    answer = { id: job.id, json: withWorkBudget(job.ref.relPath, job.budgetMs, () => runFind(store, job.request, job.ref, (ref) => stores.open(ref)), cancelled) };
  } catch (e) {
    answer = { id: job.id, error: encodeFindError(e) };
  }
  parentPort!.postMessage(answer);
  setImmediate(idle);
});

/** Between requests, short steps of work a store left for later (idleWork.ts); a message waits one step at most. */
function idle(): void {
  if (runIdleStep(IDLE_STEP_MS)) setImmediate(idle);
}
