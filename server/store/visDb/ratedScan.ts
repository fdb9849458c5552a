import type Database from 'better-sqlite3';
import { derivedWriteProblem, readDerived, writeDerived } from '../derivedCache.js';
import { GrowArray } from '../visJsonIndex/growArray.js';
import type { FileStamp } from '../visJsonIndex/visIndex.js';
import { continueWhenIdle } from '../idleWork.js';
import { budgetLeftMs, WorkInProgress } from '../workBudget.js';
import { WorstFirst } from '../worstQuery.js';

/**
 * The worst table's list of one graph and side of a `.vis.db`: rows with a finite precision_index in execution order
 * (node_order, the post-order), with their values. msprobe indexes no column holding precision_index
 * (msprobe-format.md §4.2), so the list reads every row of the graph: 3.8 GB for 10^6 nodes a side, more than one
 * request's budget. It is read in slices along index3 (step, rank, data_source, node_order), each request continuing
 * where the last stopped and answering 202 with the progress meanwhile (WorkInProgress), the find worker reading on
 * while idle (idleWork.ts); once read it is kept, and persisted in our cache directory (derivedCache.ts), so the next
 * server process reads 16 bytes a row from there instead of scanning again (6.3 s for 10^6 nodes, bench/triage.mjs).
 */

/** Rows per SQL step; the clock is read between steps. */
const SLICE_ROWS = 4096;
/** A request reads for at most this long, so the find worker's queue keeps moving (issue 12). */
const MAX_SLICE_MS = 600;
/** Time left in the request's budget for the answer after the last slice. */
const BUDGET_RESERVE_MS = 300;

export interface RatedRows {
  rowids: Float64Array;
  values: Float64Array;
}

/** derivedCache kind of a finished list: rowids and values, both f64. */
export const RATED_KIND = 'db-rated-v1';

/** Where what a `.vis.db` store derives is kept between server processes (derivedCache.ts); null = not kept. */
export interface DbDerived {
  cacheDir: string;
  maxBytes?: number;
  absPath: string;
  /** The database file as it was opened: what is kept is valid for this size, mtime and inode only. */
  stamp: FileStamp;
  /** What cannot be written is logged, never the request's failure. */
  log: (line: string) => void;
}

export class RatedScan {
  private readonly rowids = new GrowArray(Float64Array, 1 << 16);
  private readonly values = new GrowArray(Float64Array, 1 << 16);
  private lastOrder: number | null = null;
  private lastRowid = 0;
  private read = 0;
  private total: number | null = null;
  private rows: RatedRows | null = null;
  private triedCache = false;
  private readonly worstFirst = new Map<'high' | 'low', WorstFirst>();
  private readonly idleStep = (maxMs: number) => this.advance(maxMs);

  constructor(
    private readonly file: string,
    private readonly count: Database.Statement,
    private readonly first: Database.Statement,
    private readonly next: Database.Statement,
    private readonly graph: [step: number, rank: number, source: string],
    private readonly persist: DbDerived | null = null,
  ) {}

  /** The whole list; throws WorkInProgress when this request's time is spent before its end. */
  list(): RatedRows {
    if (this.rows) return this.rows;
    if (!this.triedCache) {
      this.triedCache = true;
      this.rows = this.load();
      if (this.rows) return this.rows;
    }
    // Outside a request (tests, tools) the list is read at once.
    const left = budgetLeftMs();
    if (!this.advance(left === Infinity ? Infinity : Math.min(MAX_SLICE_MS, left - BUDGET_RESERVE_MS))) {
      // Between this request and the next, the find worker reads on (idleWork.ts).
      continueWhenIdle(this.idleStep);
      throw new WorkInProgress(this.file, this.read, Math.max(this.total ?? 0, this.read));
    }
    return this.rows!;
  }

  /** Reads slices for about `maxMs` (at least one); true once the list is complete. */
  private advance(maxMs: number): boolean {
    if (this.rows) return true;
    const started = performance.now();
    this.total ??= this.count.pluck().get(...this.graph) as number;
    for (;;) {
      const slice = (
        this.lastOrder === null
          ? this.first.raw().all(...this.graph, SLICE_ROWS)
          : this.next.raw().all(...this.graph, this.lastOrder, this.lastRowid, SLICE_ROWS)
      ) as Array<[number, number, unknown]>;
      for (const [rowid, order, value] of slice) {
        if (typeof value === 'number' && Number.isFinite(value)) {
          this.rowids.push(rowid);
          this.values.push(value);
        }
        this.lastOrder = order;
        this.lastRowid = rowid;
      }
      this.read += slice.length;
      if (slice.length < SLICE_ROWS) break;
      if (performance.now() - started > maxMs) return false;
    }
    this.rows = { rowids: this.rowids.done(), values: this.values.done() };
    this.save(this.rows);
    return true;
  }

  private get cacheKey(): string {
    return this.graph.join('/');
  }

  /** The list a previous process persisted for this file as it is now, or null (none, stale, damaged). */
  private load(): RatedRows | null {
    const p = this.persist;
    if (!p) return null;
    const hit = readDerived(p.cacheDir, RATED_KIND, p.absPath, this.cacheKey, p.stamp);
    if (!hit) return null;
    const [rowids, values] = hit.arrays;
    if (hit.arrays.length !== 2 || !(rowids instanceof Float64Array) || !(values instanceof Float64Array) || rowids.length !== values.length) return null;
    for (let k = 0; k < values.length; k++) if (!Number.isFinite(values[k]) || !Number.isSafeInteger(rowids[k])) return null;
    return { rowids, values };
  }

  private save(rows: RatedRows): void {
    const p = this.persist;
    if (!p) return;
    try {
      writeDerived(p.cacheDir, RATED_KIND, p.absPath, this.cacheKey, p.stamp, {}, [rows.rowids, rows.values], p.maxBytes);
    } catch (e) {
      p.log(derivedWriteProblem(p.cacheDir, e));
    }
  }

  /** Rowids of ranks [from, to) worst first, ties in execution order (worstQuery.WorstFirst). */
  worstRange(end: 'high' | 'low', from: number, to: number): Float64Array {
    const { rowids, values } = this.list();
    let order = this.worstFirst.get(end);
    if (!order) {
      order = new WorstFirst(values, end);
      this.worstFirst.set(end, order);
    }
    return Float64Array.from(order.range(from, to), (k) => rowids[k]);
  }
}
