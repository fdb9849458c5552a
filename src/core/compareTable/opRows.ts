import { readOpItems } from '../formats/dumpItems.js';
import type { PyValue } from '../formats/pyJson.js';
import { pyStr } from '../formats/pyFormat.js';
import type { RawItem } from '../model/graph.js';

/**
 * One dump.json entry → the rows it contributes to the compare table (msprobe-compare.md §2.2–§2.4): the graph
 * side's item flattening (`read_op` is shared by both commands), then the table's own reordering and `str()` forms.
 */

export type RowState = 'input' | 'parameters' | 'output' | 'parameters_grad' | 'debug';

export interface OpRow {
  /** `full_op_name`: data_name minus its extension when there is a file, else the constructed name. */
  name: string;
  /** `str(dtype)`, `str(shape)` as pandas `astype(str)` makes them. */
  dtype: string;
  shape: string;
  /** Max, Min, Mean, Norm as parsed (bigint = int); a missing statistic is the string "None". */
  stats: [PyValue, PyValue, PyValue, PyValue];
  /** "True"/"False" (JSON booleans are stringified), null when absent. */
  requiresGrad: string | null;
  state: RowState;
  dataName: string;
  /** null for a `None` argument (no descriptor). */
  md5: string | null;
  /** torch.distributed.P2POp fields (first-diff analysis only); null when absent. */
  p2pOp: PyValue;
  p2pPeer: PyValue;
}

const STATE_RANK: Record<RowState, number> = { input: 0, debug: 0, parameters: 1, output: 2, parameters_grad: 3 };
const STAT_KEYS = ['Max', 'Min', 'Mean', 'Norm'] as const;

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * `X.debug` entries (debug.json) are parsed whole under the key itself. The shared flattener has no such mode, so
 * the value is flattened as an `output` field and the `.output` infix taken back out of the constructed names.
 */
function debugItems(entry: PyValue, key: string, file: string): RawItem[] {
  const items = readOpItems(new Map([['output', entry]]), key, file);
  const prefix = `${key}.output`;
  for (const item of items) {
    const name = item.get('full_op_name');
    if (typeof name === 'string' && (name === prefix || name.startsWith(prefix + '.'))) {
      item.set('full_op_name', key + name.slice(prefix.length));
    }
    item.set('state', 'debug');
  }
  return items;
}

function toRow(item: RawItem): OpRow {
  const stats = STAT_KEYS.map((k) => {
    const v = item.get(k);
    return v === null || v === undefined ? 'None' : v;
  }) as OpRow['stats'];
  const rg = item.get('requires_grad');
  const md5 = item.get('md5');
  const dataName = item.get('data_name');
  return {
    name: pyStr(item.get('full_op_name') ?? null),
    dtype: pyStr(item.get('dtype') ?? null),
    shape: pyStr(item.get('shape') ?? null),
    stats,
    requiresGrad: rg === null || rg === undefined ? null : pyStr(rg),
    state: (item.get('state') as RowState) ?? 'input',
    dataName: typeof dataName === 'string' ? dataName : '-1',
    md5: md5 === null || md5 === undefined ? null : pyStr(md5),
    p2pOp: item.has('op') ? item.get('op')! : null,
    p2pPeer: item.has('peer') ? item.get('peer')! : null,
  };
}

/** The rows of one API/module entry in table order: inputs (and kwargs, debug), parameters, outputs, grads. */
export function opRows(apiKey: string, entry: PyValue, file = 'dump.json'): OpRow[] {
  const items = lastSegment(apiKey) === 'debug' ? debugItems(entry, apiKey, file) : readOpItems(entry, apiKey, file);
  const rows = items.map(toRow);
  // A stable partition by state (msprobe reorder_op_x_list): Array.prototype.sort is stable.
  return rows.sort((a, b) => STATE_RANK[a.state] - STATE_RANK[b.state]);
}
