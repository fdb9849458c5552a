import { parentPort, workerData } from 'node:worker_threads';
import { packedTransfer, tableTransfer } from '../../../src/core/tbgraph/packed.js';
import { loadProblem, loadTbHierarchy, type TbLoadInput } from './tbFiles.js';

/**
 * Worker-thread entry (bundled to dist/server/store/tbGraph/tbWorker.js): decodes one large TensorBoard / ONNX graph
 * and builds its hierarchy, posted packed (tbCache.ts), so the server's thread keeps answering (issue 16: a
 * 100,000-node GraphDef). protobufjs compiles its decoders with Function(), which is fine here in Node; the page only ever gets JSON.
 */
loadTbHierarchy(workerData as TbLoadInput).then(
  // Transferred, not cloned: the server's thread takes the buffers as they are (packed.ts). The structure first, so
  // the graph's first answers do not wait for the op details, which only the details panel reads.
  ({ packed, details }) => {
    parentPort!.postMessage({ type: 'structure', packed }, packedTransfer(packed));
    const ops = details();
    parentPort!.postMessage({ type: 'details', ops }, tableTransfer(ops));
  },
  (e: unknown) => parentPort!.postMessage({ type: 'error', problem: loadProblem(e) }),
);
