import { AdvisorScan } from './advisor.js';
import { columnIndex } from './columns.js';
import { ApiBatcher, highlightBatch, type TableRow } from './highlight.js';
import type { MatchedPairs } from './match.js';
import type { RealCells } from './realCells.js';
import { tableRow, type RowContext } from './tableRows.js';

/**
 * Produces the result table row by row in match order, a chunk of pairs at a time (so real-data metrics of a
 * chunk can be computed in parallel), through highlight (per API batch) into `sink`, watching for the advisor.
 */

export interface TableStreamOptions {
  ctx: RowContext;
  header: string[];
  pairs: MatchedPairs;
  /** Apply the `-hl` rules (colours and reasons). */
  highlight: boolean;
  /** Real-data metrics of a chunk of pairs (all mode). */
  realCells?: (npuRows: Int32Array, benchRows: Int32Array) => Promise<RealCells[]>;
  sink: (row: TableRow) => Promise<void> | void;
  onProgress?: (done: number, total: number) => void;
  chunkSize?: number;
  /** Table index of the first pair (when this is a part of a table written in parts); for the advisor's line. */
  firstIndex?: number;
}

export async function streamTable(o: TableStreamOptions): Promise<AdvisorScan> {
  const col = columnIndex(o.header);
  const mode = o.ctx.mode;
  const advisor = new AdvisorScan(mode);
  const batcher = new ApiBatcher();
  const chunk = o.chunkSize ?? (mode === 'all' ? 4096 : 65536);
  let written = o.firstIndex ?? 0;
  const emit = async (rows: TableRow[] | null) => {
    if (!rows) return;
    if (o.highlight) highlightBatch(rows, mode, col);
    for (const row of rows) {
      advisor.consider(written, row.cells[col.npuName] as string, row.cells[col.result]);
      written++;
      const pending = o.sink(row);
      if (pending) await pending;
    }
  };
  for (let start = 0; start < o.pairs.length; start += chunk) {
    const end = Math.min(o.pairs.length, start + chunk);
    const npuRows = o.pairs.npu.subarray(start, end);
    const benchRows = o.pairs.bench.subarray(start, end);
    const real = mode === 'all' && o.realCells ? await o.realCells(npuRows, benchRows) : null;
    for (let k = 0; k < npuRows.length; k++) {
      const row = tableRow(o.ctx, npuRows[k], benchRows[k], real ? real[k] : null);
      // Without -hl batches only matter for order, which they keep: write straight through.
      if (o.highlight) await emit(batcher.push(row));
      else await emit([row]);
    }
    o.onProgress?.(end, o.pairs.length);
  }
  if (o.highlight) await emit(batcher.flush());
  return advisor;
}
