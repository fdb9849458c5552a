import type { PyValue } from '../formats/pyJson.js';
import type { Framework } from './mode.js';

/**
 * The scope of every dump entry for layer mapping (msprobe-format.md §3.2 c; msprobe
 * `core/compare/layer_mapping/data_scope_parser.py` + `postprocess_pass.py`):
 * modules → `{module path without its own name}.{module name}`; APIs → parent module path (construct.json) +
 * the framework entry function found in the stack + the API name; backward items borrow their forward twin's
 * scope; `ParallelTransformer.layers.N` indices are renumbered from the smallest one.
 */

/** Thrown where msprobe raises; the whole mapping then falls back to "no mapping". */
export class LayerMappingError extends Error {}

export interface DumpDataItem {
  dataName: string;
  apiType: string;
  apiName: string;
  typeName: string;
  state: string;
  layerScope: string;
  stackScope: string;
  fullScope: string;
}

const LAYER_NAMES = new Set(['Cell', 'Module']);
const STACK_SKIPPED_TYPES = new Set(['Primitive', 'Jit']);
const FRAME_FILES = ['site-packages/torch', 'package/torch', 'site-packages/mindspore', 'package/mindspore'];
const FILE_SKIP = ['msprobe', 'MindSpeed'];
const FUNC_SKIP = ['construct', '__call__'];

const STACK_SIGNS: Record<Framework, [RegExp, RegExp]> = {
  mindspore: [/Template/, /construct/],
  pytorch: [/Template/, /in (for|back)ward,/],
};

function at<T>(list: T[], index: number): T {
  const v = list[index < 0 ? list.length + index : index];
  if (v === undefined) throw new LayerMappingError('index out of range');
  return v;
}

function setName(item: DumpDataItem, dataName: string): void {
  const parts = dataName.split('.');
  if (parts.length < 4) {
    throw new LayerMappingError(`The dump data does not comply with the format specification: ${dataName}`);
  }
  if (at(parts, -1) === 'parameters_grad') {
    item.apiType = 'parameters_grad';
    item.apiName = at(parts, -3);
    item.typeName = at(parts, -2);
    item.state = 'parameters_grad';
    return;
  }
  item.apiType = parts[0];
  item.typeName = at(parts, -3);
  if (LAYER_NAMES.has(item.apiType)) {
    item.apiName = at(parts, -4);
    item.state = at(parts, -2);
  } else {
    item.apiName = item.typeName;
    item.state = at(parts, -1);
  }
}

function setLayerScope(item: DumpDataItem, constructInfo: string | null): void {
  let dataList: string[];
  if (LAYER_NAMES.has(item.apiType)) {
    const parts = item.dataName.split('.');
    dataList = [...parts.slice(0, parts.length - 4), ...parts.slice(parts.length - 3)];
  } else if (item.apiType === 'parameters_grad') {
    dataList = item.dataName.split('.');
  } else if (constructInfo) {
    dataList = constructInfo.split('.');
  } else {
    dataList = [];
  }
  item.layerScope = dataList.length ? dataList.slice(0, Math.max(0, dataList.length - 3)).join('.') : 'TopLayer';
  if (constructInfo && constructInfo.includes('.') && constructInfo.split('.').length < 4) {
    throw new LayerMappingError(`The construct data does not comply with the format specification: ${constructInfo}`);
  }
}

function funcNames(lines: Array<string | null>): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (!line) continue;
    const elements = line.split(',');
    const fileElement = elements[0];
    if (FILE_SKIP.some((s) => fileElement.includes(s))) continue;
    const funcElement = elements[2];
    if (funcElement === undefined) throw new LayerMappingError(`unreadable stack line: ${line}`);
    if (FUNC_SKIP.some((s) => funcElement.includes(s))) continue;
    const words = funcElement.trim().split(/\s+/);
    if (words.length < 2) throw new LayerMappingError(`unreadable stack line: ${line}`);
    out.push(words[1]);
  }
  return out.reverse();
}

function setStackScope(item: DumpDataItem, stackInfo: PyValue | undefined, framework: Framework): void {
  if (LAYER_NAMES.has(item.apiType)) return;
  if (STACK_SKIPPED_TYPES.has(item.apiType) || !truthy(stackInfo)) return;
  if (!Array.isArray(stackInfo) || stackInfo.some((s) => typeof s !== 'string')) {
    throw new LayerMappingError(`stack is invalid, it should be a list[str]: ${item.dataName}`);
  }
  const lines = stackInfo as string[];
  const [startSign, endSign] = STACK_SIGNS[framework];
  let start = -1;
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (startSign.test(lines[i])) start = i;
    else if (start >= 0 && endSign.test(lines[i])) {
      end = i;
      break;
    }
  }
  // The last framework-file line before the first user line is the API's framework entry function.
  let frameLine: string | null = null;
  let noEntrance = true;
  for (const line of lines.slice(start + 1, end)) {
    const fileElement = line.split(',')[0];
    if (FRAME_FILES.some((f) => fileElement.includes(f)) && noEntrance) frameLine = line;
    else noEntrance = false;
  }
  item.stackScope = funcNames([frameLine]).join('.');
}

function truthy(v: PyValue | undefined): boolean {
  if (v === null || v === undefined || v === false || v === '' || v === 0 || v === 0n) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  return true;
}

function makeItem(dataName: string, constructInfo: PyValue | undefined, stackInfo: PyValue | undefined, framework: Framework): DumpDataItem {
  const item: DumpDataItem = {
    dataName,
    apiType: '',
    apiName: '',
    typeName: '',
    state: '',
    layerScope: '',
    stackScope: '',
    fullScope: '',
  };
  setName(item, dataName);
  if (constructInfo !== null && constructInfo !== undefined && typeof constructInfo !== 'string') {
    throw new LayerMappingError(`construct.json value of ${dataName} is not a string`);
  }
  setLayerScope(item, (constructInfo as string | null | undefined) ?? null);
  setStackScope(item, stackInfo, framework);
  item.fullScope = [item.layerScope, ...(item.stackScope ? [item.stackScope] : []), item.apiName].join('.');
  return item;
}

function backwardPass(items: DumpDataItem[], byName: Map<string, DumpDataItem>): void {
  for (const item of items) {
    const parts = item.dataName.split('.');
    const tail = parts.slice(-2);
    if (!tail.includes('backward')) continue;
    const forwardName = [...parts.slice(0, parts.length - tail.length), ...tail.map((s) => s.split('backward').join('forward'))].join('.');
    const forward = byName.get(forwardName);
    if (!forward) continue;
    item.stackScope = forward.stackScope;
    item.fullScope = forward.fullScope;
    item.layerScope = forward.layerScope;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\\-/]/g, '\\$&');
}

/** Last number in the scope segment right after `prefix.`; Infinity when there is none. */
function nextItemLastNumber(scope: string, prefix: string): number {
  const m = new RegExp(`^${escapeRegExp(prefix)}\\.(\\S+?)(?:\\.|$)`).exec(scope);
  if (!m) return Infinity;
  const numbers = m[1].match(/\d+/g);
  return numbers ? Number(numbers[numbers.length - 1]) : Infinity;
}

function replaceNextItemIndex(scope: string, prefix: string, index: number): string {
  if (!Number.isFinite(index) && !Number.isNaN(index)) return scope;
  const prefixPattern = `^${escapeRegExp(prefix)}\\.`;
  const m = new RegExp(`${prefixPattern}(\\S+?)(?:\\.|$)`).exec(scope);
  if (!m) return scope;
  const text = Number.isNaN(index) ? 'nan' : String(index);
  return scope.replace(new RegExp(`${prefixPattern}${escapeRegExp(m[1])}`), () => `${prefix}.${text}`);
}

/** MindSpore numbers `layers.N` globally under pipeline parallelism, PyTorch per stage: renumber from 0. */
function renumberIndexPass(items: DumpDataItem[], typeName: string, suffix: string): void {
  const prefixes = new Map<string, number>();
  for (const item of items) if (item.typeName === typeName) prefixes.set(`${item.fullScope}.${suffix}`, Infinity);
  for (const prefix of prefixes.keys()) {
    let min = Infinity;
    for (const item of items) min = Math.min(min, nextItemLastNumber(item.fullScope, prefix));
    prefixes.set(prefix, min);
  }
  for (const [prefix, min] of prefixes) {
    for (const item of items) {
      const abs = nextItemLastNumber(item.fullScope, prefix);
      item.fullScope = replaceNextItemIndex(item.fullScope, prefix, abs - min);
    }
  }
}

/** msprobe `load_construct_json` parent lookup (Megatron `[parent, micro]` values take the parent). */
function constructParents(construct: PyValue): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  if (!(construct instanceof Map)) return out;
  const megatron = construct.has('megatron_micro_step_number');
  for (const [k, v] of construct) {
    if (megatron && k === 'megatron_micro_step_number') continue;
    if (megatron && Array.isArray(v)) {
      if (v.length !== 2) throw new LayerMappingError('Parse construct json file "construct.json" failed.');
      out.set(k, v[0]);
    } else {
      out.set(k, v);
    }
  }
  return out;
}

/** Every dump.json entry as a scoped item, in dump order (empty when stack.json or construct.json is empty). */
export function dumpDataItems(dump: PyValue, construct: PyValue, stack: PyValue, framework: Framework): DumpDataItem[] {
  if (!truthy(stack) || !truthy(construct)) return [];
  const parents = constructParents(construct);
  const stackMap = stack instanceof Map ? stack : new Map<string, PyValue>();
  const data = dump instanceof Map ? dump.get('data') : undefined;
  if (!(data instanceof Map)) return [];
  const items: DumpDataItem[] = [];
  const byName = new Map<string, DumpDataItem>();
  for (const name of data.keys()) {
    const item = makeItem(name, parents.get(name), stackMap.get(name), framework);
    items.push(item);
    byName.set(name, item);
  }
  backwardPass(items, byName);
  renumberIndexPass(items, 'ParallelTransformer', 'layers');
  return items;
}
