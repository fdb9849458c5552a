import { parentPort, workerData } from 'node:worker_threads';
import { failureMessage, performSave, type SaveTask, type SaveWorkerMessage } from './saveJobs.js';

/**
 * Worker-thread entry (bundled as dist/server/overlay/saveWorker.js): one save of a matched file (saveJobs.ts), its
 * progress posted at most every PROGRESS_MS, then `done` or what it failed with.
 */
const PROGRESS_MS = 100;
const port = parentPort!;
const task = workerData as SaveTask;
let last = 0;
try {
  performSave(task, (share) => {
    const now = performance.now();
    if (now - last < PROGRESS_MS) return;
    last = now;
    port.postMessage({ t: 'progress', share } satisfies SaveWorkerMessage);
  });
  port.postMessage({ t: 'done' } satisfies SaveWorkerMessage);
} catch (e) {
  port.postMessage(failureMessage(e, task));
}
