// Writes a `.vis.db` of the current schema (v2 with tb_stack, msprobe-format.md §4.2): one graph per
// (step, rank, side), rows in post-order (`node_order`), JSON columns as Python's json.dumps writes them, the six
// indexes at the end, and the file left in WAL mode as msprobe leaves it (its header says WAL; no -wal file remains).
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { COLORS, NodeContent } from './content.mjs';

const DDL = [
  `CREATE TABLE IF NOT EXISTS tb_nodes (
    id TEXT PRIMARY KEY, graph_id TEXT NOT NULL, node_order INTEGER NOT NULL, node_name TEXT NOT NULL,
    node_type TEXT NOT NULL, up_node TEXT, sub_nodes TEXT, precision_index INTEGER, overflow_level TEXT,
    micro_step_id INTEGER NOT NULL, matched_node_link TEXT, stack_id TEXT, parallel_merge_info TEXT,
    matched_distributed TEXT, modified INTEGER NOT NULL, input_data TEXT, output_data TEXT, data_source TEXT,
    dump_data_dir TEXT, step INTEGER NOT NULL, rank INTEGER NOT NULL)`,
  'CREATE TABLE IF NOT EXISTS tb_stack (id TEXT PRIMARY KEY, stack_info TEXT)',
  `CREATE TABLE IF NOT EXISTS tb_config (
    id TEXT PRIMARY KEY, graph_type TEXT NOT NULL, task TEXT, tool_tip TEXT, micro_steps INTEGER,
    overflow_check INTEGER, node_colors TEXT NOT NULL, rank_list TEXT NOT NULL, step_list TEXT NOT NULL)`,
];
const INDEXES = [
  'CREATE INDEX IF NOT EXISTS index1 ON tb_nodes (step, rank, data_source, up_node, node_order)',
  'CREATE INDEX IF NOT EXISTS index2 ON tb_nodes (step, rank, data_source, node_name)',
  'CREATE INDEX IF NOT EXISTS index3 ON tb_nodes (step, rank, data_source, node_order)',
  'CREATE INDEX IF NOT EXISTS index4 ON tb_nodes (step, rank, node_order)',
  'CREATE INDEX IF NOT EXISTS index5 ON tb_nodes (step, rank, micro_step_id, node_order)',
  'CREATE INDEX IF NOT EXISTS index6 ON tb_nodes (step, rank, modified, matched_node_link)',
];

/** json.dumps with the default ", " / ": " separators; our strings are ASCII without control characters. */
const dumps = (/** @type {unknown} */ v) => JSON.stringify(v).replace(/","/g, '", "').replace(/":"/g, '": "').replace(/":\{/g, '": {').replace(/"\},"/g, '"}, "');
const strList = (/** @type {string[]} */ l) => (l.length === 0 ? '[]' : `["${l.join('", "')}"]`);

/** @param {Array<[string, Array<[string, string]>]>} items */
function itemsJson(items) {
  if (items.length === 0) return '{}';
  return `{${items.map(([k, pairs]) => `"${k}": {${pairs.map(([a, b]) => `"${a}": ${JSON.stringify(b)}`).join(', ')}}`).join(', ')}}`;
}

/**
 * @param {string} file
 * @param {import('./tree.mjs').Tree} tree
 * @param {{ compare: boolean, seed: number, microSteps: number, microOf: (node: number) => number | null,
 *   steps: number[], ranks: number[] }} o
 */
export function writeDbFile(file, tree, o) {
  rmSync(file, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    for (const sql of DDL) db.exec(sql);
    const insertNode = db.prepare(`INSERT INTO tb_nodes VALUES (${Array(21).fill('?').join(', ')})`);
    const insertStack = db.prepare('INSERT INTO tb_stack VALUES (?, ?)');
    const order = tree.postOrder();
    // Micro steps propagate to every node in the db (msprobe-format.md §4.2): inherit from the root child above.
    const micro = new Int32Array(tree.size);
    for (let i = 1; i < tree.size; i++) micro[i] = o.microOf(i) ?? micro[tree.parent[i]];
    const sides = o.compare ? ['NPU', 'Bench'] : ['NPU'];
    const npuMatched = new Uint8Array(tree.size);
    for (const step of o.steps) {
      for (const rank of o.ranks) {
        for (const side of sides) {
          const content = new NodeContent(o.seed + step * 7919 + rank * 104729);
          const npuCompare = o.compare && side === 'NPU';
          // The Bench side links the nodes the NPU side matched (msprobe-format.md §3.2: one list on both sides).
          if (npuCompare) npuMatched.fill(0);
          const graphId = `${side}_${step}_${rank}`;
          /** @type {Map<string, string>} */
          const stacks = new Map();
          const rows = () => {
            for (let k = 0; k < order.length; k++) {
              const i = order[k];
              const id = tree.ids[i];
              const leaf = tree.childCount[i] === 0;
              const precision = npuCompare && i > 0 ? content.precision() : null;
              const matched = !o.compare || i === 0 || (npuCompare ? precision !== null : npuMatched[i] === 1);
              if (npuCompare && matched) npuMatched[i] = 1;
              const stackText = strList(leaf && i > 0 ? content.stack().map((s) => JSON.stringify(s).slice(1, -1)) : []);
              let stackId = stacks.get(stackText);
              if (stackId === undefined) stacks.set(stackText, (stackId = `${graphId}_${stacks.size}`));
              /** @type {Array<[string, Array<[string, string]>]>} */
              const inputs = i === 0 ? [] : [[`${id}.input.0`, content.item(npuCompare)]];
              if (leaf && i > 0) inputs.push([`${id}.input.1`, content.item(npuCompare)]);
              /** @type {Array<[string, Array<[string, string]>]>} */
              const outputs = i === 0 ? [] : [[`${id}.output.0`, content.item(npuCompare)]];
              const kids = tree.children(i).map((c) => tree.ids[c]);
              insertNode.run(
                `${graphId}_${id}`,
                graphId,
                k,
                id,
                String(tree.type[i]),
                i === 0 ? '' : tree.ids[tree.parent[i]],
                kids.length === 0 ? '' : strList(kids),
                // SQLite has no NaN: msprobe's NaN precision lands as NULL.
                precision === null || Number.isNaN(precision) ? null : precision,
                null,
                micro[i],
                o.compare && matched ? strList([...tree.pathOf(i), id]) : '[]',
                stackId,
                '',
                '{}',
                0,
                itemsJson(inputs),
                itemsJson(outputs),
                side,
                null,
                step,
                rank,
              );
            }
            for (const [text, id] of stacks) insertStack.run(id, text);
          };
          db.transaction(rows)();
        }
      }
    }
    const colors = o.compare
      ? dumps(Object.fromEntries(COLORS.map(([c, value, description]) => [c, { value, description }])))
      : 'null';
    db.prepare('INSERT OR IGNORE INTO tb_config VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      '1',
      o.compare ? 'compare' : 'build',
      o.compare ? 'summary' : '',
      o.compare ? dumps({ 'Max diff': 'NPU vs bench: difference of the maxima' }) : null,
      o.microSteps,
      0,
      colors,
      `[${o.ranks.join(', ')}]`,
      `[${o.steps.join(', ')}]`,
    );
    for (const sql of INDEXES) db.exec(sql);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}
