import type { ColorBucket, HeatmapResponse, HeatmapRow } from '../../core/api/types.js';

/**
 * The heatmap as far as the panel has read it (HeatmapPanel): rows merged from windowed answers of
 * `/api/graph/heatmap`, columns matched by name across windows in the order they first arrive (a window's own
 * columns are in the server's first-seen order, and the panel reads from the top). Pure: no DOM, no fetch.
 */

/** One rank row: values by the grid's columns (NaN = none rated); columns past `values.length` are not on the rank. */
export interface GridRow {
  rank: number;
  tag: string;
  format: 'vis' | 'db';
  state: HeatmapRow['state'];
  error?: string;
  values: Float64Array;
  /** 1 = the rank has no such module. */
  absent: Uint8Array;
}

export type CellKind = 'value' | 'noValue' | 'absent' | 'pending' | 'error';

export interface CellInfo {
  row: number;
  column: number;
  kind: CellKind;
  value: number | null;
}

/** Rows [offset, offset + limit) to ask for. */
export interface RowWindow {
  offset: number;
  limit: number;
}

export class HeatmapGrid {
  step = 0;
  worst: 'high' | 'low' = 'high';
  colors: ColorBucket[] = [];
  /** Rows of the whole heatmap; null until the first answer. */
  total: number | null = null;
  moreModules = 0;
  readonly modules: string[] = [];
  private readonly columnOf = new Map<string, number>();
  private rows: Array<GridRow | undefined> = [];

  constructor(
    /** What the grid is of (run, file, step): a new key is a new grid. */
    readonly key: string,
  ) {}

  merge(h: HeatmapResponse): void {
    this.step = h.step;
    this.worst = h.worst;
    this.colors = h.colors;
    this.moreModules = Math.max(this.moreModules, h.moreModules);
    if (this.total !== h.totalRanks) {
      // The run gained or lost ranks: rows past the new end go.
      this.total = h.totalRanks;
      this.rows.length = Math.min(this.rows.length, h.totalRanks);
    }
    const to = h.modules.map((id) => {
      let c = this.columnOf.get(id);
      if (c === undefined) {
        c = this.modules.length;
        this.modules.push(id);
        this.columnOf.set(id, c);
      }
      return c;
    });
    // Columns the window does not have are not on its ranks: a rank's modules are all among its window's.
    const width = this.modules.length;
    h.rows.forEach((r, k) => {
      const values = new Float64Array(width).fill(NaN);
      const absent = new Uint8Array(width).fill(1);
      if (r.state === 'ok') {
        to.forEach((c, j) => {
          absent[c] = 0;
          values[c] = r.values?.[j] ?? NaN;
        });
        for (const j of r.absent ?? []) absent[to[j]] = 1;
      }
      const row: GridRow = { rank: r.rank, tag: r.tag, format: r.format, state: r.state, values, absent };
      if (r.error !== undefined) row.error = r.error;
      this.rows[h.rankOffset + k] = row;
    });
  }

  row(r: number): GridRow | undefined {
    return this.rows[r];
  }

  /** Rows answered `pending` (not read by the server yet). */
  pendingRows(): number {
    let n = 0;
    for (const r of this.rows) if (r?.state === 'pending') n++;
    return n;
  }

  /** Whether every row of [from, to) is read (a value grid or an error). */
  complete(from: number, to: number): boolean {
    for (let r = from; r < to; r++) if (!isRead(this.rows[r])) return false;
    return true;
  }

  /**
   * The next window to ask for: the first row not read (never asked, or answered pending) of the first range that
   * has one, up to that range's last such row, at most `max` rows; null when every range is read.
   */
  nextWindow(ranges: ReadonlyArray<readonly [number, number]>, max: number): RowWindow | null {
    const total = this.total ?? 0;
    for (const [a, b] of ranges) {
      const from = Math.max(0, a);
      const to = Math.min(total, b);
      let first = -1;
      let last = -1;
      for (let r = from; r < to; r++) {
        if (isRead(this.rows[r])) continue;
        if (first < 0) first = r;
        last = r;
      }
      if (first >= 0) return { offset: first, limit: Math.min(max, last - first + 1) };
    }
    return null;
  }

  /** What one cell shows; a row not read yet shows as pending. */
  cell(row: number, column: number): CellInfo {
    const r = this.rows[row];
    let kind: CellKind;
    let value: number | null = null;
    if (!r || r.state === 'pending') kind = 'pending';
    else if (r.state === 'error') kind = 'error';
    else if (column >= r.absent.length || r.absent[column]) kind = 'absent';
    else {
      const v = r.values[column];
      kind = Number.isNaN(v) ? 'noValue' : 'value';
      value = kind === 'value' ? v : null;
    }
    return { row, column, kind, value };
  }
}

function isRead(r: GridRow | undefined): boolean {
  return r !== undefined && r.state !== 'pending';
}
