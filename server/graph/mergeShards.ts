import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { VIS_DB_SQL } from '../../src/core/formats/visDb.js';
import { pyJsonDumps } from '../../src/core/formats/pyJsonWrite.js';
import { writeAtomically } from '../atomicFile.js';
import { GraphFileError } from '../store/graphStore.js';
import { idList } from './shards.js';
import { readShardTable, sqlite, type ShardMeta } from './shardMeta.js';
import { outputWriteError } from './outputFiles.js';

/**
 * `probeboard merge`: the shard `.vis.db` files of one `graph --shard` build joined into the file a single-machine
 * build writes (msprobe-format.md §4.2): every shard's rows in shard order, which is the build's order, so row ids
 * and rowids come out the same; `tb_config` from shard 0 (the build's first graph) with the build's rank and step
 * lists; no shard table. Every shard is checked first (readable, intact, of the same build, each slice once); the
 * output is written beside its target and renamed into place, never left partial.
 */

export interface MergeResult {
  file: string;
  shards: number;
  pairs: number;
}

interface Shard {
  file: string;
  meta: ShardMeta;
}

export function mergeShards(files: readonly string[], output: string, opts: { force?: boolean } = {}): MergeResult {
  const target = path.resolve(output);
  const inputs = files.map((f) => path.resolve(f));
  if (fs.existsSync(target)) {
    if (inputs.some((f) => sameFile(f, target))) throw new GraphFileError(target, 'the output is one of the shards to merge.');
    if (!opts.force) throw new GraphFileError(target, 'the output file exists (add --force to replace it).');
  }
  const shards = inputs.map(checkShard);
  checkSet(shards);
  shards.sort((a, b) => a.meta.shard - b.meta.shard);
  const first = shards[0].meta;
  try {
    writeAtomically(target, (_fd, temp) => fill(temp, shards));
  } catch (e) {
    throw outputWriteError(target, e);
  }
  return { file: target, shards: shards.length, pairs: first.buildPairs };
}

function fill(temp: string, shards: Shard[]): void {
  const db = new (sqlite())(temp);
  try {
    // As the graph command writes it (writeDb.ts): 16 KiB pages, no journal while filling, rollback journal after.
    db.pragma('page_size = 16384');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(VIS_DB_SQL.createNodes);
    db.exec(VIS_DB_SQL.createStack);
    db.exec(VIS_DB_SQL.createConfig);
    for (const shard of shards) {
      db.prepare('ATTACH DATABASE ? AS shard').run(shard.file);
      db.exec('BEGIN');
      db.exec('INSERT INTO main.tb_nodes SELECT * FROM shard.tb_nodes ORDER BY rowid');
      db.exec('INSERT INTO main.tb_stack SELECT * FROM shard.tb_stack ORDER BY rowid');
      if (shard.meta.shard === 0) {
        db.exec('INSERT INTO main.tb_config SELECT * FROM shard.tb_config ORDER BY rowid');
        db.prepare("UPDATE main.tb_config SET rank_list = ?, step_list = ? WHERE id = '1'").run(
          pyJsonDumps(shard.meta.buildRankList),
          pyJsonDumps(shard.meta.buildStepList),
        );
      }
      db.exec('COMMIT');
      db.exec('DETACH DATABASE shard');
    }
    for (const sql of VIS_DB_SQL.createIndexes) db.exec(sql);
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** One shard file: a readable, intact `.vis.db` with its shard table, holding exactly the pairs it says. */
function checkShard(file: string): Shard {
  let db: Database.Database;
  try {
    if (!fs.statSync(file).isFile()) throw new Error('not a file');
    db = new (sqlite())(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new GraphFileError(file, `cannot be opened as a .vis.db (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
  }
  try {
    const problem = integrityProblem(db);
    if (problem) throw new GraphFileError(file, `damaged or truncated (${problem}); build this shard again.`);
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name));
    for (const t of ['tb_nodes', 'tb_stack', 'tb_config']) if (!tables.has(t)) throw new GraphFileError(file, `has no ${t} table: not a .vis.db.`);
    let meta: ShardMeta | null;
    try {
      meta = readShardTable(db);
    } catch (e) {
      throw new GraphFileError(file, `its shard record is malformed (${(e as Error).message}).`);
    }
    if (!meta) throw new GraphFileError(file, 'not a shard: it was not written by "probeboard graph --shard K/N".');
    const held = db.prepare('SELECT DISTINCT step, rank FROM tb_nodes').all() as Array<{ step: number; rank: number }>;
    const said = new Set(meta.pairs.map(([s, r]) => `${s}/${r}`));
    if (held.length !== said.size || held.some((p) => !said.has(`${p.step}/${p.rank}`))) {
      throw new GraphFileError(file, `its graphs are not the (step, rank) pairs its shard record lists (truncated or altered); build this shard again.`);
    }
    return { file, meta };
  } catch (e) {
    if (e instanceof GraphFileError) throw e;
    throw new GraphFileError(file, `damaged or truncated (${(e as Error).message}); build this shard again.`);
  } finally {
    db.close();
  }
}

/** SQLite's own check of every page (a file cut short by a killed copy or a full disk); null when intact. */
function integrityProblem(db: Database.Database): string | null {
  const rows = db.pragma('quick_check(1)') as Array<Record<string, unknown>>;
  const first = String(Object.values(rows[0] ?? {})[0] ?? 'no answer');
  return first === 'ok' ? null : first;
}

/** One build, each of its N shards exactly once, together holding the build's pairs. */
function checkSet(shards: Shard[]): void {
  const ref = shards[0];
  const byIndex = new Map<number, Shard>();
  for (const s of shards) {
    if (s.meta.build !== ref.meta.build || s.meta.shards !== ref.meta.shards) {
      throw new GraphFileError(
        s.file,
        `a shard of another build (build ${s.meta.build}, ${s.meta.shards} shards) than ${ref.file} (build ${ref.meta.build}, ${ref.meta.shards} shards).`,
      );
    }
    const same = byIndex.get(s.meta.shard);
    if (same) {
      throw new GraphFileError(s.file, `overlaps ${same.file}: both are shard ${s.meta.shard} of ${s.meta.shards}.`);
    }
    byIndex.set(s.meta.shard, s);
  }
  const missing = [...Array(ref.meta.shards).keys()].filter((k) => !byIndex.has(k));
  if (missing.length) {
    throw new GraphFileError(
      ref.file,
      `shard${missing.length === 1 ? '' : 's'} ${idList(missing)} of ${ref.meta.shards} of build ${ref.meta.build} ${missing.length === 1 ? 'is' : 'are'} missing.`,
    );
  }
  const seen = new Map<string, Shard>();
  for (const s of shards) {
    for (const [step, rank] of s.meta.pairs) {
      const key = `${step}/${rank}`;
      const other = seen.get(key);
      if (other) throw new GraphFileError(s.file, `overlaps ${other.file}: both hold step ${step} rank ${rank}.`);
      seen.set(key, s);
    }
  }
  if (seen.size !== ref.meta.buildPairs) {
    throw new GraphFileError(ref.file, `the shards hold ${seen.size} (step, rank) pairs, the build has ${ref.meta.buildPairs}.`);
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}
