import fs from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/**
 * The slice a shard `.vis.db` holds (issue 19), in a table of its own beside msprobe's three
 * (msprobe-format.md §4.2): the original viewer reads only `tb_nodes`, `tb_stack` and `tb_config`, so it opens a
 * shard as an ordinary file of the shard's ranks; `merge` and the server read this table.
 */

export const SHARD_TABLE = 'probeboard_shard';

export interface ShardMeta {
  /** The build key (shards.ts `buildKey`), the same in every shard of one build. */
  build: string;
  kind: 'build' | 'compare';
  /** 0-based shard number and the shard count. */
  shard: number;
  shards: number;
  /** The (step, rank) pairs this shard holds, in build order. */
  pairs: Array<[number, number]>;
  /** Pairs in the whole build. */
  buildPairs: number;
  /** This shard's `tb_config.rank_list` / `step_list`: its own ranks and steps. */
  rankList: number[];
  stepList: number[];
  /** What a single-machine build writes there (`merge` puts them back). */
  buildRankList: number[];
  buildStepList: number[];
}

const COLUMNS = 'build, kind, shard, shards, pairs, build_pairs, rank_list, step_list, build_rank_list, build_step_list';

/** Adds the shard table to a finished (closed) `.vis.db` and fsyncs it again. */
export function writeShardTable(file: string, meta: ShardMeta): void {
  const db = new (sqlite())(file);
  try {
    db.exec(
      `CREATE TABLE ${SHARD_TABLE} (build TEXT NOT NULL, kind TEXT NOT NULL, shard INTEGER NOT NULL, shards INTEGER NOT NULL, ` +
        'pairs TEXT NOT NULL, build_pairs INTEGER NOT NULL, rank_list TEXT NOT NULL, step_list TEXT NOT NULL, ' +
        'build_rank_list TEXT NOT NULL, build_step_list TEXT NOT NULL)',
    );
    db.prepare(`INSERT INTO ${SHARD_TABLE} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      meta.build,
      meta.kind,
      meta.shard,
      meta.shards,
      JSON.stringify(meta.pairs),
      meta.buildPairs,
      JSON.stringify(meta.rankList),
      JSON.stringify(meta.stepList),
      JSON.stringify(meta.buildRankList),
      JSON.stringify(meta.buildStepList),
    );
  } finally {
    db.close();
  }
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The shard table's row, or null when the file has no such table (not a shard). Throws on a malformed row. */
export function readShardTable(db: Database.Database): ShardMeta | null {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(SHARD_TABLE);
  if (!has) return null;
  const rows = db.prepare(`SELECT ${COLUMNS} FROM ${SHARD_TABLE}`).all() as Array<Record<string, unknown>>;
  if (rows.length !== 1) throw new Error(`${SHARD_TABLE} must hold one row, not ${rows.length}`);
  const r = rows[0];
  const int = (k: string): number => {
    const v = r[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${SHARD_TABLE}.${k} is not a whole number`);
    return v;
  };
  const ints = (k: string): number[] => {
    const v: unknown = JSON.parse(String(r[k]));
    if (!Array.isArray(v) || !v.every((n) => Number.isInteger(n))) throw new Error(`${SHARD_TABLE}.${k} is not a list of whole numbers`);
    return v as number[];
  };
  const pairs: unknown = JSON.parse(String(r.pairs));
  if (!Array.isArray(pairs) || !pairs.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => Number.isInteger(n)))) {
    throw new Error(`${SHARD_TABLE}.pairs is not a list of [step, rank]`);
  }
  const kind = r.kind;
  if (kind !== 'build' && kind !== 'compare') throw new Error(`${SHARD_TABLE}.kind is neither build nor compare`);
  return {
    build: String(r.build),
    kind,
    shard: int('shard'),
    shards: int('shards'),
    pairs: pairs as Array<[number, number]>,
    buildPairs: int('build_pairs'),
    rankList: ints('rank_list'),
    stepList: ints('step_list'),
    buildRankList: ints('build_rank_list'),
    buildStepList: ints('build_step_list'),
  };
}

export function sqlite(): typeof Database {
  return (loaded ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database);
}
let loaded: typeof Database | undefined;
