import type { PyValue } from '../formats/pyJson.js';

/** The dump mode, written as the file's `task` (msprobe-format.md §3.1). */
export type DumpMode = 'summary' | 'md5' | 'all' | 'structure';

/** A dump.json that cannot be compared: names the file and the problem (msprobe's own wording). */
export class DumpModeError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'DumpModeError';
  }
}

export interface DumpFiles {
  npu: string;
  bench: string;
}

function taskAndData(dump: PyValue, side: 'npu' | 'bench', file: string): { task: PyValue; data: Map<string, PyValue> } {
  const top = dump instanceof Map ? dump : new Map<string, PyValue>();
  const task = top.get('task') ?? null;
  // Python truthiness: '' / 0 / None / [] all mean "no task".
  if (!task || (Array.isArray(task) && task.length === 0) || (task instanceof Map && task.size === 0)) {
    throw new DumpModeError(file, `Task for ${side} is empty, please check.`);
  }
  if (!top.has('data')) throw new DumpModeError(file, `Missing 'data' in dump.json, please check dump.json of ${side}.`);
  const data = top.get('data');
  if (!(data instanceof Map)) {
    throw new DumpModeError(file, `Invalid type for 'data': expected a dict. Please check dump.json of ${side}.`);
  }
  return { task, data };
}

/** Python `'md5' in x` for the value kinds a dump entry field can hold. */
function containsMd5(x: PyValue): boolean {
  if (x instanceof Map) return x.has('md5');
  if (Array.isArray(x)) return x.some((e) => e === 'md5');
  if (typeof x === 'string') return x.includes('md5');
  return false;
}

function truthy(x: PyValue): boolean {
  if (x === null || x === false || x === '' || x === 0 || x === 0n) return false;
  if (Array.isArray(x)) return x.length > 0;
  if (x instanceof Map) return x.size > 0;
  return true;
}

/**
 * msprobe `md5_find`: only first-level list elements (input_args, input, output, new-style parameters_grad
 * lists) are searched for a dict with an `md5` key; dict fields are tested for a literal `md5` key.
 */
export function hasMd5(data: Map<string, PyValue>): boolean {
  for (const entry of data.values()) {
    if (!(entry instanceof Map)) continue;
    for (const field of entry.values()) {
      if (Array.isArray(field)) {
        for (const detail of field) if (truthy(detail) && containsMd5(detail)) return true;
      }
      if (typeof field === 'boolean') continue;
      if (truthy(field) && containsMd5(field)) return true;
    }
  }
  return false;
}

/**
 * msprobe `get_dump_mode` (§3.1). Throws `DumpModeError` with msprobe's messages.
 * Call it on the dump as read, before building the graph: the item parser reuses descriptor maps and adds an
 * `md5` key to every item, after which every statistics dump would look like an md5 dump.
 */
export function detectDumpMode(npuDump: PyValue, benchDump: PyValue, files: DumpFiles): DumpMode {
  const npu = taskAndData(npuDump, 'npu', files.npu);
  const bench = taskAndData(benchDump, 'bench', files.bench);
  if (npu.task !== bench.task) throw new DumpModeError(files.npu, 'Please check the dump task is consistent.');
  if (npu.task === 'tensor') return 'all';
  if (npu.task === 'structure') return 'structure';
  if (npu.task === 'statistics') {
    const npuMd5 = hasMd5(npu.data);
    const benchMd5 = hasMd5(bench.data);
    if (npuMd5 !== benchMd5) {
      throw new DumpModeError(
        files.npu,
        'Please check the dump task is consistent, dump mode of npu and bench should both be statistics or md5.',
      );
    }
    return npuMd5 ? 'md5' : 'summary';
  }
  throw new DumpModeError(files.npu, 'Compare applies only to task is tensor or statistics');
}

export type Framework = 'pytorch' | 'mindspore';

function firstFrameworkType(v: PyValue, depth = 0): Framework | null {
  if (depth > 500) return null;
  if (v instanceof Map) {
    for (const [k, sub] of v) {
      if (k === 'type' && typeof sub === 'string') {
        if (sub.startsWith('mindspore')) return 'mindspore';
        if (sub.startsWith('torch')) return 'pytorch';
      }
      const found = firstFrameworkType(sub, depth + 1);
      if (found) return found;
    }
  } else if (Array.isArray(v)) {
    for (const sub of v) {
      const found = firstFrameworkType(sub, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/**
 * msprobe `detect_framework_by_dump_json`: the `framework` key, else the first `"type": "mindspore…` /
 * `"type": "torch…` line of the file (pass `rawText` for the exact line scan; without it the parsed
 * descriptors are walked in file order, which finds the same first match for files msprobe wrote).
 */
export function detectFramework(dump: PyValue, file: string, rawText?: string): Framework {
  const top = dump instanceof Map ? dump : null;
  const framework = top?.get('framework');
  if (framework === 'pytorch' || framework === 'mindspore') return framework;
  if (rawText !== undefined) {
    for (const line of rawText.split('\n')) {
      if (/"type":\s*"mindspore/.test(line)) return 'mindspore';
      if (/"type":\s*"torch/.test(line)) return 'pytorch';
    }
  } else {
    const found = firstFrameworkType(dump);
    if (found) return found;
  }
  throw new DumpModeError(file, `${file} must be based on the MindSpore or PyTorch framework.`);
}

/** Cross-framework compare needs `-lm` (§3.1). */
export function isCrossFramework(
  npuDump: PyValue,
  benchDump: PyValue,
  files: DumpFiles,
  rawText?: { npu?: string; bench?: string },
): boolean {
  return detectFramework(npuDump, files.npu, rawText?.npu) !== detectFramework(benchDump, files.bench, rawText?.bench);
}

export const CROSS_FRAMEWORK_MESSAGE =
  'The cross_frame graph comparison failed. Please specify -lm or --layer_mapping when performing cross_frame graph comparison.';
