import { statSync } from 'node:fs';
import { metricCells, precisionFromCells, type MetricCells } from '../../src/core/match/index.js';
import { derivedWriteProblem, readDerived, writeDerived, type DerivedCacheOptions } from '../store/derivedCache.js';
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

/** The derived cache's kind (derivedCache.ts): ids joined by NUL, then the maxima and flags by slot. */
const CELLS_KIND = 'overlay-metric-cells-v1';

const IRREGULAR = 1 << 4;
const HAS_OUTPUTS = 1 << 5;

/**
 * The NPU nodes' MetricCells (src/core/match/precision.ts) of one graph of one file version, shared by every overlay
 * on it: the first metric choice reads the matched nodes' outputs once, any later choice (another subset, another
 * user) recolours from here without reading records.
 */
export class MetricCellTable {
  private readonly slots = new Map<string, number>();
  private max: Float64Array = new Float64Array(4 * 1024);
  private flags: Uint8Array = new Uint8Array(1024);
  /** Slots already in the derived cache (a fill that adds some writes the table again). */
  private saved = 0;

  constructor(private readonly persist: CellsPersist | null = null) {
    const hit = persist ? load(persist) : null;
    if (!hit) return;
    hit.ids.forEach((id, s) => this.slots.set(id, s));
    this.max = hit.max;
    this.flags = hit.flags;
    this.saved = hit.ids.length;
  }

  get bytes(): number {
    return this.slots.size * NODE_BYTES;
  }

  /**
   * Reads the outputs of the `ids` not known yet. With `stopAt`, reading past that time stops with WorkInProgress
   * (the client asks again and the table goes on from where it stopped). `complete`: the ids are all a request needs
   * (a view's recolour), so the table is written to the derived cache when they are read; otherwise it is written
   * when it has doubled since the last write (a worst list's pass reads in steps).
   */
  fill(store: GraphStore, target: OverlayTarget, ids: readonly string[], stopAt = Infinity, complete = false): void {
    const todo = ids.filter((id) => !this.slots.has(id));
    for (let i = 0; i < todo.length; i += BATCH) {
      if (performance.now() > stopAt) throw new WorkInProgress(target.relPath, ids.length - todo.length + i, ids.length);
      checkBudget();
      const batch = todo.slice(i, i + BATCH);
      const items = store.items({ side: 'npu', ids: batch, step: target.step, rank: target.rank });
      for (let k = 0; k < batch.length; k++) this.put(batch[k], items[k] ? metricCells(items[k]!.outputData) : { max: NONE, nonFinite: 0, hasOutputs: false });
    }
    // Kept for the next server process, written again only when it grew by a good share (not per children page).
    const size = this.slots.size;
    const grown = size - this.saved;
    if (this.persist && grown > 0 && (size >= 2 * this.saved || (complete && (grown >= BATCH || 8 * grown >= size)))) this.save(this.persist);
  }

  /** The node's slot for precisionAt, or -1 when its cells are not read yet. */
  slotOf(id: string): number {
    return this.slots.get(id) ?? -1;
  }

  /** precision() of the node in `slot` (from slotOf). */
  precisionAt(slot: number, mask: number): number | null {
    const f = this.flags[slot];
    return f & IRREGULAR ? NaN : precisionFromCells(this.max, 4 * slot, f & 15, (f & HAS_OUTPUTS) !== 0, mask);
  }

  /**
   * precisionFromCells of the node for the metrics in `mask` (bit k = ORDER[k], as MetricCells' bits), without building
   * its cells: undefined = not read yet, NaN = a cell Python orders (read the record).
   */
  precision(id: string, mask: number): number | null | undefined {
    const s = this.slots.get(id);
    return s === undefined ? undefined : this.precisionAt(s, mask);
  }

  private save(p: CellsPersist): void {
    const n = this.slots.size;
    const ids = Buffer.from([...this.slots.keys()].join('\0'), 'utf8');
    try {
      writeDerived(p.cacheDir, CELLS_KIND, p.absPath, p.key, p.fileStamp, { count: n }, [new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength), this.max.subarray(0, 4 * n), this.flags.subarray(0, n)], p.maxBytes);
      this.saved = n;
    } catch (e) {
      p.log(derivedWriteProblem(p.cacheDir, e));
      // Not tried again for this table: the next process reads the outputs again.
      this.saved = Infinity;
    }
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

interface CellsPersist extends DerivedCacheOptions {
  absPath: string;
  key: string;
  fileStamp: { size: number; mtimeMs: number; ino: number };
}

/** A table a previous process kept for this file version and graph, or null (none, stale, damaged). */
function load(p: CellsPersist): { ids: string[]; max: Float64Array; flags: Uint8Array } | null {
  const hit = readDerived(p.cacheDir, CELLS_KIND, p.absPath, p.key, p.fileStamp);
  if (!hit || hit.arrays.length !== 3) return null;
  const [text, max, flags] = hit.arrays;
  const n = hit.header.count;
  if (!(text instanceof Uint8Array) || !(max instanceof Float64Array) || !(flags instanceof Uint8Array) || typeof n !== 'number') return null;
  const ids = n === 0 ? [] : Buffer.from(text.buffer, text.byteOffset, text.byteLength).toString('utf8').split('\0');
  if (ids.length !== n || max.length !== 4 * n || flags.length !== n) return null;
  // Room to grow as put() expects (a power of two ≥ 1024 slots).
  let room = 1024;
  while (room < n) room *= 2;
  const maxRoom = new Float64Array(4 * room);
  maxRoom.set(max);
  const flagsRoom = new Uint8Array(room);
  flagsRoom.set(flags);
  return { ids, max: maxRoom, flags: flagsRoom };
}

/**
 * The tables of one server (one per file version and graph, least recently used dropped), each loaded from the
 * derived cache (`derived`, derivedCache.ts) when an earlier process kept it, else empty.
 */
export class CellTables {
  private readonly tables = new Map<string, MetricCellTable>();

  constructor(private readonly derived: DerivedCacheOptions | null = null) {}

  of(target: OverlayTarget): MetricCellTable {
    const tables = this.tables;
    const key = JSON.stringify([target.absPath, target.stamp, target.step, target.rank]);
    let table = tables.get(key);
    tables.delete(key);
    table ??= new MetricCellTable(this.derived ? persistOf(target, this.derived) : null);
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
}

/** Where the target's table is kept: the file's stamp now (readDerived / writeDerived check it), or null when gone. */
function persistOf(target: OverlayTarget, derived: DerivedCacheOptions): CellsPersist | null {
  try {
    const st = statSync(target.absPath);
    // The overlay's stamp (a `.vis.db`'s includes its log) in the key: another version is another entry.
    return { ...derived, absPath: target.absPath, key: `${target.stamp}/${target.step}/${target.rank}`, fileStamp: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino } };
  } catch {
    return null;
  }
}
