import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Helpers of the sharded-build tests (issue 19): row-for-row file contents and a dump with P2P communication. */

export interface DbRows {
  /** `sqlite_master` (type, name, sql), by name; the shard table left out. */
  schema: unknown[][];
  /** Every row of msprobe's three tables with its rowid and each column's storage class, in rowid order. */
  tables: Record<string, unknown[][]>;
}

export function dbRows(file: string): DbRows {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const schema = db
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE name != 'probeboard_shard' ORDER BY name")
      .raw()
      .all() as unknown[][];
    const tables: Record<string, unknown[][]> = {};
    for (const t of ['tb_nodes', 'tb_stack', 'tb_config']) {
      const cols = (db.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string }>).map((c) => c.name);
      const sql = `SELECT rowid, ${cols.map((c) => `${c}, typeof(${c})`).join(', ')} FROM ${t} ORDER BY rowid`;
      tables[t] = db.prepare(sql).raw().all() as unknown[][];
    }
    return { schema, tables };
  } finally {
    db.close();
  }
}

/** `tb_nodes` rows (without rowid) by id. */
export function nodeRowsById(file: string): Map<string, Record<string, unknown>> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT * FROM tb_nodes').all() as Array<Record<string, unknown>>;
    return new Map(rows.map((r) => [r.id as string, r]));
  } finally {
    db.close();
  }
}

/**
 * Adds a ring of point-to-point sends and receives (rank r sends to r+1, receives from r-1) and a broadcast from
 * rank 0 to every rank directory of a `step{S}/rank{R}` dump (bench/dumpgen writes only all_reduce): in a sharded
 * build the two ends of most of them live in different shards.
 */
export function addP2pRing(npuRoot: string): void {
  const top = fs.readdirSync(npuRoot);
  // `rank{R}` directories alone, or under `step{S}`.
  const stepDirs = top.every((d) => d.startsWith('rank')) ? [npuRoot] : top.map((d) => path.join(npuRoot, d));
  for (const stepDir of stepDirs) {
    const ranks = fs.readdirSync(stepDir);
    const n = ranks.length;
    for (const rankDir of ranks) {
      const r = Number(rankDir.slice(4));
      const dir = path.join(stepDir, rankDir);
      const tensor = { type: 'torch.Tensor', dtype: 'torch.float32', shape: [4, 8], Max: 1.5, Min: -1.25, Mean: 0.125, Norm: 3.0, requires_grad: false };
      const group = { type: 'torch.ProcessGroup', group_ranks: [...Array(n).keys()], group_id: 'ring' };
      const entries: Record<string, unknown> = {
        'Distributed.send.0.forward': { input_args: [tensor], input_kwargs: { dst: { type: 'int', value: (r + 1) % n } }, output: [tensor] },
        'Distributed.recv.0.forward': { input_args: [tensor], input_kwargs: { src: { type: 'int', value: (r + n - 1) % n } }, output: [tensor] },
        'Distributed.broadcast.0.forward': { input_args: [tensor, { type: 'int', value: 0 }], input_kwargs: { group }, output: [tensor] },
      };
      const dumpFile = path.join(dir, 'dump.json');
      // Spliced in as text: `data` is dump.json's last key, and the file may hold Infinity / NaN (msprobe's JSON).
      const text = fs.readFileSync(dumpFile, 'utf8').trimEnd();
      const dataEnd = text.slice(0, -1).trimEnd().length - 1;
      const added = Object.entries(entries).map(([k, v]) => `, ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join('');
      fs.writeFileSync(dumpFile, text.slice(0, dataEnd) + added + text.slice(dataEnd));
      const constructFile = path.join(dir, 'construct.json');
      const construct = JSON.parse(fs.readFileSync(constructFile, 'utf8'));
      for (const k of Object.keys(entries)) construct[k] = null;
      fs.writeFileSync(constructFile, JSON.stringify(construct));
    }
  }
}
