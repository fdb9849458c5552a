import Database from 'better-sqlite3';
import { chmodSync, closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pyJsonDumps } from '../../src/core/formats/pyJsonWrite.js';
import type { NodeChange } from '../../src/core/match/index.js';
import { GraphFileError, StaleFileError } from '../store/graphStore.js';
import { closeVisDb, dbStamp, openVisDb } from '../store/visDb/openDb.js';
import { syncDir, tempBeside, WRITTEN_MODE } from '../atomicFile.js';
import { applyToItems, parseFaithful } from './nodeRewrite.js';

/**
 * A matched `.vis.db` (issue 15 "Save"): a copy of the database (with its live `-wal`, if a writer left one) whose
 * changed rows are updated as the original viewer updates them in DB mode (reference-viewer.md §4.4,
 * msprobe-format.md §7): `matched_node_link`, `input_data` / `output_data` (the JSON text rewritten as json.dumps
 * writes it, every untouched value as it was: nodeRewrite.ts), `precision_index` (NULL when an unmatch removes it)
 * and `modified = 1`. Every other row and byte of meaning stays. The copy is checkpointed (its `-wal` folded in and
 * removed), fsynced and renamed onto `target`; the served file is only read. `progress` hears the share done (0–1)
 * after each stage: the copy, the rows, the checkpoint, the fsync. Runs in the save worker (saveJobs.ts).
 */
export function writeMatchedDb(
  absPath: string,
  relPath: string,
  stamp: string,
  step: number,
  rank: number,
  changes: Iterable<NodeChange>,
  target: string,
  progress: (share: number) => void = () => {},
): void {
  const temp = tempBeside(target);
  const sideFiles = [`${temp}-wal`, `${temp}-shm`, `${temp}-journal`];
  const cleanup = () => {
    for (const f of [temp, ...sideFiles]) rmSync(f, { force: true });
  };
  try {
    copyFileSync(absPath, temp);
    const wal = `${absPath}-wal`;
    if (existsSync(wal) && statSync(wal).size > 0) copyFileSync(wal, `${temp}-wal`);
    // A checkpoint or a rewrite between the copies would pair versions that never existed together.
    if (dbStamp(absPath, statSync(absPath)) !== stamp) throw new StaleFileError(relPath);
    chmodSync(temp, WRITTEN_MODE);
    progress(0.4);
    const db = new Database(temp, { fileMustExist: true, timeout: 250 });
    try {
      updateRows(db, relPath, step, rank, changes);
      progress(0.5);
      // Fold the log into the file and drop it: the saved database is one file, like the one msprobe leaves.
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    progress(0.6);
    for (const f of sideFiles) rmSync(f, { force: true });
    const fd = openSync(temp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    progress(1);
    renameSync(temp, target);
    syncDir(path.dirname(target));
  } catch (e) {
    cleanup();
    throw e;
  }
}

function updateRows(db: Database.Database, relPath: string, step: number, rank: number, changes: Iterable<NodeChange>): void {
  const columns = new Set((db.prepare('PRAGMA table_info(tb_nodes)').all() as Array<{ name: string }>).map((r) => r.name));
  for (const c of ['node_name', 'data_source', 'step', 'rank', 'matched_node_link', 'precision_index', 'input_data', 'output_data', 'modified']) {
    if (!columns.has(c)) throw new GraphFileError(relPath, `cannot save matches: table tb_nodes has no column "${c}" (an older msprobe schema)`);
  }
  const where = 'WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?';
  const read = db.prepare(`SELECT input_data, output_data FROM tb_nodes ${where}`);
  const source = { npu: 'NPU', bench: 'Bench' } as const;
  db.transaction(() => {
    for (const change of changes) {
      const key = [step, rank, source[change.side], change.id];
      const sets = ['matched_node_link = ?', 'modified = 1'];
      const values: unknown[] = [pyJsonDumps([...change.matchedNodeLink])];
      if (change.precisionIndex !== undefined) {
        sets.push('precision_index = ?');
        values.push(change.precisionIndex);
      }
      if (change.inputData || change.outputData) {
        const row = read.get(...key) as { input_data: string | null; output_data: string | null } | undefined;
        if (!row) throw new StaleFileError(relPath);
        for (const [column, items, text] of [
          ['input_data', change.inputData, row.input_data],
          ['output_data', change.outputData, row.output_data],
        ] as const) {
          if (!items) continue;
          const old = text ? parseFaithful(text, relPath) : undefined;
          sets.push(`${column} = ?`);
          values.push(pyJsonDumps(applyToItems(old, items)));
        }
      }
      const done = db.prepare(`UPDATE tb_nodes SET ${sets.join(', ')} ${where}`).run(...values, ...key);
      if (done.changes !== 1) throw new StaleFileError(relPath);
    }
  })();
}

/**
 * Pairs `{npu: bench}` of the rows the original marked `modified = 1` for one graph, in node order (its DB-mode
 * "generate match config" writes these, reference-viewer.md §3.5). Read through a read-only open (openDb.ts).
 */
export function modifiedPairs(absPath: string, relPath: string, step: number, rank: number): Array<[string, string]> {
  const opened = openVisDb(absPath, relPath);
  try {
    const columns = new Set((opened.db.prepare('PRAGMA table_info(tb_nodes)').all() as Array<{ name: string }>).map((r) => r.name));
    if (!columns.has('modified') || !columns.has('matched_node_link')) return [];
    const rows = opened.db
      .prepare("SELECT node_name, matched_node_link FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = 'NPU' AND modified = 1 ORDER BY node_order")
      .all(step, rank) as Array<{ node_name: string; matched_node_link: string | null }>;
    const pairs: Array<[string, string]> = [];
    for (const r of rows) {
      let link: unknown;
      try {
        link = r.matched_node_link ? JSON.parse(r.matched_node_link) : [];
      } catch {
        continue;
      }
      const last = Array.isArray(link) ? link[link.length - 1] : undefined;
      if (typeof last === 'string' && last !== '') pairs.push([r.node_name, last]);
    }
    return pairs;
  } finally {
    closeVisDb(opened);
  }
}
