import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import zlib from 'node:zlib';
import type { TableMode } from '../../src/core/compareTable/columns.js';
import { SideTable, type SideTableMessage } from '../../src/core/compareTable/sideTable.js';
import { StackTable, type StackTableMessage } from '../../src/core/compareTable/stackTable.js';
import { streamTable } from '../../src/core/compareTable/tableStream.js';
import { rowXml, type WriterStyle } from '../../src/core/compareTable/xlsxParts.js';
import { readSide } from './readSide.js';
import { serializeError } from './workerProtocol.js';

/**
 * worker_threads entry of the compare command, two jobs:
 * - `read`: one dump.json into a table (readSide.ts), posted back with its typed arrays moved, not copied;
 * - `rows`: a contiguous run of result rows turned into sheet XML and compressed as sync-flushed raw deflate
 *   segments into a scratch file, so two threads can write one big table (see parallelTable.ts).
 * Both post `{ progress: n }` (bytes read, rows written since the last message) before their result.
 */

export interface ReadJob {
  kind: 'read';
  file: string;
  validate: boolean;
}

export interface RowsJob {
  kind: 'rows';
  npu: SideTableMessage;
  bench: SideTableMessage;
  stacks: StackTableMessage | null;
  mode: TableMode;
  header: string[];
  highlight: boolean;
  fuzzy: boolean;
  style: WriterStyle;
  parts: Array<{ npuRows: Int32Array; benchRows: Int32Array; firstIndex: number; firstRowNumber: number; file: string }>;
}

/** One compressed segment in a part's scratch file. */
export interface Segment {
  offset: number;
  length: number;
  crc: number;
  size: number;
}

export interface RowsResult {
  parts: Array<{ segments: Segment[]; first: { line: number; name: string } | null }>;
}

const SEGMENT_BYTES = 4 << 20;

/** `onRows`: rows finished since the last call (progress). */
async function writeRows(job: RowsJob, onRows: (rows: number) => void): Promise<RowsResult> {
  const npu = SideTable.fromMessage(job.npu);
  const bench = SideTable.fromMessage(job.bench);
  const stacks = job.stacks ? StackTable.fromMessage(job.stacks) : null;
  const result: RowsResult = { parts: [] };
  for (const part of job.parts) {
    const fd = fs.openSync(part.file, 'w', 0o600);
    const segments: Segment[] = [];
    let offset = 0;
    let buf = Buffer.allocUnsafe(SEGMENT_BYTES);
    let pos = 0;
    const flush = () => {
      if (pos === 0) return;
      const raw = buf.subarray(0, pos);
      const packed = zlib.deflateRawSync(raw, { level: 1, memLevel: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      for (let done = 0; done < packed.length; ) done += fs.writeSync(fd, packed, done);
      segments.push({ offset, length: packed.length, crc: zlib.crc32(raw), size: pos });
      offset += packed.length;
      pos = 0;
    };
    let rowNumber = part.firstRowNumber;
    let reported = 0;
    try {
      const advisor = await streamTable({
        ctx: { mode: job.mode, npu, bench, stacks, fuzzy: job.fuzzy },
        header: job.header,
        pairs: { length: part.npuRows.length, npu: part.npuRows, bench: part.benchRows },
        highlight: job.highlight,
        firstIndex: part.firstIndex,
        onProgress: (done) => {
          onRows(done - reported);
          reported = done;
        },
        sink: (row) => {
          const xml = rowXml(rowNumber++, row.cells, job.style, row.fill);
          if (pos + xml.length * 3 > buf.length) {
            flush();
            if (xml.length * 3 > buf.length) buf = Buffer.allocUnsafe(xml.length * 3);
          }
          pos += buf.write(xml, pos, 'utf8');
        },
      });
      flush();
      result.parts.push({ segments, first: advisor.first });
    } finally {
      fs.closeSync(fd);
    }
  }
  return result;
}

if (parentPort) {
  const port = parentPort;
  const job = workerData as ReadJob | RowsJob;
  (async () => {
    if (job.kind === 'read') {
      const side = readSide(job.file, { validate: job.validate, shared: true, onBytes: (n) => port.postMessage({ progress: n }) });
      // Shared buffers: the table can then be handed to the row writers without another copy.
      const { message } = side.table.toMessage(true);
      port.postMessage({ ok: { ...side, table: message } });
    } else port.postMessage({ ok: await writeRows(job, (rows) => port.postMessage({ progress: rows })) });
  })().catch((e: unknown) => port.postMessage({ error: serializeError(e) }));
}
