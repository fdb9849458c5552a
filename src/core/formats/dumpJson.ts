import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';

/** dump.json of one rank (msprobe-format.md §1.4), read in Python mode: NaN kept, int ≠ float, key order kept. */
export interface DumpJson {
  /** `task`, `level`, `framework` as written (undefined when absent); mode detection reads them. */
  task: PyValue | undefined;
  level: PyValue | undefined;
  framework: PyValue | undefined;
  /** Copied verbatim into the output; `''` when the key is absent (msprobe's `get('dump_data_dir', '')`). */
  dumpDataDir: PyValue;
  /** dump name → entry (`input_args`, `output`, …), in file order. */
  data: Map<string, PyValue>;
  /** The whole file, for checks that read other top-level keys (compare mode detection). */
  top: Map<string, PyValue>;
}

export function parseDumpJson(text: string, file = 'dump.json'): DumpJson {
  const top = parsePyJson(text, { mode: 'python', file }) as PyValue;
  if (!(top instanceof Map)) throw new DumpFileError(file, 'the top level must be a JSON object');
  const data = top.has('data') ? top.get('data') : new Map<string, PyValue>();
  if (!(data instanceof Map)) throw new DumpFileError(file, "Invalid type for 'data': expected a dict (a JSON object)");
  return {
    task: top.get('task'),
    level: top.get('level'),
    framework: top.get('framework'),
    dumpDataDir: top.has('dump_data_dir') ? (top.get('dump_data_dir') as PyValue) : '',
    data,
    top,
  };
}
