import fs from 'node:fs';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { BackgroundFlush } from '../backgroundFlush.js';
import {
  graphRowsOf,
  VIS_DB_SQL,
  type DbConfigRow,
  type DbNodeRow,
  type DbStackRow,
  type GraphRowsOptions,
} from '../../src/core/formats/visDb.js';
import type { Graph } from '../../src/core/model/graph.js';
import { pyJsonDumps, type JsonTree } from '../../src/core/formats/pyJsonWrite.js';

/** The column text of a non-empty `matched_distributed`, else null. */
function distributedJson(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0) return null;
  return pyJsonDumps(v as JsonTree);
}

/**
 * Where a `.vis.db`'s rows go: the file itself (`VisDbFile`, this thread) or the writer thread (dbWorker.ts).
 * A returned promise means "wait before sending more".
 */
export interface DbRowTarget {
  node(row: DbNodeRow): void | Promise<void>;
  stacks(rows: DbStackRow[]): void | Promise<void>;
  /** Late `matched_distributed` texts: [text, node row id]. */
  distributed(updates: Array<[string, string]>): void | Promise<void>;
  config(row: DbConfigRow): void | Promise<void>;
  /** Indexes, flush to disk, close. Throws what writing failed with. */
  finish(): void | Promise<void>;
  /** Stop without finishing; once settled, the caller may remove the file. */
  abandon(): void | Promise<void>;
}

/**
 * better-sqlite3, loaded on first use: a compare run's main thread makes rows and leaves the file to the writer
 * thread, so it need not load the library at start-up.
 */
function openSqlite(): typeof Database {
  return (sqlite ??= createRequire(import.meta.url)('better-sqlite3') as typeof Database);
}
let sqlite: typeof Database | undefined;

/**
 * Writes one `.vis.db` (msprobe-format.md §4.2) into a temporary file: tables created up front, all rows in one
 * transaction, the config row (first one wins, as msprobe's INSERT OR IGNORE). Indexes are built at the end (less
 * work in all) or, with `indexesFirst`, kept up as rows come (the writer thread: the work then overlaps with making
 * the rows, and the end comes sooner). The file is renamed into place only after the whole run succeeded, so it
 * needs no journal while being written; at the end it gets a rollback journal mode (not WAL), so it opens read-only
 * anywhere. The tables are msprobe's.
 */
export class VisDbFile implements DbRowTarget {
  private readonly db: Database.Database;
  private readonly insertNode: Database.Statement;
  private readonly insertStack: Database.Statement;
  private readonly insertConfig: Database.Statement;
  private readonly updateDistributedStmt: Database.Statement;
  /** `syncEvery`: a descriptor of the file for flushing it while rows come, and the flushes. */
  private syncFd: number | null = null;
  private flush: BackgroundFlush | null = null;
  private rowsSinceCheck = 0;

  constructor(
    readonly file: string,
    private readonly opts: { indexesFirst?: boolean; syncEvery?: number } = {},
  ) {
    fs.rmSync(file, { force: true });
    // Created here with the final's mode: SQLite would create it 0644 (an empty file is an empty database).
    fs.closeSync(fs.openSync(file, 'w', 0o640));
    this.db = new (openSqlite())(file);
    // 16 KiB pages make inserting and indexing the large JSON rows about a third faster than the default 4 KiB.
    this.db.pragma('page_size = 16384');
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec(VIS_DB_SQL.createNodes);
    this.db.exec(VIS_DB_SQL.createStack);
    this.db.exec(VIS_DB_SQL.createConfig);
    if (opts.indexesFirst) for (const sql of VIS_DB_SQL.createIndexes) this.db.exec(sql);
    this.insertNode = this.db.prepare(VIS_DB_SQL.insertNode);
    this.insertStack = this.db.prepare(VIS_DB_SQL.insertStack);
    this.insertConfig = this.db.prepare(VIS_DB_SQL.insertConfig);
    this.updateDistributedStmt = this.db.prepare('UPDATE tb_nodes SET matched_distributed = ? WHERE id = ?');
    this.db.exec('BEGIN');
    if (opts.syncEvery) {
      this.syncFd = fs.openSync(file, 'r+');
      this.flush = new BackgroundFlush(this.syncFd, opts.syncEvery);
    }
  }

  node(row: DbNodeRow): void {
    this.insertNode.run(row);
    if (this.syncFd !== null && ++this.rowsSinceCheck >= 256) this.syncSoFar();
  }

  /**
   * The pages SQLite has written so far, flushed to disk in the background once the file grew by `syncEvery` bytes,
   * while the rows are still coming: the closing fsync, which the run waits for, is left with the last few
   * megabytes instead of the whole file.
   */
  private syncSoFar(): void {
    this.rowsSinceCheck = 0;
    this.flush!.wrote(fs.fstatSync(this.syncFd!).size);
  }

  /** Flushes started while rows came (`syncEvery`). */
  get syncs(): number {
    return this.flush?.started ?? 0;
  }

  stacks(rows: DbStackRow[]): void {
    for (const row of rows) this.insertStack.run(row);
  }

  distributed(updates: Array<[string, string]>): void {
    for (const [text, id] of updates) this.updateDistributedStmt.run(text, id);
  }

  /** msprobe inserts the config after every exported (step, rank); the first row stays. */
  config(row: DbConfigRow): void {
    this.insertConfig.run(row);
  }

  finish(): void {
    this.db.exec('COMMIT');
    if (!this.opts.indexesFirst) for (const sql of VIS_DB_SQL.createIndexes) this.db.exec(sql);
    this.db.pragma('journal_mode = DELETE');
    this.db.close();
    this.closeSyncFd();
    const fd = fs.openSync(this.file, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  abandon(): void {
    if (this.db.open) this.db.close();
    this.closeSyncFd();
  }

  private closeSyncFd(): void {
    if (this.syncFd === null) return;
    this.flush!.close();
    this.syncFd = null;
  }
}

/** Stack rows go to the target in batches of about this much text. */
const STACK_BATCH_CHARS = 1 << 18;

/** What the db sink calls: makes a graph's rows (in this thread) and hands them to the target as they come. */
export class VisDbWriter {
  constructor(private readonly target: DbRowTarget) {}

  /** One graph's node rows in `node_order`, then its stack rows (in batches: their texts are made as they go). */
  async addGraph(graph: Graph, opts: GraphRowsOptions): Promise<void> {
    const rows = graphRowsOf(graph, opts);
    for (;;) {
      const next = rows.next();
      if (next.done) {
        let batch: DbStackRow[] = [];
        let chars = 0;
        for (const row of next.value) {
          batch.push(row);
          chars += row[1].length;
          if (chars < STACK_BATCH_CHARS) continue;
          await this.target.stacks(batch);
          batch = [];
          chars = 0;
        }
        if (batch.length) await this.target.stacks(batch);
        return;
      }
      const wait = this.target.node(next.value);
      if (wait) await wait;
    }
  }

  /** Late `matched_distributed` values (cross-rank matching runs after the ranks were written). */
  async updateDistributed(graph: Graph, at: { source: string; step: number; rank: number }): Promise<void> {
    const graphId = `${at.source}_${at.step}_${at.rank}`;
    const updates: Array<[string, string]> = [];
    for (const node of graph.nodeMap.values()) {
      const text = distributedJson(node.matchedDistributed);
      if (text !== null) updates.push([text, `${graphId}_${node.id}`]);
    }
    if (updates.length) await this.target.distributed(updates);
  }

  async addConfig(config: DbConfigRow): Promise<void> {
    await this.target.config(config);
  }

  async finish(): Promise<void> {
    await this.target.finish();
  }

  async abandon(): Promise<void> {
    await this.target.abandon();
  }
}
