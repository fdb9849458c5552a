import type { PyValue } from '../formats/pyJson.js';
import { pyStr } from '../formats/pyFormat.js';
import { PyFloat, type JsonTree } from '../formats/pyJsonWrite.js';
import type { TableMode } from './columns.js';
import type { TableRow } from './highlight.js';
import type { SideTable } from './sideTable.js';
import type { StackTable } from './stackTable.js';
import type { Cell } from './statCells.js';

/**
 * `-da` step 1 (msprobe-compare.md §8, `FirstDiffAnalyze`): the statistics table of one rank grouped per API into
 * `{is_same, op_items}`, written as `compare_result_rank{n}_{ts}.json`. An API differs when one of its output rows
 * (outputs listed in msprobe's ignore_op_list.yaml excepted) has a relative error above 50 % (md5: `Different`).
 */

/** msprobe `diff_analyze/ignore_op_list.yaml`: API name → output indices that may differ. */
const IGNORED_OUTPUTS: Record<string, number[]> = { npu_fusion_attention: [4, 5] };
const RELATIVE_COLUMNS = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'];
const THRESHOLD = 0.5;

export interface ApiCheck {
  isSame: boolean;
  /** One object per table row, keys in column order plus state, api_origin_name and the P2POp fields. */
  opItems: Map<string, JsonTree>[];
}

function jsonCell(v: Cell): JsonTree {
  return typeof v === 'number' ? new PyFloat(v) : v;
}

function jsonStat(v: PyValue): JsonTree {
  if (typeof v === 'number') return v !== v ? 'Nan' : new PyFloat(v);
  return v as JsonTree;
}

function ignoredOutput(row: TableRow, npuName: string): boolean {
  const api = row.apiKey.split('.')[1] ?? '';
  const list = IGNORED_OUTPUTS[api];
  if (!list) return false;
  const at = npuName.indexOf('.output.');
  const index = at < 0 ? NaN : Number(npuName.slice(at + 8).split('.')[0]);
  return list.includes(index);
}

function relativeExceeds(v: Cell): boolean {
  if (typeof v !== 'string' || !v.endsWith('%')) return false;
  const body = v.slice(0, -1).trim().toLowerCase();
  const x = body === 'inf' || body === 'infinity' ? Infinity : body === '-inf' ? -Infinity : Number(body);
  return x / 100 > THRESHOLD;
}

/** Builds one API's entry from its batch of table rows. */
export function checkApi(
  rows: TableRow[],
  header: string[],
  mode: TableMode,
  npu: SideTable,
  bench: SideTable,
  stacks: StackTable | null,
): ApiCheck {
  const stackAt = header.indexOf('NPU_Stack_Info');
  const statAt = new Map(['NPU max', 'NPU min', 'NPU mean', 'NPU l2norm'].map((h, k) => [header.indexOf(h), k]));
  const benchStatAt = new Map(['Bench max', 'Bench min', 'Bench mean', 'Bench l2norm'].map((h, k) => [header.indexOf(h), k]));
  let isSame = true;
  const opItems = rows.map((row) => {
    const item = new Map<string, JsonTree>();
    header.forEach((h, c) => {
      let v: JsonTree = jsonCell(row.cells[c]);
      // Statistics keep their Python type (an int stays an int in JSON), the stack its list form.
      if (statAt.has(c)) v = jsonStat(npu.stat(row.npu, statAt.get(c)!));
      else if (benchStatAt.has(c) && row.bench >= 0) v = jsonStat(bench.stat(row.bench, benchStatAt.get(c)!));
      else if (c === stackAt) {
        const stack = npu.isFirstOfApi(row.npu) ? stacks?.list(npu.apiIndex(row.npu)) : null;
        v = stack === undefined || stack === null ? 'N/A' : (stack as JsonTree);
      }
      item.set(h, v);
    });
    const [npuOp, npuPeer] = npu.p2p(row.npu);
    const [benchOp, benchPeer] = row.bench >= 0 ? bench.p2p(row.bench) : [null, null];
    item.set('state', row.state);
    item.set('api_origin_name', row.apiKey);
    item.set('NPU P2POp op', pyStr(npuOp));
    item.set('Bench P2POp op', pyStr(benchOp));
    item.set('NPU P2POp peer', pyStr(npuPeer));
    item.set('Bench P2POp peer', pyStr(benchPeer));
    if (mode === 'md5') {
      if (row.cells[header.indexOf('Result')] === 'Different') isSame = false;
    } else if (row.state === 'output' && !ignoredOutput(row, String(row.cells[0]))) {
      for (const col of RELATIVE_COLUMNS) if (relativeExceeds(row.cells[header.indexOf(col)])) isSame = false;
    }
    return item;
  });
  return { isSame, opItems };
}

/** The `compare_result_rank{n}_{ts}.json` tree: API key → {is_same, op_items}. */
export function checksJson(checks: ReadonlyMap<string, ApiCheck>): JsonTree {
  const out = new Map<string, JsonTree>();
  for (const [api, c] of checks) {
    out.set(api, new Map<string, JsonTree>([
      ['is_same', c.isSame],
      ['op_items', c.opItems],
    ]));
  }
  return out;
}
