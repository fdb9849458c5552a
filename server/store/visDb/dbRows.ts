import type { IoItem, NodeDetail, NodeSummary } from '../../../src/core/api/types.js';
import { parseJsonFast } from '../../../src/core/formats/pyJson.js';
import { MAX_BUILT_DEPTH } from '../visJsonIndex/cappedJson.js';
import { ioItems, matchedNodeLink, stringList, toFiniteNumber, toInt } from '../visJson/nodeRecord.js';
import type { DbSchema } from './dbSchema.js';

/**
 * `tb_nodes` rows → the API's node records, with the `.vis` store's tolerance rules (server/store/visJson/
 * nodeRecord.ts). JSON columns are Python json.dumps text (msprobe-format.md §4.2); one that does not parse reads
 * as empty rather than failing the whole node.
 */

/** What a child list or search result needs; the child count is counted from rows, not from sub_nodes. */
export interface SummaryRow {
  rowid: number;
  node_name: string;
  node_type: unknown;
  precision_index: unknown;
  overflow_level: unknown;
  micro_step_id: unknown;
  matched_node_link: unknown;
  child_count: number;
}

export interface DetailRow extends SummaryRow {
  up_node: string | null;
  input_data: unknown;
  output_data: unknown;
  stack_text: unknown;
  parallel_merge_info: unknown;
  matched_distributed: unknown;
}

/** SELECT list of a SummaryRow from `tb_nodes n` (the child count uses index1). */
export function summaryColumns(schema: DbSchema): string {
  return [
    'n.rowid AS rowid',
    'n.node_name AS node_name',
    'n.node_type AS node_type',
    `${schema.node('precision_index')} AS precision_index`,
    `${schema.node('overflow_level')} AS overflow_level`,
    `${schema.node('micro_step_id')} AS micro_step_id`,
    `${schema.node('matched_node_link')} AS matched_node_link`,
    `(SELECT count(*) FROM tb_nodes c WHERE c.step = n.step AND c.rank = n.rank AND c.data_source = n.data_source
      AND c.up_node = n.node_name) AS child_count`,
  ].join(', ');
}

export function detailColumns(schema: DbSchema): string {
  return [
    summaryColumns(schema),
    'n.up_node AS up_node',
    `${schema.node('input_data')} AS input_data`,
    `${schema.node('output_data')} AS output_data`,
    `${schema.stackText} AS stack_text`,
    `${schema.node('parallel_merge_info')} AS parallel_merge_info`,
    `${schema.node('matched_distributed')} AS matched_distributed`,
  ].join(', ');
}

/**
 * A row whose node cannot be named: damaged pages or a hand-made file. Thrown as a plain Error that the store's
 * guard turns into "the database is damaged: …" naming the file.
 */
export class DamagedRowError extends Error {
  override name = 'DamagedRowError';
}

/** A row read by rowid; a rowid that an index lists but the table does not hold is damage. */
export function foundRow<T>(row: T | undefined, rowid: number): T {
  if (row === undefined || row === null) throw new DamagedRowError(`tb_nodes row ${rowid} is listed by an index but missing`);
  return row;
}

/** node_name / up_node as text: msprobe writes TEXT; an integer is read as its digits, anything else is damage. */
export function nameText(v: unknown, what: string, rowid: number): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  throw new DamagedRowError(`tb_nodes row ${rowid} has ${v === null ? 'no' : `a ${typeof v === 'object' ? 'binary' : typeof v}`} ${what}`);
}

export function rowSummary(r: SummaryRow): NodeSummary {
  return {
    id: nameText(r.node_name, 'node_name', r.rowid),
    nodeType: toInt(r.node_type) ?? 0,
    precisionIndex: toFiniteNumber(r.precision_index),
    overflowLevel: typeof r.overflow_level === 'string' ? r.overflow_level : null,
    matchedNodeLink: matchedNodeLink(json(r.matched_node_link)),
    childCount: toInt(r.child_count) ?? 0,
    microStepId: toInt(r.micro_step_id),
  };
}

/** A row's `input_data` / `output_data` cell as items. */
export function rowItems(cell: unknown): Record<string, IoItem> {
  return ioItems(json(cell));
}

export function rowDetail(r: DetailRow, side: NodeDetail['side'], path: string[]): NodeDetail {
  const distributed = json(r.matched_distributed);
  const emptyDistributed =
    distributed === undefined ||
    distributed === null ||
    (typeof distributed === 'object' && Object.keys(distributed as object).length === 0);
  return {
    ...rowSummary(r),
    side,
    upnode: path.length > 0 ? path[path.length - 1] : null,
    path,
    inputData: ioItems(json(r.input_data)),
    outputData: ioItems(json(r.output_data)),
    stackInfo: stringList(json(r.stack_text)),
    // msprobe's db carries no suggestions (msprobe-format.md §4.2, "Nothing else").
    suggestions: {},
    parallelMergeInfo: stringList(json(r.parallel_merge_info)),
    // `{}` is msprobe's "none" in the db; the JSON era omits the key instead.
    matchedDistributed: emptyDistributed ? null : distributed,
  };
}

/** A JSON column's value; damaged text (or nesting past what a browser answer can hold) reads as absent. */
function json(v: unknown): unknown {
  if (typeof v !== 'string' || v === '') return undefined;
  try {
    return parseJsonFast(v, { maxDepth: MAX_BUILT_DEPTH });
  } catch {
    return undefined;
  }
}
