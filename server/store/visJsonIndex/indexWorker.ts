import { parentPort, workerData } from 'node:worker_threads';
import { transferList } from './indexCodec.js';
import { runIndexJob, type IndexJobInput } from './indexJob.js';

/**
 * Worker-thread entry (bundled to dist/server/store/visJsonIndex/indexWorker.js): indexes one `.vis` so the
 * server's thread keeps answering other requests. The finished arrays are transferred, not copied.
 */
runIndexJob(workerData as IndexJobInput, (msg) => {
  parentPort!.postMessage(msg, msg.type === 'done' ? transferList(msg.packed) : []);
});
