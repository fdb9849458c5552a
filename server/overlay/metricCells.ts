import { metricCells, precisionFromCells, type MetricCells } from '../../src/core/match/index.js';
import type { GraphStore } from '../store/graphStore.js';
import { checkBudget, WorkInProgress } from '../store/workBudget.js';
import type { OverlayTarget } from './overlayEntry.js';

/** Outputs read per store call. */
const BATCH = 2048;
/** Tables kept (least recently used dropped first) and their total size. */
const MAX_TABLES = 8;
const MAX_TABLE_BYTES = 512 * 1024 * 1024;
/** Map entry, id text and cells: a rough size per node. */
const NODE_BYTES = 160;

const IRREGULAR = 1 << 4;
const HAS_OUTPUTS = 1 << 5;

/**
 * The NPU nodes' MetricCells (src/core/match/precision.ts) of one graph of one file version, shared by every overlay
 * on it: the first metric choice reads the matched nodes' outputs once, any later choice (another subset, another
 * user) recolours from here without reading records.
 */
export class MetricCellTable {
  private readonly slots = new Map<string, number>();
  private max = new Float64Array(4 * 1024);
  private flags = new Uint8Array(1024);

  get bytes(): number {
    return this.slots.size * NODE_BYTES;
  }

  /**
   * Reads the outputs of the `ids` not known yet. With `stopAt`, reading past that time stops with WorkInProgress
   * (the client asks again and the table goes on from where it stopped).
   */
  fill(store: GraphStore, target: OverlayTarget, ids: readonly string[], stopAt = Infinity): void {
    const todo = ids.filter((id) => !this.slots.has(id));
    for (let i = 0; i < todo.length; i += BATCH) {
      if (performance.now() > stopAt) throw new WorkInProgress(target.relPath, ids.length - todo.length + i, ids.length);
      checkBudget();
      const batch = todo.slice(i, i + BATCH);
      const items = store.items({ side: 'npu', ids: batch, step: target.step, rank: target.rank });
      for (let k = 0; k < batch.length; k++) this.put(batch[k], items[k] ? metricCells(items[k]!.outputData) : { max: NONE, nonFinite: 0, hasOutputs: false });
    }
  }

  /**
   * precisionFromCells of the node for the metrics in `mask` (bit k = ORDER[k], as MetricCells' bits), without building
   * its cells: undefined = not read yet, NaN = a cell Python orders (read the record).
   */
  precision(id: string, mask: number): number | null | undefined {
    const s = this.slots.get(id);
    if (s === undefined) return undefined;
    const f = this.flags[s];
    return f & IRREGULAR ? NaN : precisionFromCells(this.max, 4 * s, f & 15, (f & HAS_OUTPUTS) !== 0, mask);
  }

  private put(id: string, cells: MetricCells | null): void {
    if (this.slots.has(id)) return;
    const s = this.slots.size;
    if (s === this.flags.length) {
      const max = new Float64Array(this.max.length * 2);
      max.set(this.max);
      this.max = max;
      const flags = new Uint8Array(this.flags.length * 2);
      flags.set(this.flags);
      this.flags = flags;
    }
    this.slots.set(id, s);
    if (!cells) {
      this.flags[s] = IRREGULAR;
      return;
    }
    this.max.set(cells.max, 4 * s);
    this.flags[s] = cells.nonFinite | (cells.hasOutputs ? HAS_OUTPUTS : 0);
  }
}

const NONE = new Float64Array(4).fill(-Infinity);

const tables = new Map<string, MetricCellTable>();

/** The table of the target's file version and graph (made empty on first use; least recently used ones dropped). */
export function cellTable(target: OverlayTarget): MetricCellTable {
  const key = JSON.stringify([target.absPath, target.stamp, target.step, target.rank]);
  let table = tables.get(key);
  tables.delete(key);
  table ??= new MetricCellTable();
  tables.set(key, table);
  let total = 0;
  for (const t of tables.values()) total += t.bytes;
  for (const [k, t] of tables) {
    if (tables.size <= 1 || (tables.size <= MAX_TABLES && total <= MAX_TABLE_BYTES)) break;
    tables.delete(k);
    total -= t.bytes;
  }
  return table;
}
