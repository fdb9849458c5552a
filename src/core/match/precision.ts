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

/**
 * What every metric subset's index needs of one node's outputs, so that changing the choice does not read the
 * record again: per metric (ORDER), the largest parsed cell over the outputs and whether some output holds a
 * non-finite marker there. Null when the cells hold a value precisionFromCells cannot reduce exactly (a NaN or a
 * negative number, where Python's max depends on the order): then precisionFromMetrics runs on the record.
 */
export interface MetricCells {
  /** Largest parsed cell per metric over all outputs; -Infinity where no output has a usable cell. */
  max: Float64Array;
  /** Bit k: some output's metric ORDER[k] cell is "Nan" / "inf" / "-inf". */
  nonFinite: number;
  /** Whether the node has outputs at all (without, the original keeps the stored index). */
  hasOutputs: boolean;
}

export function metricCells(outputData: Items): MetricCells | null {
  const max = new Float64Array(ORDER.length).fill(-Infinity);
  let nonFinite = 0;
  let hasOutputs = false;
  for (const raw of Object.values(outputData)) {
    hasOutputs = true;
    const item = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    for (let k = 0; k < ORDER.length; k++) {
      const v = item[ORDER[k]];
      if (!truthy(v) || v === 'N/A') continue;
      if (typeof v === 'string' && NON_FINITE.has(v)) {
        nonFinite |= 1 << k;
        continue;
      }
      const f = statFloat(v);
      if (!(f >= 0)) return null;
      if (f > max[k]) max[k] = f;
    }
  }
  return { max, nonFinite, hasOutputs };
}

/** The bits of `metrics` in MetricCells' order (bit k = ORDER[k]). */
export function metricMask(metrics: readonly PrecisionMetric[]): number {
  let mask = 0;
  for (let k = 0; k < ORDER.length; k++) if (metrics.includes(ORDER[k])) mask |= 1 << k;
  return mask;
}

/**
 * precisionFromMetrics' value from a node's MetricCells (maxima at max[at..at+4), e.g. a table of many nodes) for the
 * metrics in `mask`: with every cell a non-negative number, Python's per-output max then max over outputs is the max
 * over the chosen metrics of their maxima (0 when none), any chosen non-finite cell gives 1, and the result is clamped
 * to 1.
 */
export function precisionFromCells(max: ArrayLike<number>, at: number, nonFinite: number, hasOutputs: boolean, mask: number): number | null {
  if (!hasOutputs) return null;
  if (nonFinite & mask) return 1;
  let m = 0;
  for (let k = 0; k < ORDER.length; k++) if (mask & (1 << k) && max[at + k] > m) m = max[at + k];
  return m > 1 ? 1 : m;
}
