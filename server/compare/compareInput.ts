import fs from 'node:fs';
import { requireRegularFile } from './regularFile.js';
import path from 'node:path';
import { DumpFileError, readingFile } from '../../src/core/formats/dumpFileError.js';
import { parsePyJson, type PyValue } from '../../src/core/formats/pyJson.js';

/** compare.json (msprobe-compare.md §1.2): the two dump paths, relative to the current directory. */

export interface CompareInput {
  file: string;
  npuPath: string;
  benchPath: string;
  stackPath: string | null;
  isPrintCompareLog: boolean;
  /** Present: MindSpore kernel (static graph) compare, which probeboard does not implement. */
  rankId: PyValue | undefined;
  common: boolean;
}

/** `cwd`: where relative paths in compare.json are resolved (msprobe: the current directory). */
export function readCompareInput(file: string, cwd = process.cwd()): CompareInput {
  let text: string;
  requireRegularFile(file);
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DumpFileError(file, code === 'ENOENT' ? 'compare.json not found' : `cannot be read (${code ?? e})`);
  }
  const v = readingFile(file, () => parsePyJson(text, { mode: 'python', file })) as PyValue;
  if (!(v instanceof Map)) throw new DumpFileError(file, 'compare.json must be a JSON object');
  const str = (key: string, required: boolean): string | null => {
    const x = v.get(key);
    if (x === undefined || x === null) {
      if (required) throw new DumpFileError(file, `'${key}' is missing`);
      return null;
    }
    if (typeof x !== 'string' || x === '') throw new DumpFileError(file, `'${key}' must be a path string`);
    return path.resolve(cwd, x);
  };
  const log = v.get('is_print_compare_log');
  if (log !== undefined && typeof log !== 'boolean') {
    throw new DumpFileError(file, "'is_print_compare_log' must be true or false");
  }
  return {
    file,
    npuPath: str('npu_path', true)!,
    benchPath: str('bench_path', true)!,
    stackPath: str('stack_path', false),
    isPrintCompareLog: log !== false,
    rankId: v.get('rank_id'),
    common: v.get('common') === true,
  };
}
