import type { PyValue } from '../formats/pyJson.js';
import { dictHas, forEachDictEntry, isDict, type DumpValue } from '../formats/pyJsonNative.js';
import { FileProblem } from '../fileProblem.js';

/** The dump mode, written as the file's `task` (msprobe-format.md §3.1). */
export type DumpMode = 'summary' | 'md5' | 'all' | 'structure';

/** A dump.json that cannot be compared: names the file and the problem (msprobe's own wording). */
export class DumpModeError extends FileProblem {
  override name = 'DumpModeError';
}

export interface DumpFiles {
  npu: string;
  bench: string;
}

/** A dump.json as either reader returns it: `data` is a Map of entries whose dicts may be plain objects. */
type DumpTop = DumpValue;

function taskAndData(dump: DumpTop, side: 'npu' | 'bench', file: string): { task: DumpValue; data: Map<string, DumpValue> } {
  const top = (dump instanceof Map ? dump : new Map()) as Map<string, DumpValue>;
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
function containsMd5(x: DumpValue): boolean {
  if (isDict(x)) return dictHas(x, 'md5');
  if (Array.isArray(x)) return x.some((e) => e === 'md5');
  if (typeof x === 'string') return x.includes('md5');
  return false;
}

function truthy(x: DumpValue): boolean {
  if (x === null || x === false || x === '' || x === 0 || x === 0n) return false;
  if (Array.isArray(x)) return x.length > 0;
  if (x instanceof Map) return x.size > 0;
  if (typeof x === 'object') {
    for (const _ in x) return true;
    return false;
  }
  return true;
}

/**
 * msprobe `md5_find`: only first-level list elements (input_args, input, output, new-style parameters_grad
 * lists) are searched for a dict with an `md5` key; dict fields are tested for a literal `md5` key.
 */
export function hasMd5(data: ReadonlyMap<string, DumpValue>): boolean {
  for (const entry of data.values()) if (entryHasMd5(entry)) return true;
  return false;
}

/** `md5_find` for one dump entry. */
export function entryHasMd5(entry: DumpValue): boolean {
  if (!isDict(entry)) return false;
  let found = false;
  forEachDictEntry(entry, (_, field) => {
    if (found) return;
    if (Array.isArray(field)) {
      for (const detail of field) if (truthy(detail) && containsMd5(detail)) found = true;
    }
    if (typeof field === 'boolean') return;
    if (truthy(field) && containsMd5(field)) found = true;
  });
  return found;
}

/** What mode detection needs from one side's dump.json, taken before the dump is let go. */
export interface DumpTask {
  task: DumpValue;
  /** `md5_find` of the data (computed for statistics dumps only, the one case that reads it). */
  md5: boolean;
}

/**
 * One side's half of msprobe `get_dump_mode` (§3.1): the task and, for a statistics dump, whether it carries md5.
 * Throws `DumpModeError` with msprobe's messages. `text` (the file's text) lets a file without the letters "md5"
 * skip the search.
 */
export function dumpTaskOf(dump: DumpTop, side: 'npu' | 'bench', file: string, text?: string): DumpTask {
  const { task, data } = taskAndData(dump, side, file);
  const md5 = task === 'statistics' && (text === undefined || text.includes('md5')) && hasMd5(data);
  return { task, md5 };
}

/**
 * `dumpTaskOf` from a dump read entry by entry: its top level (`data` a place holder), what `data` was, and
 * whether an entry had md5 (`entryHasMd5`, collected while reading).
 */
export function dumpTaskOfRead(
  top: ReadonlyMap<string, DumpValue>,
  data: 'entries' | 'absent' | 'other',
  md5: boolean,
  side: 'npu' | 'bench',
  file: string,
): DumpTask {
  const placeholder = new Map<string, DumpValue>([...top].map(([k, v]) => [k, k === 'data' && data === 'entries' ? new Map() : v]));
  const { task } = taskAndData(placeholder, side, file);
  return { task, md5: task === 'statistics' && md5 };
}

/** The other half of `get_dump_mode`: both sides' tasks agree, and which mode they make. */
export function dumpModeOf(npu: DumpTask, bench: DumpTask, files: DumpFiles): DumpMode {
  if (npu.task !== bench.task) throw new DumpModeError(files.npu, 'Please check the dump task is consistent.');
  if (npu.task === 'tensor') return 'all';
  if (npu.task === 'structure') return 'structure';
  if (npu.task === 'statistics') {
    if (npu.md5 !== bench.md5) {
      throw new DumpModeError(
        files.npu,
        'Please check the dump task is consistent, dump mode of npu and bench should both be statistics or md5.',
      );
    }
    return npu.md5 ? 'md5' : 'summary';
  }
  throw new DumpModeError(files.npu, 'Compare applies only to task is tensor or statistics');
}

/** msprobe `get_dump_mode` (§3.1) on two dumps as read. Throws `DumpModeError` with msprobe's messages. */
export function detectDumpMode(npuDump: DumpTop, benchDump: DumpTop, files: DumpFiles): DumpMode {
  return dumpModeOf(dumpTaskOf(npuDump, 'npu', files.npu), dumpTaskOf(benchDump, 'bench', files.bench), files);
}

export type Framework = 'pytorch' | 'mindspore';

/** The framework a descriptor's `type` names (`mindspore…`, `torch…`), or null. */
export function frameworkOfType(type: string): Framework | null {
  return type.startsWith('mindspore') ? 'mindspore' : type.startsWith('torch') ? 'pytorch' : null;
}

/** The framework of the first `type` naming one, in file order; nothing deeper than `maxDepth` is looked at. */
export function firstFrameworkType(v: DumpValue, maxDepth = 500, depth = 0): Framework | null {
  if (depth > maxDepth) return null;
  if (isDict(v)) {
    for (const [k, sub] of v instanceof Map ? v : Object.entries(v)) {
      if (k === 'type' && typeof sub === 'string') {
        const framework = frameworkOfType(sub);
        if (framework) return framework;
      }
      const found = firstFrameworkType(sub, maxDepth, depth + 1);
      if (found) return found;
    }
  } else if (Array.isArray(v)) {
    for (const sub of v) {
      const found = firstFrameworkType(sub, maxDepth, depth + 1);
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
export function detectFramework(dump: DumpTop, file: string, rawText?: string): Framework {
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
  npuDump: DumpTop,
  benchDump: DumpTop,
  files: DumpFiles,
  rawText?: { npu?: string; bench?: string },
): boolean {
  return detectFramework(npuDump, files.npu, rawText?.npu) !== detectFramework(benchDump, files.bench, rawText?.bench);
}

export const CROSS_FRAMEWORK_MESSAGE =
  'The cross_frame graph comparison failed. Please specify -lm or --layer_mapping when performing cross_frame graph comparison.';
