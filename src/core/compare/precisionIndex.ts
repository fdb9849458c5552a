import type { PyValue } from '../formats/pyJson.js';
import type { Graph, GraphNode, RawItem } from '../model/graph.js';
import { Item, NodeOp } from '../model/graph.js';
import type { DumpMode } from './mode.js';
import { getPrecisionIndex, setMd5Result, setPrecisionIndex } from './nodeResults.js';
import { pyGreater, pyMax, pyMin, pyParseFloat } from './pyNumber.js';
import type { CompareRow } from './rows.js';
import { str2float } from './summaryMetrics.js';

/**
 * Writing compare rows into the NPU items and the node's `precision_index` (msprobe-format.md §3.8; msprobe
 * `ModeAdapter`). Index values are Python values: bigint = int (`0`, `1`), number = float.
 */

type PyNum = number | bigint;

/** §3.8 ignored ops: `empty*` creators hold uninitialised memory. */
const IGNORED_OPS = new Set(['empty', 'empty_like', 'empty_with_format', 'new_empty_strided', 'new_empty', 'empty_strided']);

const SUMMARY_INDEX_COLUMNS = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr', 'Requires_grad Consistent'];

function isInvalidFloat(v: PyValue | undefined): boolean {
  return typeof v === 'number' && !Number.isFinite(v);
}

function hasNoMax(item: RawItem): boolean {
  const max = item.get('Max');
  return max === null || max === undefined;
}

function applyColumns(item: RawItem, row: CompareRow): void {
  if (item instanceof Item) item.setAll(row.columnNames, row.values);
  else for (let i = 0; i < row.columnNames.length; i++) item.set(row.columnNames[i], row.values[i]);
}

/** Rows by name, the last one of a name winning (msprobe builds a dict); input and output rows apart. */
interface RowLookup {
  get(name: string): CompareRow | undefined;
}

function rowLookup(rows: CompareRow[], output: boolean): RowLookup {
  // A node has a handful of rows: a backwards scan beats building a Map.
  if (rows.length <= 16) {
    return {
      get(name) {
        for (let i = rows.length - 1; i >= 0; i--) if (rows[i].output === output && rows[i].name === name) return rows[i];
        return undefined;
      },
    };
  }
  const map = new Map<string, CompareRow>();
  for (const row of rows) if (row.output === output) map.set(row.name, row);
  return map;
}

function summaryIndex(data: Map<string, RawItem>, rows: RowLookup): PyNum {
  let maxRelative: PyNum = 0n;
  for (const [key, item] of data) {
    if (hasNoMax(item)) continue;
    const row = rows.get(key);
    if (row) {
      applyColumns(item, row);
      if (row.index) for (const v of row.index) maxRelative = pyMax(maxRelative, v);
      else {
        for (const column of SUMMARY_INDEX_COLUMNS) {
          maxRelative = pyMax(maxRelative, str2float(item.get(column) ?? null, pyParseFloat));
        }
      }
    }
    if (isInvalidFloat(item.get('Max')) || isInvalidFloat(item.get('Min'))) maxRelative = 1n;
  }
  return pyGreater(maxRelative, 1n) ? 1n : maxRelative;
}

function md5Index(data: Map<string, RawItem>, rows: RowLookup): PyNum {
  let index: PyNum = 1n;
  for (const [key, item] of data) {
    const row = rows.get(key);
    if (!row) continue;
    applyColumns(item, row);
    if (item.get('Result') !== 'pass') index = 0n;
  }
  return index;
}

/** Python `float(x)` for a One Thousandth cell; null where Python raises. */
function pyFloatOf(v: PyValue | undefined): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') return pyParseFloat(v);
  return null;
}

function pyTruthy(v: PyValue | undefined): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0 || v === 0n) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

/** Minimum One Thousandth ratio over items with a row and a non-empty shape; 'N/A' if any NaN/inf statistic. */
function minThousandth(data: Map<string, RawItem>, rows: RowLookup): number | 'N/A' | null {
  const numbers: number[] = [];
  let invalid = false;
  for (const [key, item] of data) {
    if (hasNoMax(item)) continue;
    const row = rows.get(key);
    if (row) {
      applyColumns(item, row);
      // Scalars cannot have a ratio; msprobe skips them (and their NaN/inf check) entirely.
      if (!pyTruthy(item.get('shape'))) continue;
      const ratio = pyFloatOf(item.get('One Thousandth Err Ratio'));
      if (ratio !== null) numbers.push(ratio);
    }
    if (isInvalidFloat(item.get('Max')) || isInvalidFloat(item.get('Min'))) invalid = true;
  }
  if (numbers.length === 0 && !invalid) return null;
  if (invalid) return 'N/A';
  let min = numbers[0];
  for (let i = 1; i < numbers.length; i++) min = pyMin(min, numbers[i]);
  return pyMin(min, 1.0);
}

function realIndex(inMin: number | 'N/A' | null, outMin: number | 'N/A' | null): PyNum {
  let change: PyNum;
  if (outMin === 'N/A') change = 1n;
  else if (inMin === 'N/A') change = 0n;
  else if (inMin !== null && outMin !== null) change = inMin - outMin;
  else change = 0n;
  if (pyGreater(0n, change)) change = 0n;
  return pyGreater(change, 1n) ? 1n : change;
}

function ignoreOp(node: GraphNode, mode: DumpMode, index: PyNum): PyNum {
  // the second dot segment, e.g. `empty_like` in `Torch.empty_like.0.forward`
  const id = node.id;
  const start = id.indexOf('.') + 1;
  if (start === 0) return index;
  const end = id.indexOf('.', start);
  if (IGNORED_OPS.has(end < 0 ? id.slice(start) : id.slice(start, end))) return mode === 'md5' ? 1n : 0n;
  return index;
}

/**
 * summary / md5 / structure: annotate the NPU items of a matched node and set its index right away
 * (msprobe `add_compare_result_to_node` → `parse_result`).
 */
export function applyRows(node: GraphNode, rows: CompareRow[], mode: DumpMode): void {
  const inputs = rowLookup(rows, false);
  const outputs = rowLookup(rows, true);
  let index: PyNum;
  if (mode === 'md5') {
    const indexIn = md5Index(node.inputData, inputs);
    const indexOut = md5Index(node.outputData, outputs);
    index = pyMin(indexIn, indexOut);
    setMd5Result(node, index === 1n ? 'pass' : 'Different');
  } else if (mode === 'summary') {
    summaryIndex(node.inputData, inputs);
    index = summaryIndex(node.outputData, outputs);
  } else {
    // Structure rows take msprobe's real-data branch, which looks both sides up in the *input* rows.
    index = realIndex(minThousandth(node.inputData, inputs), minThousandth(node.outputData, inputs));
  }
  setPrecisionIndex(node, ignoreOp(node, mode, index));
}

/** Real-tensor mode, after the metrics are in the rows: msprobe `_postcompare` → `parse_result(node, [all rows])`. */
export function applyRealRows(node: GraphNode, rowsByName: Map<string, CompareRow>): void {
  const index = realIndex(minThousandth(node.inputData, rowsByName), minThousandth(node.outputData, rowsByName));
  setPrecisionIndex(node, ignoreOp(node, 'all', index));
}

function collectionIndex(collection: GraphNode, mode: DumpMode): void {
  const md5 = mode === 'md5';
  let index: PyNum = md5 ? 1n : 0n;
  for (const api of collection.subnodes) {
    const v = getPrecisionIndex(api) ?? (md5 ? 1n : 0n);
    index = md5 ? pyMin(index, v) : pyMax(index, v);
  }
  setPrecisionIndex(collection, index);
}

/** `Apis_Between_Modules*` get the max (md5: min) of their APIs, matched or not (§3.8). */
export function applyCollectionIndices(npu: Graph, mode: DumpMode): void {
  for (const node of npu.root.subnodes) {
    if (node.op !== NodeOp.apiCollection) continue;
    if (node.id.startsWith('Apis_Between_Modules_All_Ranks')) {
      for (const sub of node.subnodes) collectionIndex(sub, mode);
    }
    collectionIndex(node, mode);
  }
}

