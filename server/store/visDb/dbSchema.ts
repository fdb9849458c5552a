import type Database from 'better-sqlite3';
import { GraphFileError } from '../graphStore.js';

/**
 * Which `.vis.db` schema a file has (msprobe-format.md §4.2): v2 (2025-09+) keeps stacks in `tb_stack` behind
 * `stack_id`; v1 (2025-07-30 → 2025-09-01) has an inline `stack_info` column. Anything else is refused with one
 * message naming what is missing. Optional columns read as NULL when absent, so older writers still open.
 */

const REQUIRED_NODE_COLUMNS = ['node_name', 'node_order', 'node_type', 'up_node', 'data_source', 'step', 'rank'];
const OPTIONAL_NODE_COLUMNS = [
  'sub_nodes',
  'precision_index',
  'overflow_level',
  'micro_step_id',
  'matched_node_link',
  'parallel_merge_info',
  'matched_distributed',
  'input_data',
  'output_data',
] as const;
const REQUIRED_CONFIG_COLUMNS = ['graph_type'];
const OPTIONAL_CONFIG_COLUMNS = ['task', 'tool_tip', 'micro_steps', 'overflow_check', 'node_colors', 'rank_list', 'step_list'] as const;

export type NodeColumn = (typeof OPTIONAL_NODE_COLUMNS)[number];
export type ConfigColumn = (typeof OPTIONAL_CONFIG_COLUMNS)[number];

export interface DbSchema {
  version: 1 | 2;
  /** `n.<column>` or `NULL` for an optional tb_nodes column. */
  node(column: NodeColumn): string;
  config(column: ConfigColumn): string;
  /** FROM clause joining the stack (v2) and the expression of its JSON text. */
  stackJoin: string;
  stackText: string;
  /** msprobe's index6 (step, rank, modified, matched_node_link) under its name, when the file has it (§4.2). */
  linkIndex: string | null;
}

export function readSchema(db: Database.Database, relPath: string): DbSchema {
  const unknown = (what: string) =>
    new GraphFileError(relPath, `unknown .vis.db schema: ${what} (probeboard reads msprobe's v1 and v2, msprobe-format.md §4.2)`);
  const columns = (table: string) =>
    new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((r) => r.name));
  const tables = new Set(
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
  );
  for (const t of ['tb_nodes', 'tb_config']) if (!tables.has(t)) throw unknown(`no table ${t}`);
  const nodeCols = columns('tb_nodes');
  for (const c of REQUIRED_NODE_COLUMNS) if (!nodeCols.has(c)) throw unknown(`table tb_nodes has no column "${c}"`);
  const configCols = columns('tb_config');
  for (const c of REQUIRED_CONFIG_COLUMNS) if (!configCols.has(c)) throw unknown(`table tb_config has no column "${c}"`);

  let version: 1 | 2;
  let stackJoin = 'tb_nodes n';
  let stackText = 'NULL';
  if (nodeCols.has('stack_id') && tables.has('tb_stack')) {
    const stackCols = columns('tb_stack');
    if (!stackCols.has('id') || !stackCols.has('stack_info')) throw unknown('table tb_stack has no id / stack_info columns');
    version = 2;
    // LEFT JOIN: a node whose stack row is missing still opens (the reference viewer's inner join hides it).
    stackJoin = 'tb_nodes n LEFT JOIN tb_stack s ON s.id = n.stack_id';
    stackText = 's.stack_info';
  } else if (nodeCols.has('stack_info')) {
    version = 1;
    stackText = 'n.stack_info';
  } else {
    throw unknown('tb_nodes has neither stack_id (with tb_stack) nor stack_info');
  }
  return {
    version,
    node: (c) => (nodeCols.has(c) ? `n.${c}` : 'NULL'),
    config: (c) => (configCols.has(c) ? c : 'NULL'),
    stackJoin,
    stackText,
    linkIndex: linkIndexOf(db),
  };
}

/** An index of tb_nodes on exactly (step, rank, modified, matched_node_link), as msprobe writes index6. */
function linkIndexOf(db: Database.Database): string | null {
  const indexes = db.prepare("SELECT name FROM pragma_index_list('tb_nodes')").pluck().all() as string[];
  for (const name of indexes) {
    const cols = db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(name) as string[];
    if (cols.join() === 'step,rank,modified,matched_node_link' && /^\w+$/.test(name)) return name;
  }
  return null;
}
