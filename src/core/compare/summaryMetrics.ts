import type { PyValue } from '../formats/pyJson.js';
import { isPyNumber, pyFloatRepr, pyIsNaN, pyIsZero, pySub, pyTrueDiv } from './pyNumber.js';

/**
 * Statistics ("summary") compare cells of one parameter pair (msprobe-format.md §3.4; msprobe
 * `get_rela_diff_summary_mode`). Values keep Python types: an int - int diff stays a bigint and is exported as
 * `"0"`, not `"0.0"`.
 */

const DIFF_COLUMNS = ['Max diff', 'Min diff', 'Mean diff', 'L2norm diff'] as const;
const RELATIVE_COLUMNS = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'] as const;

/** `[Max diff, Min diff, Mean diff, L2norm diff, MaxRelativeErr, ..., NormRelativeErr]` cells. */
export function summaryCells(npu: PyValue[], bench: PyValue[]): Array<[string, PyValue]> {
  const diffs: PyValue[] = [];
  const relatives: PyValue[] = [];
  for (let i = 0; i < 4; i++) {
    const n = npu[i];
    const b = bench[i];
    // Bools were stringified by the item parser, so bool statistics fall into "N/A" like msprobe's isinstance test.
    if (isPyNumber(n) && isPyNumber(b)) {
      const diff = pySub(n, b);
      if (pyIsNaN(diff)) {
        diffs.push('Nan');
        relatives.push('Nan');
        continue;
      }
      diffs.push(diff);
      relatives.push(pyIsZero(b) ? 'N/A' : `${pyFloatRepr(Math.abs(pyTrueDiv(diff, b) * 100))}%`);
    } else {
      diffs.push('N/A');
      relatives.push('N/A');
    }
  }
  // msprobe suffixes a TAB to any cell whose str() is exactly inf/-inf/nan; only float diffs can be.
  const tabbed = diffs.map((d) => (typeof d === 'number' && !Number.isFinite(d) ? `${pyFloatRepr(d)}\t` : d));
  return [
    ...DIFF_COLUMNS.map((c, i): [string, PyValue] => [c, tabbed[i]]),
    ...RELATIVE_COLUMNS.map((c, i): [string, PyValue] => [c, relatives[i]]),
  ];
}

/** msprobe `str2float`: strip `%`, parse like Python `float()`, divide by 100; anything unparsable → 0. */
export function str2float(cell: PyValue | undefined, parse: (s: string) => number | null): number | bigint {
  if (typeof cell !== 'string') return 0n;
  const stripped = cell.replace(/^%+|%+$/g, '');
  const value = parse(stripped);
  return value === null ? 0n : value / 100;
}
