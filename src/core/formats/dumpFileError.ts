import { FileProblem } from '../fileProblem.js';

/**
 * A problem with one input file of a dump directory (dump.json, construct.json, stack.json, compare.json, …):
 * the CLI prints `message` as one line and exits non-zero (msprobe-format.md §6).
 */
export class DumpFileError extends FileProblem {
  override name = 'DumpFileError';
}
