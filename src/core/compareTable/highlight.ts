import type { ColumnIndex, TableMode } from './columns.js';
import type { RowState } from './opRows.js';
import type { Cell } from './statCells.js';

/**
 * `-hl` (msprobe-compare.md §6): rows are grouped into API batches, each row is checked for overflow, and every
 * output row is compared with every input/parameter row of its batch. Reproduced as msprobe does it: the first row
 * of a batch always counts as an input, pair rules fire once per (output, input) pair (so a message can repeat), and
 * the "skip rows already red" guard never triggers.
 */

export type Fill = 'red' | 'yellow' | null;

export interface TableRow {
  cells: Cell[];
  state: RowState;
  /** The NPU row's API/module key (`api_origin_name`). */
  apiKey: string;
  fill: Fill;
  /** The NPU and bench rows of the pair (bench -1 when unmatched). */
  npu: number;
  bench: number;
}

const OVERFLOW = new Set(['nan', 'inf', '-inf', 'nan\t', 'inf\t', '-inf\t']);

const MSG = {
  overflow: 'maximum or minimum is nan, -inf, or inf',
  maxDiff: 'maximum absolute error exceeds 1e+10',
  magnitude: 'maximum absolute error of both input/parameters and output exceed 1, with the output larger by an order of magnitude',
  thousandthRed: "The input/parameter's one thousandth err ratio exceeds 0.9, while the output's is below 0.6",
  thousandthYellow: "The output's one thousandth err ratio decreases by more than 0.1 compared to the input/parameter's",
  cosine: "The output's cosine decreases by more than 0.1 compared to the input/parameter's",
  relativeRed: 'maximum relative error exceeds 0.5',
  relativeYellow: "The output's maximum relative error exceeds 0.1, while the input/parameter's is below 0.01",
  requiresGrad: 'requires_grad is inconsistent',
};

/** Python `isinstance(v, (int, float))` for a cell (bool is an int in Python). */
function num(v: Cell): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
}

/** Python `str(v)` of a cell, as the overflow check sees it. */
function str(v: Cell): string {
  if (typeof v === 'number') {
    if (v !== v) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    return String(v);
  }
  return String(v);
}

/** `"12.5%"` → 0.125; other values unchanged (MaxRelativeErr in statistics mode). */
function relative(v: Cell): number | null {
  if (typeof v === 'string' && v.endsWith('%')) {
    const body = v.slice(0, -1).trim();
    if (/^[+-]?(?:inf|infinity)$/i.test(body)) return body.startsWith('-') ? -Infinity : Infinity;
    const x = Number(body);
    return body !== '' && Number.isFinite(x) ? x / 100 : null;
  }
  return num(v);
}

/** Groups consecutive rows into msprobe's API batches. */
export class ApiBatcher {
  private batch: TableRow[] = [];
  private key = '';

  /** Adds a row; returns the finished previous batch when this row starts a new one. */
  push(row: TableRow): TableRow[] | null {
    if (this.batch.length === 0) {
      this.batch = [row];
      this.key = row.apiKey;
      return null;
    }
    const joins =
      row.apiKey === this.key ||
      (!row.apiKey.includes('.forward.') && !row.apiKey.includes('.backward.') && this.key.includes(row.apiKey));
    if (joins) {
      this.batch.push(row);
      return null;
    }
    const done = this.batch;
    this.batch = [row];
    this.key = row.apiKey;
    return done;
  }

  flush(): TableRow[] | null {
    const done = this.batch;
    this.batch = [];
    return done.length ? done : null;
  }
}

/** Sets fills and appends the highlight reasons to Err_message for one batch. */
export function highlightBatch(rows: TableRow[], mode: TableMode, col: ColumnIndex): void {
  if (mode === 'md5' || rows.length === 0) return;
  const red: string[][] = rows.map(() => []);
  const yellow: string[][] = rows.map(() => []);
  // Region ends, counted as msprobe's ApiBatch does (the first row is always an input).
  let paramsEnd = 1;
  let outputEnd = 1;
  for (let i = 1; i < rows.length; i++) {
    const s = rows[i].state;
    if (s === 'input') {
      paramsEnd++;
      outputEnd++;
    } else if (s === 'parameters') {
      paramsEnd++;
      outputEnd++;
    } else if (s === 'output') outputEnd++;
  }

  rows.forEach((row, i) => {
    const c = row.cells;
    if (OVERFLOW.has(str(c[col.npuMax])) || OVERFLOW.has(str(c[col.npuMin]))) red[i].push(MSG.overflow);
    else {
      const d = num(c[col.maxDiff]);
      if (d !== null && Math.abs(d) > 1e10) red[i].push(MSG.maxDiff);
    }
  });

  const numeric = (c: Cell[]) => num(c[col.npuMax]) !== null && num(c[col.benchMax]) !== null && num(c[col.maxDiff]) !== null;
  for (let o = paramsEnd; o < outputEnd && o < rows.length; o++) {
    const out = rows[o].cells;
    if (!numeric(out)) continue;
    for (let p = 0; p < paramsEnd && p < rows.length; p++) {
      const inp = rows[p].cells;
      if (!numeric(inp)) continue;
      pairRules(inp, out, mode, col, red[o], yellow[o]);
    }
  }

  rows.forEach((row, i) => {
    if (row.cells[col.requiresGradConsistent] === false) yellow[i].push(MSG.requiresGrad);
  });

  rows.forEach((row, i) => {
    const messages = red[i].length ? red[i] : yellow[i];
    if (red[i].length) row.fill = 'red';
    else if (yellow[i].length) row.fill = 'yellow';
    if (!messages.length) return;
    const existing = row.cells[col.errMessage];
    const text = messages.join('\n');
    row.cells[col.errMessage] = existing ? `${String(existing)}\n${text}` : text;
  });
}

function pairRules(inp: Cell[], out: Cell[], mode: TableMode, col: ColumnIndex, red: string[], yellow: string[]): void {
  const inDiff = Math.abs(num(inp[col.maxDiff])!);
  const outDiff = Math.abs(num(out[col.maxDiff])!);
  if (!(inDiff > outDiff || inDiff <= 1 || outDiff <= 1) && Math.log10(outDiff) - Math.log10(inDiff) >= 1) {
    yellow.push(MSG.magnitude);
  }
  if (mode === 'all') {
    const a = num(inp[col.oneThousandth]);
    const b = num(out[col.oneThousandth]);
    if (a !== null && b !== null) {
      if (a > 0.9 && b < 0.6) red.push(MSG.thousandthRed);
      else if (a - b > 0.1) yellow.push(MSG.thousandthYellow);
    }
    const ci = num(inp[col.cosine]);
    const co = num(out[col.cosine]);
    if (ci !== null && co !== null && ci - co > 0.1) yellow.push(MSG.cosine);
  } else {
    const a = relative(inp[col.maxRelativeErr]);
    const b = relative(out[col.maxRelativeErr]);
    if (b !== null && b > 0.5) red.push(MSG.relativeRed);
    else if (a !== null && b !== null && b > 0.1 && a < 0.01) yellow.push(MSG.relativeYellow);
  }
}
