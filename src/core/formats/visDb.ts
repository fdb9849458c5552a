import type { Graph, GraphNode } from '../model/graph.js';
import { itemsJsonText } from './itemFormat.js';
import type { PyValue } from './pyJson.js';
import { pyStr } from './pyFormat.js';
import { knownJsonString, listJson, pyJsonDumps, type JsonTree } from './pyJsonWrite.js';

/**
 * The `.vis.db` content of the current era (msprobe-format.md §4.2, schema v2 with `tb_stack`): the DDL text
 * msprobe uses (so `sqlite_master` reads the same) and the rows of one graph. Pure; server/graph writes them.
 */

const NODE_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'TEXT PRIMARY KEY'],
  ['graph_id', 'TEXT NOT NULL'],
  ['node_order', 'INTEGER NOT NULL'],
  ['node_name', 'TEXT NOT NULL'],
  ['node_type', 'TEXT NOT NULL'],
  ['up_node', 'TEXT'],
  ['sub_nodes', 'TEXT'],
  ['precision_index', 'INTEGER'],
  ['overflow_level', 'TEXT'],
  ['micro_step_id', 'INTEGER NOT NULL'],
  ['matched_node_link', 'TEXT'],
  ['stack_id', 'TEXT'],
  ['parallel_merge_info', 'TEXT'],
  ['matched_distributed', 'TEXT'],
  ['modified', 'INTEGER NOT NULL'],
  ['input_data', 'TEXT'],
  ['output_data', 'TEXT'],
  ['data_source', 'TEXT'],
  ['dump_data_dir', 'TEXT'],
  ['step', 'INTEGER NOT NULL'],
  ['rank', 'INTEGER NOT NULL'],
];
const STACK_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'TEXT PRIMARY KEY'],
  ['stack_info', 'TEXT'],
];
const CONFIG_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['id', 'TEXT PRIMARY KEY'],
  ['graph_type', 'TEXT NOT NULL'],
  ['task', 'TEXT'],
  ['tool_tip', 'TEXT'],
  ['micro_steps', 'INTEGER'],
  ['overflow_check', 'INTEGER'],
  ['node_colors', 'TEXT NOT NULL'],
  ['rank_list', 'TEXT NOT NULL'],
  ['step_list', 'TEXT NOT NULL'],
];
const INDEXES: ReadonlyArray<readonly [string, string[]]> = [
  ['index1', ['step', 'rank', 'data_source', 'up_node', 'node_order']],
  ['index2', ['step', 'rank', 'data_source', 'node_name']],
  ['index3', ['step', 'rank', 'data_source', 'node_order']],
  ['index4', ['step', 'rank', 'node_order']],
  ['index5', ['step', 'rank', 'micro_step_id', 'node_order']],
  ['index6', ['step', 'rank', 'modified', 'matched_node_link']],
];

function createTable(name: string, columns: ReadonlyArray<readonly [string, string]>): string {
  return `CREATE TABLE IF NOT EXISTS ${name} (\n${columns.map(([c, t]) => `    ${c} ${t}`).join(',\n')}\n);`;
}

/**
 * Node columns that only ever hold text (ids, names, JSON texts). Their values may be bound as the text's UTF-8
 * bytes: the insert casts them to TEXT (SQLite reads a blob cast to text in the database's encoding, UTF-8), so the
 * file holds the same text either way, and a writer thread handed rows as bytes need not make strings of them.
 */
export const NODE_TEXT_COLUMNS: ReadonlySet<string> = new Set([
  'id',
  'graph_id',
  'node_name',
  'node_type',
  'up_node',
  'sub_nodes',
  'overflow_level',
  'matched_node_link',
  'stack_id',
  'parallel_merge_info',
  'matched_distributed',
  'input_data',
  'output_data',
  'data_source',
]);
/** `NODE_TEXT_COLUMNS` by position in a `DbNodeRow`. */
export const NODE_TEXT_AT: readonly boolean[] = NODE_COLUMNS.map(([c]) => NODE_TEXT_COLUMNS.has(c));

function insert(name: string, columns: ReadonlyArray<readonly [string, string]>, orIgnore = false, textBytes?: ReadonlySet<string>): string {
  const cols = columns.map(([c]) => c);
  const params = cols.map((c) => (textBytes?.has(c) ? 'CAST(? AS TEXT)' : '?'));
  return `INSERT ${orIgnore ? 'OR IGNORE ' : ''}INTO ${name} (${cols.join(', ')}) VALUES (${params.join(', ')})`;
}

export const VIS_DB_SQL = {
  createNodes: createTable('tb_nodes', NODE_COLUMNS),
  createStack: createTable('tb_stack', STACK_COLUMNS),
  createConfig: createTable('tb_config', CONFIG_COLUMNS),
  insertNode: insert('tb_nodes', NODE_COLUMNS, false, NODE_TEXT_COLUMNS),
  insertStack: insert('tb_stack', STACK_COLUMNS),
  // The first export's config wins: every later graph of the run inserts the same row again.
  insertConfig: insert('tb_config', CONFIG_COLUMNS, true),
  createIndexes: INDEXES.map(([name, cols]) => `CREATE INDEX IF NOT EXISTS ${name} ON tb_nodes (${cols.join(', ')});`),
} as const;

/** Values in column order; the writer binds them positionally. */
export type DbNodeRow = [
  id: string,
  graph_id: string,
  node_order: number,
  node_name: string,
  node_type: string,
  up_node: string,
  sub_nodes: string,
  precision_index: number | null,
  overflow_level: string | null,
  micro_step_id: number,
  matched_node_link: string,
  stack_id: string,
  parallel_merge_info: string,
  matched_distributed: string,
  modified: number,
  input_data: string,
  output_data: string,
  data_source: string,
  dump_data_dir: string | number | null,
  step: number,
  rank: number,
];
export type DbStackRow = [id: string, stack_info: string];
export type DbConfigRow = [
  id: string,
  graph_type: string,
  task: string,
  tool_tip: string | null,
  micro_steps: number,
  overflow_check: number,
  node_colors: string,
  rank_list: string,
  step_list: string,
];

export type DataSource = 'NPU' | 'Bench';

export interface GraphRowsOptions {
  source: DataSource;
  step: number;
  rank: number;
  /** md5 compare keeps `md5` in items. */
  md5Mode: boolean;
}

export interface GraphRows {
  nodes: DbNodeRow[];
  stacks: DbStackRow[];
}

/**
 * `node_to_db`: one row per node reachable from the root, in post-order (`node_order`), handed to `onNode` as it is
 * made (a graph's rows never sit in memory together). Returns the stack rows, deduplicated per graph in
 * first-seen order. Orphans (unreachable nodes) are not written.
 */
export function forEachGraphRow(graph: Graph, opts: GraphRowsOptions, onNode: (row: DbNodeRow) => void): DbStackRow[] {
  const rows = graphRowsOf(graph, opts);
  for (;;) {
    const next = rows.next();
    if (next.done) return [...next.value];
    onNode(next.value);
  }
}

/**
 * `forEachGraphRow` as a generator of the node rows; its return value gives the stack rows, each stack's JSON text
 * made only as that row is taken: a graph whose every API has a stack of its own (issue 19) never holds all their
 * texts at once.
 */
export function* graphRowsOf(graph: Graph, opts: GraphRowsOptions): Generator<DbNodeRow, Iterable<DbStackRow>> {
  const graphId = `${opts.source}_${opts.step}_${opts.rank}`;
  const itemOpts = { era: 'db' as const, md5Mode: opts.md5Mode };
  // Equal stacks share one row. They are told apart by their frames' numbers (stack.json's frames are interned
  // strings, stackJson.ts), and nodes share stack arrays (backward twins): each array's key is made once.
  const stackIds = new Map<string, string>();
  const stackKeys = new Map<string[], string>();
  const frameIds = new Map<string, number>();
  const distinctStacks: string[][] = [];
  const dumpDataDir = sqlValue(graph.dumpDataDir);
  const order = postOrder(graph.root);
  // Node ids appear in many rows (every descendant's matched_node_link): their JSON text is made once.
  const idJson = new Map<string, string>();
  for (let i = 0; i < order.length; i++) {
    const node = order[i];
    let stackKey = stackKeys.get(node.stackInfo);
    if (stackKey === undefined) stackKeys.set(node.stackInfo, (stackKey = framesKey(node.stackInfo, frameIds)));
    let stackId = stackIds.get(stackKey);
    if (stackId === undefined) {
      stackIds.set(stackKey, (stackId = `${graphId}_${stackIds.size}`));
      distinctStacks.push(node.stackInfo);
    }
    yield [
      `${graphId}_${node.id}`,
      graphId,
      i,
      node.id,
      String(node.op),
      node.upnode ? node.upnode.id : '',
      node.subnodes.length ? listJson(node.subnodes, (n) => knownJsonString(n.id, idJson), null, 0) : '',
      node.data.precisionIndex ?? null,
      node.data.overflowLevel ?? null,
      node.microStepId ?? 0,
      linkJson(node.matchedNodeLink, idJson),
      stackId,
      node.parallelMergeInfo.length ? pyJsonDumps(node.parallelMergeInfo) : '',
      node.matchedDistributed === null || node.matchedDistributed === undefined ? '{}' : pyJsonDumps(node.matchedDistributed as JsonTree),
      0,
      itemsJsonText(node.inputData, node.id, itemOpts),
      itemsJsonText(node.outputData, node.id, itemOpts),
      opts.source,
      dumpDataDir,
      opts.step,
      opts.rank,
    ];
  }
  return stackRows(graphId, distinctStacks);
}

function* stackRows(graphId: string, stacks: string[][]): Generator<DbStackRow> {
  for (let k = 0; k < stacks.length; k++) yield [`${graphId}_${k}`, pyJsonDumps(stacks[k])];
}

/** A stack's frames as numbers (`3,17,5,`): equal keys, equal lists, without holding the lists' text. */
function framesKey(lines: readonly string[], frameIds: Map<string, number>): string {
  let key = '';
  for (const line of lines) {
    let id = frameIds.get(line);
    if (id === undefined) frameIds.set(line, (id = frameIds.size));
    key += `${id},`;
  }
  return key;
}

/**
 * matched_node_link texts by list: exact matching gives both nodes of a pair one list, so the Bench row reuses the
 * NPU row's text. (Compact JSON depends on nothing but the list; the entries go with the graphs.)
 */
const linkTexts = new WeakMap<readonly string[], string>();

function linkJson(ids: readonly string[], known: Map<string, string>): string {
  if (ids.length === 0) return '[]';
  let text = linkTexts.get(ids);
  if (text === undefined) linkTexts.set(ids, (text = listJson(ids, (id) => knownJsonString(id, known), null, 0)));
  return text;
}

/** `forEachGraphRow` collected into arrays. */
export function graphRows(graph: Graph, opts: GraphRowsOptions): GraphRows {
  const nodes: DbNodeRow[] = [];
  const stacks = forEachGraphRow(graph, opts, (row) => nodes.push(row));
  return { nodes, stacks };
}

export interface ConfigRowOptions {
  compare: boolean;
  /** '' for build runs. */
  task: string;
  toolTip: string | null;
  microSteps: number;
  overflowCheck: boolean;
  /** `node_colors` object (compare) or null (build, written as the JSON text "null"). */
  nodeColors: JsonTree;
  rankList: number[];
  stepList: number[];
}

export function configRow(opts: ConfigRowOptions): DbConfigRow {
  return [
    '1',
    opts.compare ? 'compare' : 'build',
    opts.task,
    opts.toolTip,
    opts.microSteps,
    opts.overflowCheck ? 1 : 0,
    pyJsonDumps(opts.nodeColors),
    pyJsonDumps(opts.rankList),
    pyJsonDumps(opts.stepList),
  ];
}

/** msprobe's `get_sorted_nodes`: children before their parent, each node once. */
export function postOrder(root: GraphNode): GraphNode[] {
  const order: GraphNode[] = [];
  const visited = new Set<string>([root.id]);
  const stack: Array<{ node: GraphNode; next: number }> = [{ node: root, next: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.next < top.node.subnodes.length) {
      const child = top.node.subnodes[top.next++];
      if (!visited.has(child.id)) {
        visited.add(child.id);
        stack.push({ node: child, next: 0 });
      }
    } else {
      stack.pop();
      order.push(top.node);
    }
  }
  return order;
}

/** dump.json's `dump_data_dir` as sqlite stores it (a string, or NULL for statistics dumps). */
function sqlValue(v: PyValue): string | number | null {
  if (v === null || typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return pyStr(v);
}
