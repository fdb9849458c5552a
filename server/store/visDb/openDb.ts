import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GraphFileError, LockedFileError } from '../graphStore.js';

// better-sqlite3 reads this once, when its native addon loads (lazily, at the first `new Database`): URI file names
// are the only way to pass `immutable=1`. Set when this module is evaluated, before any database is opened.
process.env.SQLITE_USE_URI ??= '1';
type Db = Database.Database;

/**
 * Opens a user's `.vis.db` without changing anything on disk (issue 4): read-only, no pragmas that write, and no side
 * files. msprobe leaves its databases in WAL mode (msprobe-format.md §4.2), and SQLite creates `-wal` / `-shm` files
 * for any reader of a WAL database, even a read-only one, unless it is opened `immutable`. So:
 * - WAL header and no live `-wal` (absent or empty): the database file is complete → open `immutable=1`;
 * - WAL header with a live `-wal`: a writer is at work (or crashed). Any reader of it writes the `-shm` (issue 12 #8),
 *   so the database and its `-wal` are copied to a private temporary directory and the copy is opened; SQLite
 *   rebuilds its own `-shm` there from the log. The directory goes when the store closes, or at exit;
 * - rollback-journal header: a plain read-only open (readers create no files; a writer's lock shows as "locked").
 */

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
/** In-memory fallback when URI names are unavailable (another module loaded better-sqlite3 first). */
const MAX_IN_MEMORY_BYTES = 256 * 1024 * 1024;

export interface OpenedDb {
  db: Db;
  /** How it was opened, for tests and logs. */
  mode: 'immutable' | 'readonly' | 'wal-copy' | 'in-memory';
  /** The private copy's directory ('wal-copy'), removed by closeVisDb. */
  copyDir?: string;
}

/** Private copies still open: removed at exit too, when nothing closed their stores. */
const copyDirs = new Set<string>();
let exitHookInstalled = false;

export function closeVisDb(opened: OpenedDb): void {
  if (opened.db.open) opened.db.close();
  if (opened.copyDir) {
    rmSync(opened.copyDir, { recursive: true, force: true });
    copyDirs.delete(opened.copyDir);
  }
}

/** A stamp that changes when the database or its live WAL changes. */
export function dbStamp(absPath: string, stats: Stats): string {
  let wal = '';
  try {
    const w = statSync(`${absPath}-wal`);
    wal = `:${w.size}:${w.mtimeMs}`;
  } catch {
    // no -wal file
  }
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}${wal}`;
}

export function openVisDb(absPath: string, relPath: string): OpenedDb {
  const header = readHeader(absPath, relPath);
  const wal = header[18] === 2 || header[19] === 2;
  const walFile = `${absPath}-wal`;
  const walLive = existsSync(walFile) && statSync(walFile).size > 0;
  try {
    if (wal && walLive) return openCopy(absPath, relPath);
    if (wal) return openImmutable(absPath, relPath);
    return { db: open(absPath, relPath), mode: 'readonly' };
  } catch (e) {
    throw asFileError(relPath, e);
  }
}

function open(name: string, _relPath: string): Db {
  // A short busy timeout: a locked database is reported, not waited on for seconds per request.
  return new Database(name, { readonly: true, fileMustExist: true, timeout: 250 });
}

function openCopy(absPath: string, relPath: string): OpenedDb {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const dir of copyDirs) rmSync(dir, { recursive: true, force: true });
    });
  }
  const before = dbStamp(absPath, statSync(absPath));
  const copyDir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-db-'));
  copyDirs.add(copyDir);
  let db: Db | undefined;
  try {
    const copy = path.join(copyDir, 'graph.vis.db');
    copyFileSync(absPath, copy);
    // The log's frames carry checksums: a frame half-written while copying is ignored by SQLite like a crash's.
    copyFileSync(`${absPath}-wal`, `${copy}-wal`);
    // A checkpoint between the two copies would pair an old database with a new log: refuse that copy.
    if (dbStamp(absPath, statSync(absPath)) !== before) {
      throw new LockedFileError(relPath, 'the database changed while it was being read (a writer is at work); try again');
    }
    db = open(copy, relPath);
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return { db, mode: 'wal-copy', copyDir };
  } catch (e) {
    db?.close();
    rmSync(copyDir, { recursive: true, force: true });
    copyDirs.delete(copyDir);
    throw e;
  }
}

function openImmutable(absPath: string, relPath: string): OpenedDb {
  const uri = `${pathToFileURL(absPath).href}?immutable=1`;
  try {
    const db = open(uri, relPath);
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return { db, mode: 'immutable' };
  } catch (e) {
    // Without URI support the name is taken literally and the read-only open fails: read the file into memory
    // (small files) rather than let SQLite create side files.
    if ((e as { code?: string }).code !== 'SQLITE_CANTOPEN') throw e;
    const size = statSync(absPath).size;
    if (size > MAX_IN_MEMORY_BYTES) {
      throw new GraphFileError(relPath, 'cannot open a WAL-mode database read-only without SQLite URI support');
    }
    return { db: new Database(readFileSync(absPath), { readonly: true }), mode: 'in-memory' };
  }
}

function readHeader(absPath: string, relPath: string): Buffer {
  let fd: number;
  try {
    fd = openSync(absPath, 'r');
  } catch (e) {
    throw new GraphFileError(relPath, `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    const header = Buffer.alloc(100);
    const n = readSync(fd, header, 0, 100, 0);
    if (n === 0) throw new GraphFileError(relPath, 'empty file');
    if (n < 100 || !header.subarray(0, 16).equals(SQLITE_MAGIC)) {
      throw new GraphFileError(relPath, 'not a SQLite database (a .vis.db starts with "SQLite format 3")');
    }
    return header;
  } finally {
    closeSync(fd);
  }
}

/**
 * Any failure of a request on a `.vis.db` as one line naming the file: SQLite's own (dbError), and anything else a
 * damaged file can provoke (rows missing, ill-typed or NULL where the schema promises values, engine errors).
 */
export function asFileError(relPath: string, e: unknown): GraphFileError {
  const known = dbError(relPath, e);
  if (known instanceof GraphFileError) return known;
  return new GraphFileError(relPath, `the database is damaged: ${e instanceof Error ? e.message : String(e)}`);
}

/** SQLite failures as one line naming the file: locked, corrupt, or anything else with its code. */
export function dbError(relPath: string, e: unknown): unknown {
  if (e instanceof GraphFileError) return e;
  const code = (e as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return e;
  const message = (e as Error).message;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new LockedFileError(relPath, `the database is locked by another process (${code}); try again when it is done`);
  }
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) {
    return new GraphFileError(relPath, `the database is damaged: ${message} (${code})`);
  }
  return new GraphFileError(relPath, `database error: ${message} (${code})`);
}
