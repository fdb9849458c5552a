import { REAL_METRICS, SUMMARY_METRICS } from '../compareTable/columns.js';
import type { PyValue } from '../formats/pyJson.js';
import type { GraphNode, RawItem } from '../model/graph.js';
import type { DumpMode } from './mode.js';
import { pyEquals } from './pyNumber.js';
import { summaryValues } from './summaryMetrics.js';

/**
 * Pairing the parameters of a matched node pair (msprobe-format.md §3.3; msprobe `merge_tensor` + `get_accuracy`).
 *
 * Each side's items are `input_data` then `output_data` values. Four windows are paired positionally:
 * inputs `[0, nIn)`, params `[nIn+nOut, +nPar)`, outputs `[nIn, +nOut)`, params-grad `[nIn+nOut+nPar, +nPg)`.
 * Names, statistics, requires_grad and data names come from the *list position*, while dtype/shape/md5 come from
 * the *per-state* lists — with parameters between inputs and outputs the two disagree, and msprobe's md5 `Result`
 * lands on a neighbouring key. We reproduce that, not a corrected version.
 */

export interface CompareRow {
  /** NPU item name (`full_op_name`); the row is applied to the NPU item with this key. */
  name: string;
  /** True when the name marks an output (`.output.`): the row applies to `output_data`. */
  output: boolean;
  /** Compare columns in msprobe's order (`SUMMARY_INDEX_LIST`, `MD5_INDEX_LIST`, `REAL_DATA_INDEX_LIST`). */
  columnNames: readonly string[];
  values: PyValue[];
  /**
   * Summary rows of a matched pair: what msprobe's index reads back from MaxRelativeErr … NormRelativeErr and
   * Requires_grad Consistent (`str2float` of each), known here without parsing the cells again.
   */
  index?: Array<number | bigint>;
  /** Real-tensor rows: `data_name` of both sides (`"-1"` = no file). */
  npuDataName?: PyValue;
  benchDataName?: PyValue;
}

export const SUMMARY_COLUMNS = [...SUMMARY_METRICS, 'Requires_grad Consistent'] as const;
const MD5_COLUMNS = ['Result', 'Requires_grad Consistent'] as const;

export const REAL_METRIC_COLUMNS = REAL_METRICS;
export const REAL_COLUMNS = [...REAL_METRIC_COLUMNS, 'Requires_grad Consistent'] as const;

/** The most compare columns a row adds to an NPU item (its reader leaves that much room in each). */
export const MAX_COMPARE_COLUMNS = Math.max(SUMMARY_COLUMNS.length, MD5_COLUMNS.length, REAL_COLUMNS.length);

/** Struct windows: input (and kwargs), output, parameters, parameters_grad. */
const INPUT = 0;
const OUTPUT = 1;
const PARAMS = 2;
const PARAMS_GRAD = 3;

const STATE_TO_STRUCT: Record<string, number> = {
  input: INPUT,
  kwargs: INPUT,
  output: OUTPUT,
  parameters: PARAMS,
  parameters_grad: PARAMS_GRAD,
};

const STAT_KEYS = ['Max', 'Min', 'Mean', 'Norm'] as const;

/** msprobe `merge_tensor` for one node: its items in list order, and per state. */
interface Merged {
  list: RawItem[];
  structs: [RawItem[], RawItem[], RawItem[], RawItem[]];
}

function itemName(key: string, item: RawItem): string {
  const full = item.get('full_op_name');
  return typeof full === 'string' ? full : key;
}

function merge(node: GraphNode): Merged & { names: string[] } {
  const m = { list: [] as RawItem[], names: [] as string[], structs: [[], [], [], []] as Merged['structs'] };
  const add = (data: Map<string, RawItem>) => {
    for (const [key, item] of data) {
      const state = item.get('state');
      const struct = typeof state === 'string' ? STATE_TO_STRUCT[state] : undefined;
      // An item without a known state would make msprobe's count_struct abort; skip it instead.
      if (struct === undefined || !Object.hasOwn(STATE_TO_STRUCT, state as string)) continue;
      m.list.push(item);
      m.names.push(itemName(key, item));
      m.structs[struct].push(item);
    }
  };
  add(node.inputData);
  add(node.outputData);
  return m;
}

/** merge_tensor turns None statistics into the string "None" so pandas keeps them. */
function stats(item: RawItem): PyValue[] {
  return STAT_KEYS.map((k) => item.get(k) ?? 'None');
}

function rowsForWindow(
  out: CompareRow[],
  mode: DumpMode,
  n: Merged & { names: string[] },
  b: Merged,
  struct: number,
  nStart: number,
  bStart: number,
): void {
  const nLen = n.structs[struct].length;
  const bLen = b.structs[struct].length;
  const minLen = Math.min(nLen, bLen);
  for (let i = 0; i < minLen; i++) {
    const nItem = n.list[nStart + i];
    const bItem = b.list[bStart + i];
    const name = n.names[nStart + i];
    const output = name.includes('.output.');
    const consistent = pyEquals(nItem.get('requires_grad') ?? null, bItem.get('requires_grad') ?? null);
    if (mode === 'md5') {
      const md5N = n.structs[struct][i].get('md5') ?? null;
      const md5B = b.structs[struct][i].get('md5') ?? null;
      out.push({ name, output, columnNames: MD5_COLUMNS, values: [pyEquals(md5N, md5B) ? 'pass' : 'Different', consistent] });
    } else if (mode === 'summary') {
      const values: PyValue[] = new Array(9);
      const index: Array<number | bigint> = new Array(5);
      summaryValues(nItem, bItem, values, index);
      values[8] = consistent;
      // str2float of a bool is 0
      index[4] = 0n;
      out.push({ name, output, columnNames: SUMMARY_COLUMNS, values, index });
    } else {
      out.push({
        name,
        output,
        columnNames: REAL_COLUMNS,
        values: realPlaceholderValues(consistent),
        npuDataName: nItem.get('data_name') ?? null,
        benchDataName: bItem.get('data_name') ?? null,
      });
    }
  }
  // Extra NPU items get a row with "Nan" bench cells; msprobe builds it with one blank too few in summary and
  // real mode, so the NPU Max/Min land in MeanRelativeErr/NormRelativeErr and "" in Requires_grad Consistent.
  for (let i = bLen; i < nLen; i++) {
    const nItem = n.list[nStart + i];
    const name = n.names[nStart + i];
    const output = name.includes('.output.');
    if (mode === 'md5') {
      out.push({ name, output, columnNames: MD5_COLUMNS, values: ['Nan', false] });
    } else if (mode === 'summary') {
      const s = stats(nItem);
      out.push({ name, output, columnNames: SUMMARY_COLUMNS, values: [' ', ' ', ' ', ' ', ' ', ' ', s[0], s[1], ''] });
    } else {
      out.push({
        name,
        output,
        columnNames: REAL_COLUMNS,
        values: realPlaceholderValues(false),
        npuDataName: nItem.get('data_name') ?? null,
        benchDataName: '-1',
      });
    }
  }
}

function realPlaceholderValues(consistent: boolean): PyValue[] {
  return [' ', ' ', ' ', ' ', ' ', ' ', consistent];
}

/** All compare rows of a matched pair, in msprobe's window order (inputs, params, outputs, params-grad). */
export function compareRows(nodeN: GraphNode, nodeB: GraphNode, mode: DumpMode): CompareRow[] {
  const n = merge(nodeN);
  const out: CompareRow[] = [];
  if (n.list.length === 0) return out;
  const b = merge(nodeB);
  const nIn = n.structs[INPUT].length;
  const nOut = n.structs[OUTPUT].length;
  const nPar = n.structs[PARAMS].length;
  const bIn = b.structs[INPUT].length;
  const bOut = b.structs[OUTPUT].length;
  const bPar = b.structs[PARAMS].length;
  rowsForWindow(out, mode, n, b, INPUT, 0, 0);
  rowsForWindow(out, mode, n, b, PARAMS, nIn + nOut, bIn + bOut);
  rowsForWindow(out, mode, n, b, OUTPUT, nIn, bIn);
  rowsForWindow(out, mode, n, b, PARAMS_GRAD, nIn + nOut + nPar, bIn + bOut + bPar);
  return out;
}
