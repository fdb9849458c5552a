import { parentPort, workerData } from 'node:worker_threads';
import type { DbNodeRow } from '../../src/core/formats/visDb.js';
import { unpackRows } from './dbRowCodec.js';
import type { DbWorkerMessage, DbWorkerReply } from './dbWorker.js';
import { VisDbFile } from './writeDb.js';

/**
 * Worker-thread entry (bundled as dist/server/graph/dbWriterWorker.js): writes the rows the main thread sends into
 * one `.vis.db`, so SQLite's inserts, indexing and fsync run on the second core. Every message (and opening the
 * file) is answered, in order, with `ok` or the error it failed with; after an error the rest is ignored.
 */
const port = parentPort!;
let target: VisDbFile | null = null;
let failed = false;

function attempt(work: () => void): void {
  if (failed) return;
  try {
    work();
    port.postMessage({ ok: true } satisfies DbWorkerReply);
  } catch (e) {
    failed = true;
    target?.abandon();
    target = null;
    const code = (e as { code?: unknown })?.code;
    port.postMessage({ ok: false, message: e instanceof Error ? e.message : String(e), code: typeof code === 'string' ? code : null } satisfies DbWorkerReply);
  }
}

port.on('message', (m: DbWorkerMessage) =>
  attempt(() => {
    switch (m.t) {
      case 'nodes':
        for (const row of unpackRows(m.packed)) target!.node(row as DbNodeRow);
        break;
      case 'stacks':
        target!.stacks(m.rows);
        break;
      case 'distributed':
        target!.distributed(m.updates);
        break;
      case 'config':
        target!.config(m.row);
        break;
      case 'finish':
        target!.finish();
        target = null;
        break;
      case 'abandon':
        target?.abandon();
        target = null;
        break;
    }
  }),
);

attempt(() => {
  target = new VisDbFile((workerData as { file: string }).file, { indexesFirst: true, syncEvery: 8 << 20 });
});
