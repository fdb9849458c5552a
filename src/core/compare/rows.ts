import type { PyValue } from '../formats/pyJson.js';
import type { GraphNode, RawItem } from '../model/graph.js';
import type { DumpMode } from './mode.js';
import { pyEquals } from './pyNumber.js';
import { summaryCells } from './summaryMetrics.js';

/**
 * Pairing the parameters of a matched node pair (msprobe-format.md §3.3; msprobe `merge_tensor` + `get_accuracy`).
 *
 * Each side's items are `input_data` then `output_data` values. Four windows are paired positionally:
 * inputs `[0, nIn)`, params `[nIn+nOut, +nPar)`, outputs `[nIn, +nOut)`, params-grad `[nIn+nOut+nPar, +nPg)`.
 * Names, statistics, requires_grad and data names come from the *list position*, while dtype/shape/md5 come from
 * the *per-state* lists — with parameters between inputs and outputs the two disagree, and msprobe's md5 `Result`
 * lands on a neighbouring key. We reproduce that, not a corrected version.
 */

export type RowColumns = Array<[string, PyValue]>;

export interface CompareRow {
  /** NPU item name (`full_op_name`); the row is applied to the NPU item with this key. */
  name: string;
  /** Compare columns in msprobe's order (`SUMMARY_INDEX_LIST`, `MD5_INDEX_LIST`, `REAL_DATA_INDEX_LIST`). */
  columns: RowColumns;
  /** Real-tensor rows: `data_name` of both sides (`"-1"` = no file). */
  npuDataName?: PyValue;
  benchDataName?: PyValue;
}

type StructKey = 'input' | 'output' | 'params' | 'paramsGrad';

const STATE_TO_STRUCT: Record<string, StructKey> = {
  input: 'input',
  kwargs: 'input',
  output: 'output',
  parameters: 'params',
  parameters_grad: 'paramsGrad',
};

interface Struct {
  dtype: PyValue;
  shape: PyValue;
  md5: PyValue;
}

/** msprobe `merge_tensor` output for one node. */
interface Merged {
  names: string[];
  summaries: PyValue[][];
  requiresGrad: PyValue[];
  dataNames: PyValue[];
  structs: Record<StructKey, Struct[]>;
}

const STAT_KEYS = ['Max', 'Min', 'Mean', 'Norm'] as const;

function itemName(key: string, item: RawItem): string {
  const full = item.get('full_op_name');
  return typeof full === 'string' ? full : key;
}

function merge(node: GraphNode): Merged {
  const m: Merged = {
    names: [],
    summaries: [],
    requiresGrad: [],
    dataNames: [],
    structs: { input: [], output: [], params: [], paramsGrad: [] },
  };
  const add = (key: string, item: RawItem) => {
    const state = item.get('state');
    const structKey = typeof state === 'string' ? STATE_TO_STRUCT[state] : undefined;
    // An item without a known state would make msprobe's count_struct abort; skip it instead.
    if (!structKey) return;
    m.names.push(itemName(key, item));
    m.requiresGrad.push(item.get('requires_grad') ?? null);
    m.structs[structKey].push({
      dtype: item.get('dtype') ?? null,
      shape: item.get('shape') ?? null,
      md5: item.get('md5') ?? null,
    });
    // merge_tensor turns None statistics into the string "None" so pandas keeps them.
    m.summaries.push(STAT_KEYS.map((k) => item.get(k) ?? 'None'));
    m.dataNames.push(item.get('data_name') ?? null);
  };
  for (const [k, item] of node.inputData) add(k, item);
  for (const [k, item] of node.outputData) add(k, item);
  return m;
}

function rowsForWindow(
  out: CompareRow[],
  mode: DumpMode,
  n: Merged,
  b: Merged,
  key: StructKey,
  nStart: number,
  bStart: number,
): void {
  const nLen = n.structs[key].length;
  const bLen = b.structs[key].length;
  const minLen = Math.min(nLen, bLen);
  for (let i = 0; i < minLen; i++) {
    const nPos = nStart + i;
    const bPos = bStart + i;
    const name = n.names[nPos];
    const consistent = pyEquals(n.requiresGrad[nPos], b.requiresGrad[bPos]);
    if (mode === 'md5') {
      const result = pyEquals(n.structs[key][i].md5, b.structs[key][i].md5) ? 'pass' : 'Different';
      out.push({ name, columns: [['Result', result], ['Requires_grad Consistent', consistent]] });
    } else if (mode === 'summary') {
      const cells = summaryCells(n.summaries[nPos], b.summaries[bPos]);
      out.push({ name, columns: [...cells, ['Requires_grad Consistent', consistent]] });
    } else {
      out.push({
        name,
        columns: realPlaceholderColumns(consistent),
        npuDataName: n.dataNames[nPos],
        benchDataName: b.dataNames[bPos],
      });
    }
  }
  // Extra NPU items get a row with "Nan" bench cells; msprobe builds it with one blank too few in summary and
  // real mode, so the NPU Max/Min land in MeanRelativeErr/NormRelativeErr and "" in Requires_grad Consistent.
  for (let i = bLen; i < nLen; i++) {
    const nPos = nStart + i;
    const name = n.names[nPos];
    if (mode === 'md5') {
      out.push({ name, columns: [['Result', 'Nan'], ['Requires_grad Consistent', false]] });
    } else if (mode === 'summary') {
      const stats = n.summaries[nPos];
      out.push({
        name,
        columns: [
          ['Max diff', ' '],
          ['Min diff', ' '],
          ['Mean diff', ' '],
          ['L2norm diff', ' '],
          ['MaxRelativeErr', ' '],
          ['MinRelativeErr', ' '],
          ['MeanRelativeErr', stats[0]],
          ['NormRelativeErr', stats[1]],
          ['Requires_grad Consistent', ''],
        ],
      });
    } else {
      out.push({
        name,
        columns: realPlaceholderColumns(false),
        npuDataName: n.dataNames[nPos],
        benchDataName: '-1',
      });
    }
  }
}

export const REAL_METRIC_COLUMNS = [
  'Cosine',
  'EucDist',
  'MaxAbsErr',
  'MaxRelativeErr',
  'One Thousandth Err Ratio',
  'Five Thousandths Err Ratio',
] as const;

function realPlaceholderColumns(consistent: boolean): RowColumns {
  const cols: RowColumns = REAL_METRIC_COLUMNS.map((c) => [c, ' ']);
  cols.push(['Requires_grad Consistent', consistent]);
  return cols;
}

/** All compare rows of a matched pair, in msprobe's window order (inputs, params, outputs, params-grad). */
export function compareRows(nodeN: GraphNode, nodeB: GraphNode, mode: DumpMode): CompareRow[] {
  const n = merge(nodeN);
  const b = merge(nodeB);
  const out: CompareRow[] = [];
  if (n.names.length === 0) return out;
  const nIn = n.structs.input.length;
  const nOut = n.structs.output.length;
  const nPar = n.structs.params.length;
  const bIn = b.structs.input.length;
  const bOut = b.structs.output.length;
  const bPar = b.structs.params.length;
  rowsForWindow(out, mode, n, b, 'input', 0, 0);
  rowsForWindow(out, mode, n, b, 'params', nIn + nOut, bIn + bOut);
  rowsForWindow(out, mode, n, b, 'output', nIn, bIn);
  rowsForWindow(out, mode, n, b, 'paramsGrad', nIn + nOut + nPar, bIn + bOut + bPar);
  return out;
}
