import type { PyValue } from '../formats/pyJson.js';
import type { RawItem } from '../model/item.js';
import { isPyNumber, pyFixed, pyFloatRepr, pyIsNaN, pyIsZero, pySub, pyTrueDiv } from './pyNumber.js';

/**
 * Statistics ("summary") compare cells of one parameter pair (msprobe-format.md §3.4; msprobe
 * `get_rela_diff_summary_mode`). Values keep Python types: an int - int diff stays a bigint and is exported as
 * `"0"`, not `"0.0"`.
 */

const DIFF_COLUMNS = ['Max diff', 'Min diff', 'Mean diff', 'L2norm diff'] as const;
const RELATIVE_COLUMNS = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'] as const;

/** `[Max diff, Min diff, Mean diff, L2norm diff, MaxRelativeErr, ..., NormRelativeErr]` cells. */
export function summaryCells(npu: PyValue[], bench: PyValue[]): Array<[string, PyValue]> {
  const values: PyValue[] = new Array(8);
  const index: Array<number | bigint> = new Array(4);
  for (let i = 0; i < 4; i++) statCells(npu[i], bench[i], i, values, index);
  return [
    ...DIFF_COLUMNS.map((c, i): [string, PyValue] => [c, values[i]]),
    ...RELATIVE_COLUMNS.map((c, i): [string, PyValue] => [c, values[4 + i]]),
  ];
}

const STAT_KEYS = ['Max', 'Min', 'Mean', 'Norm'] as const;

/**
 * `summaryCells` of two items straight into `values[0..7]`, and into `index[0..3]` what msprobe's precision index
 * later reads back from the four relative-error cells (`str2float`: the percentage / 100, NaN for "Nan", 0 for "N/A").
 * The relative cells come as export formatting (§4.1) prints them, which leaves them as they are: cut here from the
 * number, a cell is not printed in full and parsed back at export (a few hundred thousand cells a run).
 */
export function summaryValues(npu: RawItem, bench: RawItem, values: PyValue[], index: Array<number | bigint>): void {
  for (let i = 0; i < 4; i++) {
    // merge_tensor turns None statistics into the string "None".
    statCells(npu.get(STAT_KEYS[i]) ?? 'None', bench.get(STAT_KEYS[i]) ?? 'None', i, values, index, true);
  }
}

/**
 * `f"{x}%"` as export formatting prints it: a plain decimal of more than 6 places cut to 6. `str()` prints a plain
 * decimal in [1e-4, 1e16); below 1e9 it has at most 6 places exactly when the 6-place rounding reads back as x.
 */
function exportedPercent(x: number): string {
  if (x >= 1e-4 && x < 1e9) {
    const fixed = pyFixed(x, 6);
    // A value of at most 6 places is within a few units in the last place of x·10^6's integer; most relative
    // errors are far from one, and need not have the 6-place text parsed back to tell.
    const y = x * 1e6;
    if (Math.abs(y - Math.round(y)) > y * 1e-15) return fixed + '%';
    return Number(fixed) !== x ? fixed + '%' : `${pyFloatRepr(x)}%`;
  }
  const repr = pyFloatRepr(x);
  const dot = repr.indexOf('.');
  return x >= 1e9 && x < 1e16 && repr.length - dot - 1 > 6 ? pyFixed(x, 6) + '%' : repr + '%';
}

function statCells(n: PyValue, b: PyValue, i: number, values: PyValue[], index: Array<number | bigint>, exported = false): void {
  // Bools were stringified by the item parser, so bool statistics fall into "N/A" like msprobe's isinstance test.
  if (!isPyNumber(n) || !isPyNumber(b)) {
    values[i] = 'N/A';
    values[4 + i] = 'N/A';
    index[i] = 0n;
    return;
  }
  const diff = pySub(n, b);
  if (pyIsNaN(diff)) {
    values[i] = 'Nan';
    values[4 + i] = 'Nan';
    index[i] = NaN;
    return;
  }
  // msprobe suffixes a TAB to any cell whose str() is exactly inf/-inf/nan; only float diffs can be.
  values[i] = typeof diff === 'number' && !Number.isFinite(diff) ? `${pyFloatRepr(diff)}\t` : diff;
  if (pyIsZero(b)) {
    values[4 + i] = 'N/A';
    index[i] = 0n;
    return;
  }
  const relative = Math.abs(pyTrueDiv(diff, b) * 100);
  values[4 + i] = exported ? exportedPercent(relative) : `${pyFloatRepr(relative)}%`;
  // float(repr(x)) == x, so str2float of the cell is the number itself / 100 (inf and nan included).
  index[i] = relative / 100;
}

/** msprobe `str2float`: strip `%`, parse like Python `float()`, divide by 100; anything unparsable → 0. */
export function str2float(cell: PyValue | undefined, parse: (s: string) => number | null): number | bigint {
  if (typeof cell !== 'string') return 0n;
  const stripped = cell.replace(/^%+|%+$/g, '');
  const value = parse(stripped);
  return value === null ? 0n : value / 100;
}
