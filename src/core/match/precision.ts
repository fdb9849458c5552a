import type { PrecisionMetric } from '../api/overlay.js';
import { pyGreater, pyMax } from '../compare/pyNumber.js';
import { statFloat, type Items } from './compare.js';

/**
 * The metric dialog of statistics mode (reference-viewer.md §3.4): `precision_index` recomputed from the chosen
 * relative-error columns of a matched NPU node's outputs, as the original's `update_precision_error` does. With all
 * four metrics it gives msprobe's own value back to the 6 decimals of the stored cells (checked on every golden
 * statistics file in test/unit/match-precision.test.ts).
 */

/** The original appends the chosen cells in this order (which decides where a NaN lands in Python's max). */
const ORDER: readonly PrecisionMetric[] = ['MaxRelativeErr', 'MinRelativeErr', 'NormRelativeErr', 'MeanRelativeErr'];

/** Cells that mark a non-finite statistic: msprobe writes "Nan"; a bare "inf"/"-inf" is kept from older files. */
const NON_FINITE = new Set(['Nan', 'inf', '-inf']);

/** Python truthiness of a cell: None, "", 0 and False are left out like "N/A". */
function truthy(v: unknown): boolean {
  return !(v === undefined || v === null || v === '' || v === 0 || v === false);
}

/**
 * The node's index under `metrics`, or null where the original leaves the stored value as it is (no output gave a
 * number). Per output: the chosen cells without "N/A" and empty ones; any "Nan"/"inf"/"-inf" cell makes the index 1 at
 * once; otherwise the max of the cells parsed like statistics ("12.5%" → 0.125; none → 0). Over the outputs the max,
 * then clamped to 1. Call it only for matched NPU nodes with outputs (the original skips the others).
 */
export function precisionFromMetrics(
  outputData: Items,
  metrics: readonly PrecisionMetric[],
): { precisionIndex: number; precisionIsInt: boolean } | null {
  const chosen = ORDER.filter((m) => metrics.includes(m));
  let m = -1;
  let mIsInt = true;
  for (const raw of Object.values(outputData)) {
    const item = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const cells = chosen.map((k) => item[k]).filter((v) => truthy(v) && v !== 'N/A');
    if (cells.some((v) => typeof v === 'string' && NON_FINITE.has(v))) {
      m = 1;
      mIsInt = true;
      break;
    }
    // Python: max(vals) if vals else 0 — the literal 0 is an int, parsed cells are floats.
    let forKey = 0;
    let forKeyIsInt = true;
    if (cells.length > 0) {
      forKey = statFloat(cells[0]);
      for (let i = 1; i < cells.length; i++) forKey = pyMax(forKey, statFloat(cells[i]));
      forKeyIsInt = false;
    }
    if (pyGreater(forKey, m)) {
      m = forKey;
      mIsInt = forKeyIsInt;
    }
  }
  if (m === -1) return null;
  // min(m, 1) keeps m unless 1 < m, and then returns the int literal 1.
  return m > 1 ? { precisionIndex: 1, precisionIsInt: true } : { precisionIndex: m, precisionIsInt: mIsInt };
}
