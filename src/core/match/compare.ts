import type { IoItem } from '../api/types.js';
import type { MatchFailure } from '../api/overlay.js';
import { pyFixed, pyMax, pyMin, pyParseFloat } from '../compare/pyNumber.js';
import { compareReal, type PendingTensors, type TensorLookup } from './realCompare.js';

/**
 * The comparison a manual match computes (reference-viewer.md §4.4, the original's `match_nodes_model.py`): what the
 * NPU node's items and `precision_index` become when it is paired with a Bench node, and what an unmatch takes away.
 * Pure functions over plain item objects; nothing is changed in place.
 */

/**
 * A node's `input_data` / `output_data`: item key (`<id>.input.0` …) → item, in file order. Records this module
 * returns have no prototype (like pyJson's), so use `Object.keys` / `in`, not `hasOwnProperty`.
 */
export type Items = Readonly<Record<string, IoItem>>;

export type MatchTask = 'summary' | 'md5';

/** The node fields a comparison reads. */
export interface CompareSide {
  readonly id: string;
  readonly inputData: Items;
  readonly outputData: Items;
}

/** The keys a summary match adds to each paired NPU item, in the order added (the original's ADD_MATCH_KEYS). */
export const ADD_MATCH_KEYS = [
  'MaxAbsErr',
  'MinAbsErr',
  'MeanAbsErr',
  'NormAbsErr',
  'MaxRelativeErr',
  'MinRelativeErr',
  'MeanRelativeErr',
  'NormRelativeErr',
] as const;

const REMOVED: ReadonlySet<string> = new Set(ADD_MATCH_KEYS);

export type CompareResult =
  | {
      ok: true;
      /** The NPU node's new items (md5: the same objects, unchanged). */
      inputData: Items;
      outputData: Items;
      /** null: the pair has no item rows, and `graph` leaves such a node without an index (real-tensor files). */
      precisionIndex: number | null;
      /**
       * The Python type the original stores, for writers that must reproduce its bytes: md5 gives the ints 0/1;
       * summary gives a float, except `min(x, 1)` with x > 1, which is the int 1.
       */
      precisionIsInt: boolean;
    }
  | { ok: false; reason: MatchFailure };

export function isMatchTask(task: string): task is MatchTask {
  return task === 'summary' || task === 'md5';
}

/**
 * Pairs an NPU node with a Bench node. Real-tensor files (`all`) need the dump's tensors (`tensors`, read by the
 * server: realCompare.ts), and are refused without them, as the original refuses them (`taskTypeError`); other
 * tasks are refused.
 */
export function compareMatched(task: string, npu: CompareSide, bench: CompareSide): CompareResult;
export function compareMatched(task: string, npu: CompareSide, bench: CompareSide, tensors: TensorLookup | undefined): CompareResult | PendingTensors;
export function compareMatched(task: string, npu: CompareSide, bench: CompareSide, tensors?: TensorLookup): CompareResult | PendingTensors {
  if (task === 'md5') return compareMd5(npu, bench);
  if (task === 'summary') return compareSummary(npu, bench);
  if (task === 'all' && tensors) return compareReal(npu, bench, tensors);
  return { ok: false, reason: 'taskNotSupported' };
}

/**
 * The original's `GraphUtils.convert_to_float` on a statistic: strings are cut at the first comma (msprobe's
 * "0.0%, 由于Mean小于1e-06…" notes), a trailing `%` divides by 100, then Python `float()` ("19.0", "inf", "nan",
 * " 1_000 "); what Python cannot parse is NaN. Numbers are used as they are, booleans as 1/0 (Python `float(True)`).
 * null, lists and objects make Python raise TypeError, which fails the original's whole request; they count as NaN
 * here, which leaves the statistic out of the node's index (NaN never wins a Python max) instead.
 */
export function statFloat(value: unknown): number {
  if (typeof value === 'string') {
    const comma = value.indexOf(',');
    const head = comma < 0 ? value : value.slice(0, comma);
    if (head.endsWith('%')) {
      const v = pyParseFloat(head.replace(/%/g, ''));
      return v === null ? NaN : v / 100;
    }
    return pyParseFloat(head) ?? NaN;
  }
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  return NaN;
}

/**
 * The original's `format_relative_err`: Python `"{:.4%}".format(x)` — x·100 in floating point, then fixed notation
 * with 4 decimals rounded half-to-even on the exact binary value ("12.3456%", "inf%"); NaN → "NaN".
 */
export function formatRelativeErr(x: number): string {
  return Number.isNaN(x) ? 'NaN' : pyFixed(x * 100, 4) + '%';
}

/**
 * The original's `nan_to_str` for the absolute errors: NaN → "NaN", any other value stays a number. They are Python
 * floats: a writer must print them as such (`1.0`, `Infinity`: pyJsonWrite's floatText), not as JS integers.
 */
export function absErrValue(x: number): number | string {
  return Number.isNaN(x) ? 'NaN' : x;
}

function asItem(v: unknown): Readonly<Record<string, unknown>> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function stat(item: Readonly<Record<string, unknown>>, key: string): number {
  // `.get(key, float('nan'))`: a missing statistic (a None argument's `{"value": "null"}` item) is NaN
  return key in item ? statFloat(item[key]) : NaN;
}

/** [MaxAbsErr, MinAbsErr, MeanAbsErr, NormAbsErr, MaxRelativeErr, MinRelativeErr, MeanRelativeErr, NormRelativeErr]. */
type Diff = [number, number, number, number, number, number, number, number];

/**
 * The original's `calculate_statistical_diff`: entries are paired by position (zip, up to the shorter side); the
 * `<node id>.` prefix it strips only names them. `|npu − bench|`, and relative `|abs / bench|` with 1 as the divisor
 * when bench is 0 (a NaN bench is not 0: its relative error is NaN).
 *
 * The result is attached to the NPU entry at the same position. (The original rebuilds the key as `<id>.<stripped
 * key>`, which is the same entry for every key msprobe writes, and a new one only for a key without the prefix.)
 */
function statisticalDiff(npu: Items, bench: Items): Array<[string, Diff]> {
  const npuKeys = Object.keys(npu);
  const benchItems = Object.values(bench);
  const n = Math.min(npuKeys.length, benchItems.length);
  const out: Array<[string, Diff]> = [];
  for (let i = 0; i < n; i++) {
    const a = asItem(npu[npuKeys[i]]);
    const b = asItem(benchItems[i]);
    const diff = new Array(8) as Diff;
    const stats = ['Max', 'Min', 'Mean', 'Norm'];
    for (let s = 0; s < 4; s++) {
      const nv = stat(a, stats[s]);
      const bv = stat(b, stats[s]);
      const abs = Math.abs(nv - bv);
      diff[s] = abs;
      diff[s + 4] = Math.abs(abs / (bv !== 0 ? bv : 1));
    }
    out.push([npuKeys[i], diff]);
  }
  return out;
}

/**
 * The original's `calculate_max_relative_error` with Python's max/min: per output the max of (Max, Min, Norm, Mean)
 * relative errors in that order (a NaN first operand stays, a later NaN never wins), over the outputs starting from
 * −1, then `min(…, 1)`. −1 therefore means no output gave a number: every output's MaxRelativeErr was NaN (a NaN or
 * missing Max on either side), or there were no outputs.
 */
function maxRelativeError(outputs: ReadonlyArray<[string, Diff]>): { value: number; isInt: boolean } {
  let m = -1;
  for (const [, d] of outputs) {
    const forKey = pyMax(pyMax(pyMax(d[4], d[5]), d[7]), d[6]);
    m = pyMax(m, forKey);
  }
  // min(m, 1) keeps m unless 1 < m; the 1 it returns then is Python's int literal.
  return { value: pyMin(m, 1), isInt: m === -1 || m > 1 };
}

/**
 * Records keyed by node-specific item names: a null-prototype object is a dictionary from the start, where a literal
 * would make V8 build a new hidden class for every node's key set (seconds on a 5,000-node match).
 */
function record(): Record<string, IoItem> {
  return Object.create(null) as Record<string, IoItem>;
}

/** The original's `update_graph_node_data`: the eight keys are added (or updated in place) on each paired NPU item. */
function withDiffs(items: Items, diffs: ReadonlyArray<[string, Diff]>): Items {
  const out = record();
  for (const key in items) out[key] = items[key];
  for (const [key, d] of diffs) {
    const item = items[key];
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    // Object.assign, not a spread: V8 gives each spread clone that then grows a new hidden class (20× slower)
    const next: IoItem = Object.assign({}, item);
    for (let k = 0; k < 4; k++) next[ADD_MATCH_KEYS[k]] = absErrValue(d[k]);
    for (let k = 4; k < 8; k++) next[ADD_MATCH_KEYS[k]] = formatRelativeErr(d[k]);
    out[key] = next;
  }
  return out;
}

function compareSummary(npu: CompareSide, bench: CompareSide): CompareResult {
  const inputs = statisticalDiff(npu.inputData, bench.inputData);
  const outputs = statisticalDiff(npu.outputData, bench.outputData);
  const precision = maxRelativeError(outputs);
  if (inputs.length === 0 || outputs.length === 0) return { ok: false, reason: 'emptyData' };
  if (precision.value === -1) return { ok: false, reason: 'outputError' };
  return {
    ok: true,
    inputData: withDiffs(npu.inputData, inputs),
    outputData: withDiffs(npu.outputData, outputs),
    precisionIndex: precision.value,
    precisionIsInt: precision.isInt,
  };
}

/** Python `==` on the JSON values an md5 cell can hold (strings in every file msprobe writes). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The original's `calculate_md5_diff`: 0 when a side has no entries or a positional pair's md5 differs, else 1. */
function md5Same(npu: Items, bench: Items): 0 | 1 {
  const a = Object.values(npu);
  const b = Object.values(bench);
  if (a.length === 0 || b.length === 0) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = asItem(a[i]);
    const y = asItem(b[i]);
    if (!sameValue('md5' in x ? x.md5 : '', 'md5' in y ? y.md5 : '')) return 0;
  }
  return 1;
}

/** md5 never fails: `precision_index = inputs_same and outputs_same`; the items stay as they are. */
function compareMd5(npu: CompareSide, bench: CompareSide): CompareResult {
  const same = md5Same(npu.inputData, bench.inputData) && md5Same(npu.outputData, bench.outputData);
  return { ok: true, inputData: npu.inputData, outputData: npu.outputData, precisionIndex: same, precisionIsInt: true };
}

/**
 * What a summary unmatch leaves of the NPU items (the original's `delete_matched_node_data`): each item without the
 * eight ADD_MATCH_KEYS, other keys in their order. After a match of ours this is exactly the item before it; on a
 * pair msprobe matched it also drops msprobe's own `*RelativeErr` cells (its `Max diff` … columns stay), as the
 * original does.
 */
export function unmatchedData(items: Items): Items {
  const out = record();
  for (const key in items) {
    const item = items[key];
    if (item === null || typeof item !== 'object' || Array.isArray(item) || !ADD_MATCH_KEYS.some((k) => k in item)) {
      out[key] = item;
      continue;
    }
    // rebuilt rather than `delete`d, which would turn every item into a slow dictionary object
    const next: IoItem = {};
    for (const k in item) if (!REMOVED.has(k)) next[k] = item[k];
    out[key] = next;
  }
  return out;
}
