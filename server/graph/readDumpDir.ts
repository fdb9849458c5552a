import fs from 'node:fs';
import path from 'node:path';
import type { DumpDirContents } from '../../src/core/build/buildGraph.js';
import { detectFramework, DumpModeError, entryHasMd5, type Framework } from '../../src/core/compare/mode.js';
import { overflowLevelOf, type OverflowLevel } from '../../src/core/compare/overflow.js';
import { parseConstructJson } from '../../src/core/formats/constructJson.js';
import { DumpFileError, readingFile } from '../../src/core/formats/dumpFileError.js';
import { PreparedEntries } from '../../src/core/formats/dumpItems.js';
import { readDumpJson, visitDumpJson, type DumpHead, type DumpJson, type DumpVisitor } from '../../src/core/formats/dumpJson.js';
import { toPy, type DumpValue } from '../../src/core/formats/pyJsonNative.js';
import { parseStackJson } from '../../src/core/formats/stackJson.js';
import { MAX_TEXT_BYTES, tooLargeForText } from '../../src/core/formats/textLimit.js';
import { GraphFileError } from '../store/graphStore.js';

export interface DumpDirRead extends DumpDirContents {
  dump: DumpJson<DumpValue>;
  dumpFile: string;
  /** dump.json's text, when asked for (msprobe sniffs the framework from it when the key is missing). */
  dumpText?: string;
}

/** Reads the three files of one dump directory (msprobe-format.md §1.3); each must exist. */
export function readDumpDir(dir: string, opts: { keepDumpText?: boolean } = {}): DumpDirRead {
  const { constructFile, dumpFile, stackFile } = dumpFiles(dir);
  // construct.json first: an empty one is the most common mistake (dump level L1), and its message says what to do.
  const construct = readingFile(constructFile, () => parseConstructJson(readText(constructFile), constructFile));
  const dumpText = readText(dumpFile);
  const dump = readingFile(dumpFile, () => readDumpJson(dumpText, dumpFile));
  const stack = readingFile(stackFile, () => parseStackJson(readText(stackFile), stackFile));
  return { construct, dump, stack, dumpDir: dir, dumpFile, dumpText: opts.keepDumpText ? dumpText : undefined };
}

/** A dump directory read for building its graph: entries already node data, plus what the checks need. */
export interface PreparedDumpDir extends DumpDirContents {
  entries: PreparedEntries;
  dumpFile: string;
  /** dump.json's top level (`data` a place holder) and what `data` was. */
  head: DumpHead;
  /** Some entry has md5 (msprobe `md5_find`; statistics dumps in md5 mode). */
  md5: boolean;
  /** msprobe's framework of the dump, or why it has none (raised only if a comparison asks). */
  framework: Framework | DumpModeError;
  /** `-oc`: the overflow level of each entry that has one. */
  levels: Map<string, OverflowLevel> | null;
}

/**
 * `readDumpDir` for the graph command: dump.json is read entry by entry (dumpJson.ts `visitDumpJson`) and each
 * entry becomes node data at once, so neither the whole parse tree nor a copy of the entries stays in memory; what
 * the checks read of the raw entries (md5, overflow levels) is taken on the way. Same files, order and errors.
 */
export function readDumpDirForBuild(dir: string, opts: { overflowLevels?: boolean } = {}): PreparedDumpDir {
  const { constructFile, dumpFile, stackFile } = dumpFiles(dir);
  reserveFileBuffer(constructFile, dumpFile, stackFile);
  const construct = readingFile(constructFile, () => parseConstructJson(readText(constructFile), constructFile));
  const dumpText = readText(dumpFile);
  const reader = new EntryReader(dumpFile, dumpText.includes('md5'), opts.overflowLevels ?? false);
  const head = readingFile(dumpFile, () => visitDumpJson(dumpText, dumpFile, reader));
  const { entries, md5, levels } = reader;
  let framework: Framework | DumpModeError;
  try {
    framework = detectFramework(head.top, dumpFile, dumpText);
  } catch (e) {
    if (!(e instanceof DumpModeError)) throw e;
    framework = e;
  }
  const dumpDataDir = head.top.has('dump_data_dir') ? head.top.get('dump_data_dir')! : '';
  if (head.data === 'other') throw new DumpFileError(dumpFile, "Invalid type for 'data': expected a dict (a JSON object)");
  const stack = readingFile(stackFile, () => parseStackJson(readBytes(stackFile), stackFile));
  // Between dump directories the read buffer (the size of the largest file) is not needed.
  fileBuffer = null;
  return {
    construct,
    dump: { dumpDataDir, data: new Map() },
    entries,
    stack,
    dumpDir: dir,
    dumpFile,
    head,
    md5,
    framework,
    levels,
  };
}

/** Each entry of dump.json as it is read: its node data, and what the compare checks read of the raw entry. */
class EntryReader implements DumpVisitor {
  readonly entries: PreparedEntries;
  md5 = false;
  readonly levels: Map<string, OverflowLevel> | null;

  constructor(
    file: string,
    private readonly findMd5: boolean,
    overflowLevels: boolean,
  ) {
    this.entries = new PreparedEntries(file);
    this.levels = overflowLevels ? new Map() : null;
  }

  entry(name: string, entry: DumpValue): void {
    this.entries.add(name, entry);
    if (this.findMd5 && !this.md5) this.md5 = entryHasMd5(entry);
    if (this.levels) {
      const level = overflowLevelOf(name, toPy(entry));
      if (level) this.levels.set(name, level);
    }
  }
}

function dumpFiles(dir: string) {
  return {
    constructFile: path.join(dir, 'construct.json'),
    dumpFile: path.join(dir, 'dump.json'),
    stackFile: path.join(dir, 'stack.json'),
  };
}

/** A file's text, or a GraphFileError naming it (missing, not a file, unreadable, too large for a string). */
export function readText(file: string): string {
  return readBytes(file, MAX_TEXT_BYTES).toString('utf8');
}

let fileBuffer: Buffer | null = null;

/** Grows the read buffer once for the largest of `files` (a missing one is reported when it is read). */
function reserveFileBuffer(...files: string[]): void {
  let size = 0;
  for (const f of files) {
    try {
      size = Math.max(size, fs.statSync(f).size);
    } catch {
      // readBytes says what is wrong with it, in its turn
    }
  }
  if (!fileBuffer || fileBuffer.length < size + 65536) fileBuffer = Buffer.allocUnsafeSlow(size + 65536);
}

/**
 * A file's bytes, or a GraphFileError naming it (also when it is larger than `maxBytes`: too large for a string).
 * The bytes live in one buffer reused by every call (valid until the next): a buffer per file, tens of megabytes
 * each, would go back to a C heap that keeps such memory.
 */
export function readBytes(file: string, maxBytes = Infinity): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new GraphFileError(file, 'The file does not exist.');
  }
  if (!stat.isFile()) throw new GraphFileError(file, 'The path should be a file.');
  // Checked before reading: a file too large for a string is refused without reading it.
  if (stat.size > maxBytes) throw new GraphFileError(file, tooLargeForText(stat.size));
  try {
    const fd = fs.openSync(file, 'r');
    try {
      let length = 0;
      for (;;) {
        if (!fileBuffer || fileBuffer.length < Math.max(length + 65536, stat.size + 1)) {
          const grown = Buffer.allocUnsafeSlow(Math.max(stat.size + 65536, length * 2, 1 << 20));
          if (fileBuffer && length) fileBuffer.copy(grown, 0, 0, length);
          fileBuffer = grown;
        }
        const n = fs.readSync(fd, fileBuffer, length, fileBuffer.length - length, null);
        if (n === 0) break;
        length += n;
      }
      return fileBuffer.subarray(0, length);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    throw new GraphFileError(file, `The file is not readable (${(e as NodeJS.ErrnoException).code ?? e}).`);
  }
}

/** Core parsers throw DumpFileError; the CLI reports file problems as GraphFileError (exit code 2). */
export function asGraphFileError(e: unknown): unknown {
  return e instanceof DumpFileError ? new GraphFileError(e.file, e.problem) : e;
}
