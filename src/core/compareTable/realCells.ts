import type { TensorMetrics } from '../compare/tensorMetrics.js';
import { pyRepr } from '../formats/pyFormat.js';
import type { Cell } from './statCells.js';

/**
 * Real-data (tensor) metric cells and messages as the compare command writes them (msprobe-compare.md §4.5). The
 * numbers come from the graph side's streaming accumulator (same numpy semantics); what differs for the table is
 * the message: every check and every metric appends its own text, without separators, so a dtype mismatch and a
 * cosine problem both show, and a 0-d tensor's message doubles four times (quirk 3).
 */

export interface RealCells {
  /** Cosine, EucDist, MaxAbsErr, MaxRelativeErr, One Thousandth, Five Thousandths. */
  metrics: Cell[];
  message: string;
}

export const DTYPE_MISMATCH = 'Dtype of NPU and bench tensor do not match.';
const ZERO_D =
  "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and " +
  "'Five Thousandths Err Ratio'. ";
const ABS_NAN = 'Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.';
const REL_NAN = 'Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.';

function same(value: Cell, message: string): RealCells {
  return { metrics: [value, value, value, value, value, value], message };
}

export const npuHasNoFile = (): RealCells => same('unsupported', 'NPU does not have data file.');
export const benchHasNoFile = (): RealCells => same('unsupported', 'Bench does not have data file.');
export const benchUnmatched = (): RealCells => same('unsupported', 'Bench api/module unmatched.');

/** The read-failure message names the pair as Python prints a list. */
export function readFailed(npuDataName: string, benchDataName: string): RealCells {
  return same('unsupported', `Dump file: ${pyRepr([npuDataName, benchDataName])} not found or read failed.`);
}

/**
 * Cells from the accumulator's result. `dtypesDiffer`: the two arrays' dtypes differ (numpy dtype, not the json
 * dtype); `zeroD`: the NPU array is 0-d.
 */
export function realCellsFromMetrics(m: TensorMetrics, dtypesDiffer: boolean, zeroD: boolean): RealCells {
  const metrics: Cell[] = [m.cosine, m.eucDist, m.maxAbsErr, m.maxRelativeErr, m.oneThousandth, m.fiveThousandths];
  // Outcomes decided before any metric (empty, shape, inf/nan positions) carry their own single message.
  if (metrics.every((x) => x === metrics[0]) && typeof metrics[0] === 'string' && metrics[0] !== 'Nan') {
    return { metrics, message: m.message };
  }
  const absMsg = m.maxAbsErr === 'Nan' ? ABS_NAN : '';
  const relMsg = m.maxRelativeErr === 'Nan' ? REL_NAN : '';
  if (zeroD) {
    // Cosine, EucDist and both ratios return the accumulated message instead of their own.
    let msg = ZERO_D;
    msg += msg;
    msg += msg;
    msg += absMsg + relMsg;
    msg += msg;
    msg += msg;
    return { metrics, message: msg };
  }
  const cosineMsg = m.message === DTYPE_MISMATCH ? '' : m.message;
  return { metrics, message: (dtypesDiffer ? DTYPE_MISMATCH : '') + cosineMsg + absMsg + relMsg };
}

function pyFloatOf(v: Cell): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'string') return null;
  const t = v.trim();
  if (/^[+-]?(?:inf|infinity|nan)$/i.test(t)) return t.toLowerCase().endsWith('nan') ? NaN : t.startsWith('-') ? -Infinity : Infinity;
  return /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/.test(t) ? Number(t) : null;
}

/** `Accuracy Reached or Not` from the Cosine and MaxAbsErr cells. */
export function accuracyVerdict(cosine: Cell, maxAbsErr: Cell): string {
  if (cosine === 'shape unmatched') return 'Unmatched';
  if (cosine === 'None' || maxAbsErr === 'None') return 'None';
  if (cosine === 'N/A' || maxAbsErr === 'N/A') return 'No';
  const cos = pyFloatOf(cosine);
  const abs = pyFloatOf(maxAbsErr);
  if (cos === null || abs === null) return 'None';
  return (cos < 0.99 && abs > 0.001) || cos < 0.9 || abs > 1 ? 'No' : 'Yes';
}
