import type { PyValue } from '../formats/pyJson.js';
import { pyTruthy } from '../formats/pyFormat.js';
import type { TableMode } from './columns.js';
import { DumpContentError } from './dumpValidation.js';

/**
 * msprobe `get_dump_mode` for the compare table (msprobe-compare.md §1.4). Same rule and wording as
 * core/compare/mode.ts, but from what the streaming reader collected (top-level keys and an md5 flag) instead of
 * two whole parsed files.
 */

export interface DumpSummary {
  file: string;
  top: ReadonlyMap<string, PyValue>;
  hasData: boolean;
  dataIsObject: boolean;
  hasMd5: boolean;
}

function check(d: DumpSummary, side: 'npu' | 'bench'): PyValue {
  const task = d.top.get('task');
  if (task === undefined || !pyTruthy(task)) throw new DumpContentError(d.file, `Task for ${side} is empty, please check.`);
  if (!d.hasData) throw new DumpContentError(d.file, `Missing 'data' in dump.json, please check dump.json of ${side}.`);
  if (!d.dataIsObject) {
    throw new DumpContentError(d.file, `Invalid type for 'data': expected a dict. Please check dump.json of ${side}.`);
  }
  return task;
}

export function tableMode(npu: DumpSummary, bench: DumpSummary): TableMode {
  const npuTask = check(npu, 'npu');
  const benchTask = check(bench, 'bench');
  if (npuTask !== benchTask) {
    throw new DumpContentError(npu.file, `Please check the dump task is consistent (npu: ${String(npuTask)}, bench: ${String(benchTask)}).`);
  }
  if (npuTask === 'tensor') return 'all';
  if (npuTask === 'statistics') {
    if (npu.hasMd5 !== bench.hasMd5) {
      throw new DumpContentError(
        npu.file,
        'Please check the dump task is consistent, dump mode of npu and bench should both be statistics or md5.',
      );
    }
    return npu.hasMd5 ? 'md5' : 'summary';
  }
  throw new DumpContentError(npu.file, `Compare applies only to task is tensor or statistics (task is ${String(npuTask)}).`);
}
