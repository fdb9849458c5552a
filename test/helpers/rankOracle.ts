import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { parsePyJson } from '../../src/core/formats/pyJson.js';

/**
 * The heatmap's cells computed from a file the slow, obvious way (issue 14): walk the tree (up_node in a `.vis.db`,
 * subnodes in a `.vis`) from every node to the root child above it and keep the worst precision_index.
 */

/** Root child → worst value in its subtree (null = none), for one rank. */
export type RankCells = Map<string, number | null>;

/** rank → cells (root children in execution order), for step 0 of a `.vis.db`'s NPU side. */
export function dbOracle(file: string, worst: 'high' | 'low' = 'high'): Map<number, RankCells> {
  const db = new Database(file, { readonly: true });
  const rows = db
    .prepare("SELECT rank, node_name, up_node, precision_index AS p FROM tb_nodes WHERE step = 0 AND data_source = 'NPU' ORDER BY rank, node_order")
    .all() as Array<{ rank: number; node_name: string; up_node: string; p: number | null }>;
  db.close();
  const out = new Map<number, RankCells>();
  for (const rank of [...new Set(rows.map((r) => r.rank))].sort((a, b) => a - b)) {
    const mine = rows.filter((r) => r.rank === rank);
    const up = new Map(mine.map((r) => [r.node_name, r.up_node]));
    const root = mine.find((r) => r.up_node === '')!.node_name;
    const cells: RankCells = new Map(mine.filter((r) => r.up_node === root).map((r) => [r.node_name, null]));
    for (const r of mine) {
      let top = r.node_name;
      while (up.has(top) && up.get(top) !== root && up.get(top) !== '') top = up.get(top)!;
      if (up.get(top) !== root || typeof r.p !== 'number') continue;
      const old = cells.get(top)!;
      if (old === null || (worst === 'high' ? r.p > old : r.p < old)) cells.set(top, r.p);
    }
    out.set(rank, cells);
  }
  return out;
}

/** Cells of one `.vis` (NPU side, worst = highest). */
export function visOracle(file: string): RankCells {
  const doc = parsePyJson(readFileSync(file, 'utf8')) as Record<string, any>;
  const nodes = doc.NPU.node as Record<string, any>;
  const cells: RankCells = new Map();
  const walk = (id: string, top: string) => {
    const v = nodes[id]?.data?.precision_index;
    const old = cells.get(top) ?? null;
    if (typeof v === 'number' && Number.isFinite(v) && (old === null || v > old)) cells.set(top, v);
    for (const c of nodes[id]?.subnodes ?? []) walk(c, top);
  };
  for (const top of nodes[doc.NPU.root].subnodes as string[]) {
    cells.set(top, null);
    walk(top, top);
  }
  return cells;
}
