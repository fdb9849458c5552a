import { parentPort, workerData } from 'node:worker_threads';
import { loadProblem, loadTbHierarchy, type TbLoadInput } from './tbFiles.js';

/**
 * Worker-thread entry (bundled to dist/server/store/tbGraph/tbWorker.js): decodes one large TensorBoard / ONNX graph
 * and builds its hierarchy, so the server's thread keeps answering (issue 16: a 100,000-node GraphDef). protobufjs
 * compiles its decoders with Function(), which is fine here in Node; the page only ever gets JSON.
 */
loadTbHierarchy(workerData as TbLoadInput).then(
  (hierarchy) => parentPort!.postMessage({ type: 'done', hierarchy }),
  (e: unknown) => parentPort!.postMessage({ type: 'error', problem: loadProblem(e) }),
);
