import fs from 'node:fs';
import path from 'node:path';
import { makeDirs } from '../makeDirs.js';
import { GraphFileError } from '../store/graphStore.js';
import { BackgroundFlush } from '../backgroundFlush.js';

/**
 * Output naming (msprobe-format.md §4.4) and the all-or-nothing rule: every file is written under a hidden temporary
 * name in the output directory, fsynced, and renamed into place only when the whole run succeeded; on failure the
 * temporaries (and an output directory this run created) are removed.
 */

/** What writing failed with, in words, by errno / SQLite code. */
const WRITE_PROBLEMS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  SQLITE_FULL: 'the disk is full',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  SQLITE_READONLY: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  SQLITE_PERM: 'permission denied',
  EIO: 'an I/O error occurred',
};

/**
 * A failure to write an output file as a one-line problem naming the file the user asked for (the final name, not
 * the temporary one): a full disk, a quota, a read-only or forbidden directory, an I/O error. Anything else is
 * returned as it is.
 */
export function outputWriteError(file: string, e: unknown): unknown {
  if (!(e instanceof Error) || e instanceof GraphFileError) return e;
  const code = (e as { code?: unknown }).code;
  if (typeof code !== 'string') return e;
  const problem = WRITE_PROBLEMS[code] ?? (code.startsWith('SQLITE_IOERR') ? WRITE_PROBLEMS.EIO : undefined);
  return problem ? new GraphFileError(file, `The output file cannot be written: ${problem} (${code}).`) : e;
}

/** `write()`, its failure to write reported against `file` (outputWriteError). */
export async function writingTo<T>(file: string, write: () => T | Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    throw outputWriteError(file, e);
  }
}

/** `time.strftime("%Y%m%d%H%M%S")`, local time, taken once per run. */
export function runTimestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** `build_{ts}.vis`, `compare_rank0_{ts}.vis`, `build_step1_rank3_{ts}.vis` (JSON: one file per step and rank). */
export function visFileName(kind: 'build' | 'compare', ts: string, stepDir: string | null, rankDir: string | null): string {
  return [kind, stepDir, rankDir, ts].filter((p) => p !== null).join('_') + '.vis';
}

/** `build_{ts}.vis.db` / `compare_{ts}.vis.db`: one file for all steps, ranks and sides. */
export function dbFileName(kind: 'build' | 'compare', ts: string): string {
  return `${kind}_${ts}.vis.db`;
}

export class OutputDir {
  private readonly pending: Array<{ temp: string; final: string }> = [];
  private readonly scratch = new Set<string>();
  private scratchCount = 0;
  private createdDirs: string[] = [];
  /** Aborted: nothing more is written (work that runs on after an interruption fails here). */
  private closed = false;

  constructor(readonly dir: string) {}

  /** Creates the directory (mode 0750) if needed; refuses a path that is a file. */
  prepare(): void {
    let stat: fs.Stats | null = null;
    try {
      stat = fs.statSync(this.dir);
    } catch {
      // created below
    }
    if (stat && !stat.isDirectory()) throw new GraphFileError(this.dir, 'The output path exists and is not a directory.');
    if (!stat) {
      try {
        const first = makeDirs(this.dir, 0o750);
        if (first) this.createdDirs = chain(first, this.dir);
      } catch (e) {
        throw new GraphFileError(this.dir, `The output directory cannot be created (${(e as NodeJS.ErrnoException).code ?? e}).`);
      }
    }
    this.checkWritable();
    removeStaleTemps(this.dir);
  }

  /**
   * Creating a file is the only test that holds for root too (access(2) says yes on /proc or a read-only mount);
   * without it SQLite fails later with a bare "unable to open database file".
   */
  private checkWritable(): void {
    const probe = path.join(this.dir, `.probeboard-probe.${process.pid}.0.tmp`);
    try {
      fs.closeSync(fs.openSync(probe, 'w', 0o640));
      fs.rmSync(probe, { force: true });
    } catch (e) {
      this.abort();
      const code = (e as NodeJS.ErrnoException).code ?? String(e);
      throw new GraphFileError(this.dir, `The output directory is not writable (${code}).`);
    }
  }

  /**
   * A hidden temporary path in the output directory for `finalName`, renamed by `commit`. Created empty with the
   * final's mode, so nothing of the run is ever readable more widely than its result (SQLite would make it 0644).
   */
  reserve(finalName: string): string {
    this.checkOpen();
    const temp = path.join(this.dir, `.${finalName}.${process.pid}.${this.pending.length}.tmp`);
    this.pending.push({ temp, final: path.join(this.dir, finalName) });
    try {
      fs.closeSync(fs.openSync(temp, 'w', 0o640));
    } catch (e) {
      throw outputWriteError(path.join(this.dir, finalName), e);
    }
    return temp;
  }

  /** A hidden working file in the output directory, removed by `abort` (and by `commit` if still there). */
  scratchFile(name: string): string {
    this.checkOpen();
    const file = path.join(this.dir, `.${name}.${process.pid}.${this.scratchCount++}.part`);
    this.scratch.add(file);
    return file;
  }

  /** A working file no longer needed. */
  dropScratch(file: string): void {
    fs.rmSync(file, { force: true });
    this.scratch.delete(file);
  }

  /** Where a file of this name ends up. */
  finalPath(name: string): string {
    return path.join(this.dir, name);
  }

  /** Final paths, in reservation order. */
  get finalPaths(): string[] {
    return this.pending.map((p) => p.final);
  }

  commit(): string[] {
    this.checkOpen();
    for (const file of this.scratch) fs.rmSync(file, { force: true });
    for (const { temp, final } of this.pending) {
      try {
        fs.chmodSync(temp, 0o640);
        fs.renameSync(temp, final);
      } catch (e) {
        throw outputWriteError(final, e);
      }
    }
    return this.finalPaths;
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.dir}: the run was stopped`);
  }

  /** Removes what was written (again when called again: work stopped midway may have left more). */
  abort(): void {
    this.closed = true;
    // SQLite's side files too: a failure mid-transaction (a full disk) leaves `<temp>-journal`.
    for (const { temp } of this.pending) for (const f of [temp, ...SQLITE_SIDE_FILES.map((x) => temp + x)]) fs.rmSync(f, { force: true });
    for (const file of this.scratch) fs.rmSync(file, { force: true });
    for (const dir of this.createdDirs.slice().reverse()) {
      try {
        fs.rmdirSync(dir);
      } catch {
        break; // not empty: someone else wrote there
      }
    }
  }
}

const SQLITE_SIDE_FILES = ['-journal', '-wal', '-shm'];

/**
 * Hidden temporaries of this module's naming (`.<name>.<pid>.<n>.tmp|part`, with SQLite's or the row writers'
 * suffixes), left by a run that was killed: removed when their writer's process is gone.
 */
const TEMP_NAME = /^\..+\.(\d+)\.\d+\.(?:tmp|part)(?:-journal|-wal|-shm|\.part\d+)?$/;

function removeStaleTemps(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // listing is only for the clean-up
  }
  const alive = new Map<number, boolean>();
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (!alive.has(pid)) alive.set(pid, processAlive(pid));
    if (!alive.get(pid)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** Signal 0 checks for the process; EPERM means it exists under another user. */
function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The directories from `first` (the outermost one mkdir created) down to `leaf`. */
function chain(first: string, leaf: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(leaf); ; d = path.dirname(d)) {
    out.unshift(d);
    if (d === path.resolve(first) || d === path.dirname(d)) break;
  }
  return out;
}

/**
 * `target` = `source` with texts inserted at byte offsets (ascending), fsynced: the late `matched_distributed`
 * members of a `.vis` written before its step's cross-rank matching (graphSinks.ts).
 */
export function spliceFile(source: string, target: string, insertions: ReadonlyArray<readonly [offset: number, text: string]>): void {
  const input = fs.openSync(source, 'r');
  const output = fs.openSync(target, 'w', 0o640);
  const flush = new BackgroundFlush(output);
  let written = 0;
  try {
    const buf = Buffer.allocUnsafeSlow(1 << 22);
    const writeAll = (b: Buffer, length: number) => {
      for (let off = 0; off < length; ) off += fs.writeSync(output, b, off, length - off);
      flush.wrote((written += length));
    };
    let at = 0;
    const copyTo = (end: number) => {
      while (at < end) {
        const n = fs.readSync(input, buf, 0, Math.min(buf.length, end - at), at);
        if (n === 0) throw new Error(`${source} is shorter than expected`);
        writeAll(buf, n);
        at += n;
      }
    };
    for (const [offset, text] of insertions) {
      copyTo(offset);
      const bytes = Buffer.from(text, 'utf8');
      writeAll(bytes, bytes.length);
    }
    copyTo(fs.fstatSync(input).size);
    fs.fsyncSync(output);
  } finally {
    flush.close();
    fs.closeSync(input);
  }
}

/** Writes `produce`'s chunks to `file` and fsyncs it before closing. */
export function writeFileSynced(file: string, produce: (write: (chunk: string) => void) => void): number {
  return writeChunks(file, produce, true);
}

/** Writes `produce`'s chunks to `file`, not synced (a working file). */
export function writeFileChunks(file: string, produce: (write: (chunk: string) => void) => void): number {
  return writeChunks(file, produce, false);
}

function writeChunks(file: string, produce: (write: (chunk: string) => void) => void, sync: boolean): number {
  const fd = fs.openSync(file, 'w', 0o640);
  let bytes = 0;
  // One buffer for every chunk: a new one per chunk is external memory the GC has to chase.
  let buf = Buffer.allocUnsafeSlow(1 << 22);
  const flush = sync ? new BackgroundFlush(fd) : null;
  try {
    produce((chunk) => {
      if (chunk.length * 3 > buf.length) buf = Buffer.allocUnsafeSlow(chunk.length * 3);
      const length = buf.write(chunk, 0, 'utf8');
      for (let off = 0; off < length; ) off += fs.writeSync(fd, buf, off, length - off);
      bytes += length;
      flush?.wrote(bytes);
    });
    if (sync) fs.fsyncSync(fd);
  } finally {
    if (flush) flush.close();
    else fs.closeSync(fd);
  }
  return bytes;
}
