import { parentPort, workerData } from 'node:worker_threads';
import { encodeFindError, heatmapCacheOf, runFind, type FindAnswer, type FindWorkerData, type FindWorkerMessage } from './findPool.js';
import { createStoreCache } from './openStore.js';
import { withWorkBudget } from './workBudget.js';
import { runIdleStep } from './idleWork.js';

/**
 * Worker-thread entry (bundled to dist/server/store/findWorker.js): runs the server's searches and filters one at a
 * time (findPool.ts). Its own store cache indexes in this thread and shares the server's cache directory, so a
 * large `.vis` the server indexed is loaded from disk, not read again, and a `.vis.db`'s worst-table lists are kept
 * there (derivedCache.ts). The server has it open the files it opens (FindPool.prepare). Problems are logged by the
 * server's own cache.
 */
const data = workerData as FindWorkerData;
const cancelled = new Int32Array(data.cancel);
const IDLE_STEP_MS = 50;
const heatmapCache = heatmapCacheOf(data);
const stores = createStoreCache({
  cacheDir: data.cacheDir,
  cacheMaxBytes: data.cacheMaxBytes,
  chunkSize: data.chunkSize,
  indexWorkerScript: null,
  findWorkerScript: null,
  log: () => {},
});

parentPort!.on('message', (message: FindWorkerMessage) => {
  if ('prepare' in message) {
    try {
      // Its meta too: a `.vis.db` counts its nodes for it (~0.3 s at 10^6), which the first divergent node needs.
      const opened = stores.open(message.prepare);
      if ('store' in opened) opened.store.meta();
    } catch {
      // The request that needs the file meets the problem again and reports it.
    }
    setImmediate(idle);
    return;
  }
  const job = message;
  let answer: FindAnswer;
  try {
    const opened = stores.open(job.ref);
    // Without an index worker the cache indexes before answering: there is always a store.
    if (!('store' in opened)) throw new Error('the file is still being indexed');
    const { store } = opened;
    answer = { id: job.id, json: withWorkBudget(job.ref.relPath, job.budgetMs, () => runFind(store, job.request, job.ref, (ref) => stores.open(ref), heatmapCache), cancelled) };
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
