import fs from 'node:fs';
import path from 'node:path';
import type { DumpDirContents } from '../../src/core/build/buildGraph.js';
import { parseConstructJson } from '../../src/core/formats/constructJson.js';
import { DumpFileError } from '../../src/core/formats/dumpFileError.js';
import { parseDumpJson } from '../../src/core/formats/dumpJson.js';
import { parseStackJson } from '../../src/core/formats/stackJson.js';
import { GraphFileError } from '../store/graphStore.js';

export interface DumpDirRead extends DumpDirContents {
  dumpFile: string;
  /** dump.json's text, when asked for (msprobe sniffs the framework from it when the key is missing). */
  dumpText?: string;
}

/** Reads the three files of one dump directory (msprobe-format.md §1.3); each must exist. */
export function readDumpDir(dir: string, opts: { keepDumpText?: boolean } = {}): DumpDirRead {
  const constructFile = path.join(dir, 'construct.json');
  const dumpFile = path.join(dir, 'dump.json');
  const stackFile = path.join(dir, 'stack.json');
  // construct.json first: an empty one is the most common mistake (dump level L1), and its message says what to do.
  const construct = parseConstructJson(readText(constructFile), constructFile);
  const dumpText = readText(dumpFile);
  const dump = parseDumpJson(dumpText, dumpFile);
  const stack = parseStackJson(readText(stackFile), stackFile);
  return { construct, dump, stack, dumpDir: dir, dumpFile, dumpText: opts.keepDumpText ? dumpText : undefined };
}

/** A file's text, or a GraphFileError naming it (missing, not a file, unreadable). */
export function readText(file: string): string {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new GraphFileError(file, 'The file does not exist.');
  }
  if (!stat.isFile()) throw new GraphFileError(file, 'The path should be a file.');
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new GraphFileError(file, `The file is not readable (${(e as NodeJS.ErrnoException).code ?? e}).`);
  }
}

/** Core parsers throw DumpFileError; the CLI reports file problems as GraphFileError (exit code 2). */
export function asGraphFileError(e: unknown): unknown {
  return e instanceof DumpFileError ? new GraphFileError(e.file, e.problem) : e;
}
