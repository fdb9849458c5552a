import type { PyValue } from '../formats/pyJson.js';
import { pyFloatRepr, pyStr } from '../formats/pyFormat.js';
import { pyParseFloat } from '../compare/pyNumber.js';
import { pandasToNumeric } from './pandasNumber.js';
import type { SideTable } from './sideTable.js';

/**
 * Statistics-mode metric cells (msprobe-compare.md §4.3). Differs from the graph command's summary columns
 * (core/compare/summaryMetrics.ts): the table goes through pandas `to_numeric(str(v))`, so numeric strings such as
 * "0" take part, a NaN difference is the string "Nan" in both cells, and Warning uses the signed maximum.
 */

/** A table cell before writing: null is an empty cell (pandas NaN/None). */
export type Cell = string | number | bigint | boolean | null;

/** `str(v)` as pandas sees it after `astype(str)`. */
function pyText(v: PyValue): string {
  if (typeof v === 'number') return pyFloatRepr(v);
  if (typeof v === 'string') return v;
  return pyStr(v);
}

/**
 * msprobe's `type_check` + `get_number` for one value: the double pandas parses from `str(v)`, NaN for a literal
 * "nan", or undefined when the value is not numeric (the cell then says N/A).
 */
export function numericOf(v: PyValue): number | undefined {
  const s = pyText(v);
  const x = pandasToNumeric(s);
  if (x === x) return x;
  return s.toLowerCase() === 'nan' ? NaN : undefined;
}

/** A statistic as shown in the NPU/Bench max… columns: NaN becomes the string "Nan". */
export function statCell(v: PyValue): Cell {
  if (typeof v === 'number' && v !== v) return 'Nan';
  if (v instanceof Map || Array.isArray(v)) return String(v);
  return v;
}

export interface SummaryCells {
  /** Max diff … L2norm diff, MaxRelativeErr … NormRelativeErr. */
  metrics: Cell[];
  warning: boolean;
}

/** Python `float(v)` of a raw statistic (the relative error divides by the unparsed bench value). */
export function pyFloat(v: PyValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') return pyParseFloat(v) ?? NaN;
  return NaN;
}

/**
 * The eight metric cells of a matched row and its Warning flag, as msprobe's `calc_summary_diff` computes them:
 * the difference of the pandas-parsed values, the relative error against the raw bench value (`astype(float)`),
 * and the Warning magnitude from the difference parsed once more from its `str()`.
 */
export function summaryMetricCells(npu: SideTable, n: number, bench: SideTable, b: number): SummaryCells {
  const metrics: Cell[] = new Array(8);
  let warning = false;
  for (let k = 0; k < 4; k++) {
    const x = npu.pandasStat(n, k);
    const y = bench.pandasStat(b, k);
    if (x === undefined || y === undefined) {
      metrics[k] = metrics[k + 4] = 'N/A';
      continue;
    }
    const diff = x - y;
    if (diff !== diff) {
      metrics[k] = metrics[k + 4] = 'Nan';
      continue;
    }
    metrics[k] = diff;
    metrics[k + 4] = y === 0 ? 'N/A' : `${pyFloatRepr(Math.abs((diff / bench.floatStat(b, k)) * 100))}%`;
    // numpy.maximum propagates NaN; the difference is not NaN here, so neither side is.
    const scale = Math.abs(Math.max(x, y)) + 1e-10;
    let ratio = Math.abs(diff) / scale;
    // Re-reading str(diff) moves it by ~1e-13 relative at most: only a ratio next to the threshold can change.
    if (Math.abs(ratio - 0.5) < 1e-9) ratio = Math.abs(pandasToNumeric(pyFloatRepr(diff))) / scale;
    if (ratio > 0.5) warning = true;
  }
  return { metrics, warning };
}

export const NEED_DOUBLE_CHECK = 'Need double check api accuracy. ';
export const NO_BENCH = 'No bench data matched.';
export const REQUIRES_GRAD_INCONSISTENT = 'Requires_grad inconsistent. ';
