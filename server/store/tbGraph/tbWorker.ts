import { parentPort, workerData } from 'node:worker_threads';
import { packedTransfer, tableTransfer } from '../../../src/core/tbgraph/packed.js';
import type { TbDetailsData } from './tbDiskCache.js';
import { keepInCache, loadProblem, loadTbHierarchy, type TbLoadInput } from './tbFiles.js';

/**
 * Worker-thread entry (bundled to dist/server/store/tbGraph/tbWorker.js): decodes one large TensorBoard / ONNX graph
 * and builds its hierarchy, posted packed (tbCache.ts), so the server's thread keeps answering (issue 16: a
 * 100,000-node GraphDef); then keeps it in the disk cache. protobufjs compiles its decoders with Function(), which is
 * fine here in Node; the page only ever gets JSON.
 */
const input = workerData as TbLoadInput;

/** The buffers a postMessage of `d` transfers; a view into a larger buffer is copied out first (it is the caller's). */
function detailsTransfer(d: TbDetailsData): ArrayBuffer[] {
  if ('json' in d) return tableTransfer(d.json);
  const w = d.wire;
  if (w.graph.byteOffset !== 0 || w.graph.byteLength !== w.graph.buffer.byteLength) w.graph = new Uint8Array(w.graph);
  return [w.graph, w.nodeStart, w.nodeEnd, w.inputStart, w.inputSource].map((v) => v.buffer as ArrayBuffer);
}

loadTbHierarchy(input).then(
  // Transferred, not cloned: the server's thread takes the buffers as they are (packed.ts). The structure first, so
  // the graph's first answers do not wait for the op details, which only the details panel reads; the disk cache is
  // written between the two, from a copy of the structure (a transferred buffer is gone here).
  ({ packed, details, fromCache }) => {
    const keep = input.cache && !fromCache ? structuredClone(packed) : null;
    parentPort!.postMessage({ type: 'structure', packed, fromCache }, packedTransfer(packed));
    const ops = details();
    const problem = keep ? keepInCache(input, keep, ops) : null;
    if (problem) parentPort!.postMessage({ type: 'warning', message: problem });
    parentPort!.postMessage({ type: 'details', ops }, detailsTransfer(ops));
  },
  (e: unknown) => parentPort!.postMessage({ type: 'error', problem: loadProblem(e) }),
);
