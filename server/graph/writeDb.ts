import fs from 'node:fs';
import Database from 'better-sqlite3';
import { forEachGraphRow, VIS_DB_SQL, type DbConfigRow, type GraphRowsOptions } from '../../src/core/formats/visDb.js';
import type { Graph } from '../../src/core/model/graph.js';
import { pyJsonDumps, type JsonTree } from '../../src/core/formats/pyJsonWrite.js';

/** The column text of a non-empty `matched_distributed`, else null. */
function distributedJson(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0) return null;
  return pyJsonDumps(v as JsonTree);
}

/**
 * Writes one `.vis.db` (msprobe-format.md §4.2) into a temporary file: tables created up front, each graph's rows
 * in one transaction, the config row (first one wins, as msprobe's INSERT OR IGNORE), indexes at the end.
 * The file uses a rollback journal, not WAL, so it opens read-only anywhere; the tables are msprobe's.
 */
export class VisDbWriter {
  private readonly db: Database.Database;
  private readonly insertNode: Database.Statement;
  private readonly insertStack: Database.Statement;
  private readonly insertConfig: Database.Statement;
  private readonly updateDistributedStmt: Database.Statement;

  constructor(readonly file: string) {
    fs.rmSync(file, { force: true });
    this.db = new Database(file);
    // A temporary file renamed into place only on success: no journal needed while writing. 16 KiB pages make
    // inserting and indexing the large JSON rows about a third faster than the default 4 KiB.
    this.db.pragma('page_size = 16384');
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(VIS_DB_SQL.createNodes);
    this.db.exec(VIS_DB_SQL.createStack);
    this.db.exec(VIS_DB_SQL.createConfig);
    this.insertNode = this.db.prepare(VIS_DB_SQL.insertNode);
    this.insertStack = this.db.prepare(VIS_DB_SQL.insertStack);
    this.insertConfig = this.db.prepare(VIS_DB_SQL.insertConfig);
    this.updateDistributedStmt = this.db.prepare('UPDATE tb_nodes SET matched_distributed = ? WHERE id = ?');
  }

  /** One graph's node rows (made and inserted one by one) then its stack rows. */
  addGraph(graph: Graph, opts: GraphRowsOptions): void {
    this.db.transaction(() => {
      const stacks = forEachGraphRow(graph, opts, (row) => this.insertNode.run(row));
      for (const row of stacks) this.insertStack.run(row);
    })();
  }

  /** Late `matched_distributed` values (cross-rank matching runs after the ranks were written). */
  updateDistributed(graph: Graph, at: { source: string; step: number; rank: number }): void {
    const graphId = `${at.source}_${at.step}_${at.rank}`;
    this.db.transaction(() => {
      for (const node of graph.nodeMap.values()) {
        const text = distributedJson(node.matchedDistributed);
        if (text !== null) this.updateDistributedStmt.run(text, `${graphId}_${node.id}`);
      }
    })();
  }

  /** msprobe inserts the config after every exported (step, rank); the first row stays. */
  addConfig(config: DbConfigRow): void {
    this.insertConfig.run(config);
  }

  /** Indexes, back to a normal journal, flushed to disk. */
  finish(): void {
    for (const sql of VIS_DB_SQL.createIndexes) this.db.exec(sql);
    this.db.pragma('journal_mode = DELETE');
    this.db.close();
    const fd = fs.openSync(this.file, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Closes without finishing (the caller removes the file). */
  abandon(): void {
    if (this.db.open) this.db.close();
  }
}
