import { FileProblem } from '../fileProblem.js';

/**
 * A problem with one input file of a dump directory (dump.json, construct.json, stack.json, compare.json, …):
 * the CLI prints `message` as one line and exits non-zero (msprobe-format.md §6).
 */
export class DumpFileError extends FileProblem {
  override name = 'DumpFileError';
}

export const TOO_DEEP_PROBLEM = 'The JSON is nested too deeply to be read (Python stops at about 1,000 levels too).';

/**
 * `read()`, with a stack overflow (a file nested deeper than the readers' recursion goes) reported as a problem of
 * `file` instead of V8's "Maximum call stack size exceeded", which names nothing.
 */
export function readingFile<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw new DumpFileError(file, TOO_DEEP_PROBLEM);
    throw e;
  }
}
