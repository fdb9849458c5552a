/**
 * `probeboard tensor show` / `tensor diff` (seed 003, the precision tool's `pt` and `cp`): statistics of one tensor
 * and an element-wise comparison of two, accumulated chunk by chunk so files larger than memory stream through.
 *
 * diff semantics (numpy `isclose` with `equal_nan=False`): an element is an error when `|a − b| > atol + rtol·|b|`,
 * when exactly one side is NaN or both are (NaN never compares close), or when infinities differ; `allclose` means
 * no errors. Errors are ranked by `|a − b|` (an infinite or NaN difference ranks first).
 */

export interface TensorSummary {
  count: number;
  /** NaN when any element is NaN (numpy max/min/mean propagate it); null for an empty tensor. */
  max: number | null;
  min: number | null;
  mean: number | null;
  nanCount: number;
  infCount: number;
  /** The first elements, in C order. */
  head: number[];
}

export class SummaryAccumulator {
  private count = 0;
  private max = -Infinity;
  private min = Infinity;
  private sum = 0;
  private nan = 0;
  private inf = 0;
  private readonly head: number[] = [];

  constructor(private readonly headSize = 10) {}

  push(values: Float64Array, n: number): void {
    let max = this.max;
    let min = this.min;
    let sum = this.sum;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== v) {
        this.nan++;
        continue;
      }
      if (v === Infinity || v === -Infinity) this.inf++;
      if (v > max) max = v;
      if (v < min) min = v;
      sum += v;
    }
    this.max = max;
    this.min = min;
    this.sum = sum;
    for (let i = 0; i < n && this.head.length < this.headSize; i++) this.head.push(values[i]);
    this.count += n;
  }

  finish(): TensorSummary {
    const empty = this.count === 0;
    const nan = this.nan > 0;
    return {
      count: this.count,
      max: empty ? null : nan ? NaN : this.max,
      min: empty ? null : nan ? NaN : this.min,
      mean: empty ? null : nan ? NaN : this.sum / this.count,
      nanCount: this.nan,
      infCount: this.inf,
      head: this.head,
    };
  }
}

export interface TopError {
  /** Flat C-order index. */
  index: number;
  a: number;
  b: number;
  absErr: number;
  relErr: number;
}

export interface TensorDiff {
  count: number;
  errorCount: number;
  errorRatio: number;
  allClose: boolean;
  /** NaN when either side is all zeros or holds NaN. */
  cosine: number;
  maxAbsErr: number;
  maxRelErr: number;
  top: TopError[];
}

/** Orders an absolute error so NaN and infinities rank above every finite error. */
function rankKey(absErr: number): number {
  return absErr !== absErr ? Infinity : absErr;
}

export class DiffAccumulator {
  private count = 0;
  private errors = 0;
  private dot = 0;
  private aa = 0;
  private bb = 0;
  private maxAbs = 0;
  private maxRel = 0;
  /** Min-heap on rank key of the largest `topN` errors. */
  private readonly heap: TopError[] = [];

  constructor(
    private readonly atol: number,
    private readonly rtol: number,
    private readonly topN: number,
  ) {}

  /** `indexOf(i)` maps the chunk position to the flat C index (identity unless the data is in file order). */
  push(a: Float64Array, b: Float64Array, n: number, indexOf: (i: number) => number): void {
    const { atol, rtol } = this;
    for (let i = 0; i < n; i++) {
      const x = a[i];
      const y = b[i];
      const diff = Math.abs(x - y);
      // numpy isclose: finite pairs by tolerance, anything else only when exactly equal (same-sign infinities).
      const error =
        Number.isFinite(x) && Number.isFinite(y) ? !(diff <= atol + rtol * Math.abs(y)) : !(x === y);
      this.dot += x * y;
      this.aa += x * x;
      this.bb += y * y;
      if (diff > this.maxAbs || diff !== diff) this.maxAbs = diff !== diff ? NaN : Math.max(this.maxAbs, diff);
      const rel = y === 0 ? (x === 0 ? 0 : Infinity) : diff / Math.abs(y);
      if (rel > this.maxRel || rel !== rel) this.maxRel = rel !== rel ? NaN : Math.max(this.maxRel, rel);
      if (!error) continue;
      this.errors++;
      if (this.topN > 0) this.offer({ index: indexOf(this.count + i), a: x, b: y, absErr: diff, relErr: rel });
    }
    this.count += n;
  }

  private offer(e: TopError): void {
    const h = this.heap;
    const key = rankKey(e.absErr);
    if (h.length < this.topN) {
      h.push(e);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (rankKey(h[p].absErr) <= rankKey(h[i].absErr)) break;
        [h[p], h[i]] = [h[i], h[p]];
        i = p;
      }
      return;
    }
    if (key <= rankKey(h[0].absErr)) return;
    h[0] = e;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && rankKey(h[l].absErr) < rankKey(h[m].absErr)) m = l;
      if (r < h.length && rankKey(h[r].absErr) < rankKey(h[m].absErr)) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i], h[m]];
      i = m;
    }
  }

  finish(): TensorDiff {
    const denom = Math.sqrt(this.aa) * Math.sqrt(this.bb);
    return {
      count: this.count,
      errorCount: this.errors,
      errorRatio: this.count ? this.errors / this.count : 0,
      allClose: this.errors === 0,
      cosine: denom > 0 ? this.dot / denom : NaN,
      maxAbsErr: this.maxAbs,
      maxRelErr: this.maxRel,
      top: [...this.heap].sort((p, q) => rankKey(q.absErr) - rankKey(p.absErr) || p.index - q.index),
    };
  }
}

/** Flat C-order index → coordinates. */
export function unravel(index: number, shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    out[d] = index % shape[d];
    index = Math.floor(index / shape[d]);
  }
  return out;
}

/** A plain text table: header row, rule, rows; columns padded to their widest cell. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) => cells.map((x, c) => (x ?? '').padEnd(widths[c])).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
