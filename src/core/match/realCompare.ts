import type { MatchFailure } from '../api/overlay.js';
import type { IoItem } from '../api/types.js';
import { withMetrics } from '../compare/compareGraphs.js';
import { getPrecisionIndex } from '../compare/nodeResults.js';
import { applyRealRows } from '../compare/precisionIndex.js';
import { compareRows, REAL_COLUMNS, type CompareRow } from '../compare/rows.js';
import type { TensorMetrics } from '../compare/tensorMetrics.js';
import { formatValue } from '../formats/itemFormat.js';
import type { PyValue } from '../formats/pyJson.js';
import { GraphNode, NodeOp, type RawItem } from '../model/graph.js';
import type { CompareResult, CompareSide, Items } from './compare.js';

/**
 * A manual match in a real-tensor (`all`) file, computed by the `graph` command's own code (msprobe-format.md §3.3,
 * §3.6, §3.8): the file's items are turned back into the builder's items, paired by compareRows, given the six
 * metrics of their tensor files (TensorLookup: the server reads them) as compareGraphs writes them, and indexed by
 * applyRealRows. The original viewer refuses these files (reference-viewer.md §4.4); this is what `graph` would have
 * written had it paired the two nodes.
 */

/** One row's tensor pair: the items' `data_name`s as the file has them (`"-1"`: no file). */
export interface TensorRequest {
  readonly npu: PyValue;
  readonly bench: PyValue;
}

/** The tensors of a file's dumps, as far as they have been read. */
export interface TensorLookup {
  /** The row's metrics; undefined while not read yet; a failure when the files cannot be reached or read. */
  metrics(npuDataName: PyValue, benchDataName: PyValue): TensorMetrics | MatchFailure | undefined;
}

/** Tensors still to read before the pair can be compared (the caller reads them and plans again). */
export interface PendingTensors {
  ok: 'pending';
  needs: TensorRequest[];
}

/** The keys a real-tensor comparison adds to an NPU item (REAL_COLUMNS), which an unmatch takes away again. */
export const REAL_MATCH_KEYS: readonly string[] = REAL_COLUMNS;
const REAL_KEYS: ReadonlySet<string> = new Set(REAL_MATCH_KEYS);

const STATES = new Set(['input', 'output', 'parameters', 'parameters_grad']);
const NON_FINITE: Readonly<Record<string, number>> = { inf: Infinity, '-inf': -Infinity, nan: NaN };

/**
 * The builder's `state` of an item the file wrote without it (§2.5, §4.1 drops it since 2025-08): parameters_grad
 * nodes hold only that state; otherwise the segment after the node id names it (kwargs are `input` too).
 */
function stateOf(nodeId: string, key: string, output: boolean): string {
  const segs = nodeId.split('.');
  if (segs[segs.length - 1] === 'parameters_grad' || segs[segs.length - 2] === 'parameters_grad') return 'parameters_grad';
  if (output) return 'output';
  const rest = key.startsWith(nodeId + '.') ? key.slice(nodeId.length + 1) : key;
  return rest.startsWith('parameters.') || rest.includes('.parameters.') ? 'parameters' : 'input';
}

/**
 * A file item as the builder held it, for the rules that read it: `state`, `full_op_name` (the key, §2.5) and a
 * missing `data_name` ("-1") put back; `Max`/`Min` "inf"/"-inf"/"nan" as the floats they were (the NaN/inf check of §3.8); a tensor's `"[]"` shape
 * as the empty list it was (a 0-d tensor: skipped by the index, while a scalar's `"[]"` was a string). Any compare
 * column already there is left out, so the item holds one exactly when this match annotated it.
 */
function rawItem(nodeId: string, key: string, item: IoItem, output: boolean): RawItem {
  const raw = new Map<string, PyValue>();
  for (const k in item) if (!REAL_KEYS.has(k)) raw.set(k, item[k] as PyValue);
  if (!(typeof raw.get('state') === 'string' && STATES.has(raw.get('state') as string))) raw.set('state', stateOf(nodeId, key, output));
  raw.set('full_op_name', key);
  // A None argument is written `{"value": "null"}`: it had no file.
  if (!raw.has('data_name')) raw.set('data_name', '-1');
  for (const k of ['Max', 'Min']) {
    const v = raw.get(k);
    if (typeof v === 'string' && v in NON_FINITE) raw.set(k, NON_FINITE[v]);
  }
  const type = raw.get('type');
  if (raw.get('shape') === '[]' && typeof type === 'string' && /Tensor|Parameter|ndarray/.test(type)) raw.set('shape', []);
  return raw;
}

function graphNode(side: CompareSide): GraphNode {
  const items = (data: Items, output: boolean) => {
    const out = new Map<string, RawItem>();
    for (const key of Object.keys(data)) {
      const item = data[key];
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) out.set(key, rawItem(side.id, key, item, output));
    }
    return out;
  };
  // The node type plays no part in pairing or indexing items.
  return new GraphNode(side.id, NodeOp.functionApi, items(side.inputData, false), items(side.outputData, true));
}

/**
 * The NPU items with the columns the comparison set, formatted as the writers format them (§4.1): the file's own
 * values and key order kept, the columns appended. Files that export `state` (the JSON era, §4.1 step 1) drop
 * `Requires_grad Consistent` as their writer does.
 */
function annotated(data: Items, node: Map<string, RawItem>): Items {
  const out = Object.create(null) as Record<string, IoItem>;
  for (const key of Object.keys(data)) {
    const item = data[key];
    const raw = node.get(key);
    if (!raw || !raw.has(REAL_MATCH_KEYS[0])) {
      out[key] = item;
      continue;
    }
    const next: IoItem = Object.assign({}, item);
    const legacy = 'state' in item;
    for (const k of REAL_MATCH_KEYS) {
      if (legacy && k === 'Requires_grad Consistent') continue;
      if (raw.has(k)) next[k] = formatValue(raw.get(k) ?? null);
    }
    out[key] = next;
  }
  return out;
}

/**
 * Pairs an NPU node with a Bench node of an `all` file: the tensor pairs to read first, a failure when one cannot
 * be read, or the NPU node's new items and index. A pair without rows (no items) is matched without an index, as
 * `graph` leaves it.
 */
export function compareReal(npu: CompareSide, bench: CompareSide, tensors: TensorLookup): CompareResult | PendingTensors {
  const n = graphNode(npu);
  const b = graphNode(bench);
  const rows = compareRows(n, b, 'all');
  const needs: TensorRequest[] = [];
  for (const row of rows) {
    const m = tensors.metrics(row.npuDataName ?? null, row.benchDataName ?? null);
    if (m === undefined) needs.push({ npu: row.npuDataName ?? null, bench: row.benchDataName ?? null });
    else if (typeof m === 'string') return { ok: false, reason: m };
    else withMetrics(row, m);
  }
  if (needs.length > 0) return { ok: 'pending', needs };
  if (rows.length === 0) return { ok: true, inputData: npu.inputData, outputData: npu.outputData, precisionIndex: null, precisionIsInt: false };
  const byName = new Map<string, CompareRow>();
  for (const row of rows) byName.set(row.name, row);
  applyRealRows(n, byName);
  const index = getPrecisionIndex(n);
  return {
    ok: true,
    inputData: annotated(npu.inputData, n.inputData),
    outputData: annotated(npu.outputData, n.outputData),
    precisionIndex: index === undefined ? null : Number(index),
    precisionIsInt: typeof index === 'bigint',
  };
}

/** What an unmatch leaves of a real-tensor NPU node's items: each item without the seven REAL_MATCH_KEYS. */
export function unmatchedRealData(items: Items): Items {
  const out = Object.create(null) as Record<string, IoItem>;
  for (const key of Object.keys(items)) {
    const item = items[key];
    if (item === null || typeof item !== 'object' || Array.isArray(item) || !REAL_MATCH_KEYS.some((k) => k in item)) {
      out[key] = item;
      continue;
    }
    const next: IoItem = {};
    for (const k in item) if (!REAL_KEYS.has(k)) next[k] = item[k];
    out[key] = next;
  }
  return out;
}
