import fs from 'node:fs';
import path from 'node:path';
import type { DumpDirContents } from '../../src/core/build/buildGraph.js';
import { detectFramework, DumpModeError, entryHasMd5, type Framework } from '../../src/core/compare/mode.js';
import { overflowLevelOf, type OverflowLevel } from '../../src/core/compare/overflow.js';
import { parseConstructJson } from '../../src/core/formats/constructJson.js';
import { DumpFileError, readingFile } from '../../src/core/formats/dumpFileError.js';
import { PreparedEntries } from '../../src/core/formats/dumpItems.js';
import { readDumpItems, type DumpItemsVisitor } from '../../src/core/formats/dumpItemsFromBytes.js';
import type { RawItem } from '../../src/core/model/item.js';
import { readDumpJson, visitDumpJson, type DumpHead, type DumpJson, type DumpVisitor } from '../../src/core/formats/dumpJson.js';
import { toPy, type DumpValue } from '../../src/core/formats/pyJsonNative.js';
import { parseStackJson } from '../../src/core/formats/stackJson.js';
import type { Utf8Decode } from '../../src/core/formats/utf8.js';
import { MAX_BUFFER_BYTES, MAX_TEXT_BYTES, textOfBytes, tooLargeForBuffer, tooLargeForText } from '../../src/core/formats/textLimit.js';
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
  const construct = readingFile(constructFile, () => parseConstructJson(readBytes(constructFile), constructFile, bufferUtf8));
  const dumpBytes = readBytes(dumpFile);
  const dumpText = opts.keepDumpText ? textOfBytes(dumpBytes, dumpFile, bufferUtf8) : undefined;
  const dump = readingFile(dumpFile, () => readDumpJson(dumpBytes, dumpFile, bufferUtf8));
  const stack = readingFile(stackFile, () => parseStackJson(readBytes(stackFile), stackFile, bufferUtf8));
  return { construct, dump, stack, dumpDir: dir, dumpFile, dumpText };
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
 * `readDumpDir` for the graph command: dump.json's entries become node data as the file is read, straight from its
 * bytes (dumpItemsFromBytes.ts) or, for files that reader leaves, entry by entry (dumpJson.ts `visitDumpJson`), so
 * neither the whole parse tree nor a copy of the entries stays in memory; what the checks read of the raw entries
 * (md5, overflow levels) is taken on the way. Same files, order and errors. `itemRoom`: values every item will
 * get later (the compare columns of the NPU side).
 */
export function readDumpDirForBuild(
  dir: string,
  opts: { overflowLevels?: boolean; itemRoom?: number; skipStack?: boolean; only?: (name: string) => boolean } = {},
): PreparedDumpDir {
  const { constructFile, dumpFile, stackFile } = dumpFiles(dir);
  reserveFileBuffer(constructFile, dumpFile, stackFile);
  const construct = readingFile(constructFile, () => parseConstructJson(readBytes(constructFile), constructFile, bufferUtf8));
  // dump.json is read from its bytes: it never becomes one string, which would live until a full collection.
  const dumpBytes = readBytes(dumpFile);
  const findMd5 = dumpBytes.includes('md5');
  const newReader = () => new EntryReader(dumpFile, findMd5, opts.overflowLevels ?? false, opts.only);
  // Straight to items (dumpItemsFromBytes.ts); a file that reader leaves, the general one reads afresh.
  let reader = newReader();
  let head = readDumpItems(dumpBytes, reader, bufferUtf8, opts.itemRoom);
  if (!head) {
    reader = newReader();
    head = readingFile(dumpFile, () => visitDumpJson(dumpBytes, dumpFile, reader, bufferUtf8));
  }
  const { entries, md5, levels } = reader;
  let framework: Framework | DumpModeError;
  try {
    // The text is sniffed only when the `framework` key does not say (msprobe reads the file's lines then).
    framework = detectFramework(head.top, dumpFile, frameworkNamed(head.top) ? undefined : textOfBytes(dumpBytes, dumpFile, bufferUtf8));
  } catch (e) {
    if (!(e instanceof DumpModeError)) throw e;
    framework = e;
  }
  const dumpDataDir = head.top.has('dump_data_dir') ? head.top.get('dump_data_dir')! : '';
  if (head.data === 'other') throw new DumpFileError(dumpFile, "Invalid type for 'data': expected a dict (a JSON object)");
  // `skipStack`: a peer rank read only for its communication nodes (runStep.ts `distributedUnit`) needs no stacks.
  const stack = opts.skipStack ? new Map<string, string[]>() : readingFile(stackFile, () => parseStackJson(readBytes(stackFile), stackFile, bufferUtf8));
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
class EntryReader implements DumpVisitor, DumpItemsVisitor {
  readonly entries: PreparedEntries;
  md5 = false;
  readonly levels: Map<string, OverflowLevel> | null;

  constructor(
    file: string,
    private readonly findMd5: boolean,
    overflowLevels: boolean,
    /** Keep only these entries (the byte reader passes over the others, the general reader drops them). */
    private readonly only?: (name: string) => boolean,
  ) {
    this.entries = new PreparedEntries(file);
    this.levels = overflowLevels ? new Map() : null;
  }

  /** Passes over an entry left out by `only`, unless md5 is still looked for: that is any entry's (`md5_find`). */
  skips(name: string): boolean {
    return this.leftOut(name) && !(this.findMd5 && !this.md5);
  }

  private leftOut(name: string): boolean {
    return this.only !== undefined && !this.only(name);
  }

  seen(name: string): boolean {
    return this.entries.has(name);
  }

  /** The checks read raw entries: md5 until one is found, overflow levels, and batch P2P ops are kept whole. */
  wantsValue(name: string): boolean {
    return (this.findMd5 && !this.md5) || this.levels !== null || this.entries.keepsWhole(name);
  }

  items(name: string, items: RawItem[]): void {
    this.entries.addItems(name, items);
  }

  entry(name: string, entry: DumpValue): void {
    if (this.findMd5 && !this.md5) this.md5 = entryHasMd5(entry);
    // Read for md5 only, or by the general reader, which reads every entry.
    if (this.leftOut(name)) return;
    this.entries.add(name, entry);
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

function frameworkNamed(top: Map<string, unknown>): boolean {
  const framework = top.get('framework');
  return framework === 'pytorch' || framework === 'mindspore';
}

/**
 * Buffer's UTF-8 decoding for the core's byte readers, which are handed the Buffers read here: three to five times
 * faster than TextDecoder for the short keys they decode by the ten thousand.
 */
const bufferUtf8: Utf8Decode = (bytes, start, end) =>
  (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('utf8', start, end);

/**
 * The read buffer, sized for the largest file read so far: both sides of a comparison reuse it, then
 * `releaseFileBuffer` gives its memory back.
 */
let fileBuffer: Buffer | null = null;

/** Room beyond a file's size in the read buffer (a file that grows while read is read to its end). */
const READ_SLACK = 65536;
/** The largest file read whole: the buffer holds it with its slack. */
const MAX_READ_BYTES = MAX_BUFFER_BYTES - READ_SLACK;

/**
 * Frees the read buffer's memory now. A dropped Buffer of tens of megabytes would stay until the next full
 * collection, which a run no longer needs to make; moved into a clone that is garbage at once, its memory goes at
 * the next young collection. Views of it read as empty afterwards: call this once the unit's files are parsed.
 * (The buffer always comes from `allocUnsafeSlow`: an ArrayBuffer of its own, never Node's shared pool, so moving
 * it takes nothing else along.)
 */
export function releaseFileBuffer(): void {
  if (fileBuffer) structuredClone(fileBuffer.buffer, { transfer: [fileBuffer.buffer as ArrayBuffer] });
  fileBuffer = null;
}

/** Grows the read buffer once for the largest of `files` (a missing one is reported when it is read). */
function reserveFileBuffer(...files: string[]): void {
  let size = 0;
  for (const f of files) {
    try {
      const bytes = fs.statSync(f).size;
      // A file too large to read is readBytes' to report.
      if (bytes <= MAX_READ_BYTES) size = Math.max(size, bytes);
    } catch {
      // readBytes says what is wrong with it, in its turn
    }
  }
  if (!fileBuffer || fileBuffer.length < size + READ_SLACK) fileBuffer = Buffer.allocUnsafeSlow(size + READ_SLACK);
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
  if (stat.size > MAX_READ_BYTES) throw new GraphFileError(file, tooLargeForBuffer(stat.size));
  try {
    const fd = fs.openSync(file, 'r');
    try {
      let length = 0;
      for (;;) {
        if (!fileBuffer || fileBuffer.length < Math.max(length + READ_SLACK, stat.size + 1)) {
          const grown = Buffer.allocUnsafeSlow(Math.min(MAX_BUFFER_BYTES, Math.max(stat.size + READ_SLACK, length * 2, 1 << 20)));
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
