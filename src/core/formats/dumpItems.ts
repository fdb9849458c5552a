import type { RawItem } from '../model/graph.js';
import { crc32Hex } from './crc32.js';
import { DumpFileError } from './dumpFileError.js';
import type { PyValue } from './pyJson.js';
import { pyStr, pyTruthy, pyTypeName } from './pyFormat.js';

/**
 * Flattening one dump.json entry into a node's `input_data` / `output_data` items (msprobe-format.md §2.5:
 * `read_op` → `op_item_parse` → `gen_op_item` → `get_input_output`). Item key order is part of the output
 * (§4.1 step 4), so every key is added in the order msprobe adds it.
 *
 * Memory: msprobe copies each tensor descriptor into a new dict; here the parsed descriptor Map itself becomes the
 * item (same keys, same order), which halves the memory of a run. The entry is therefore changed: callers read
 * anything else they need from dump.json (mode, overflow levels, layer mapping) before building.
 */

export type ItemState = 'input' | 'output' | 'parameters' | 'parameters_grad';

/** The entry fields read, in this order (it fixes the order of parameters in the output). */
const IO_FIELDS: ReadonlyArray<readonly [field: string, suffix: string, state: ItemState]> = [
  ['input_args', '.input', 'input'],
  ['input_kwargs', '.input', 'input'],
  ['input', '.input', 'input'],
  ['output', '.output', 'output'],
  ['parameters', '.parameters', 'parameters'],
];

const STATS = ['Max', 'Min', 'Mean', 'Norm'] as const;
const RANK_ARGS = new Set(['src', 'dst', 'group_src', 'group_dst']);
const P2P_KEYS = ['class_type', 'op', 'peer', 'tag', 'group_id'] as const;
const PARAMS_GRAD = 'parameters_grad';
const MAX_DEPTH = 400;

export interface NodeData {
  inputData: Map<string, RawItem>;
  outputData: Map<string, RawItem>;
}

/** `get_input_output(read_op(entry, nodeId))`; a missing entry gives no data. Fills `into` when given. */
export function nodeInputOutput(entry: PyValue | undefined, nodeId: string, file = 'dump.json', into?: NodeData): NodeData {
  return splitInputOutput(readOpItems(entry, nodeId, file), into);
}

/** `read_op`: the items of one entry, inputs, kwargs, backward inputs, outputs and parameters in that order. */
export function readOpItems(entry: PyValue | undefined, opName: string, file = 'dump.json'): RawItem[] {
  if (!(entry instanceof Map)) return [];
  const segments = opName.split('.');
  // Parameter-gradient entries are `{weight: [..], bias: [..]}` themselves: `X.parameters_grad[.n]`.
  const out: RawItem[] = [];
  if (segments[segments.length - 1] === PARAMS_GRAD || segments[segments.length - 2] === PARAMS_GRAD) {
    parseValue(entry, opName, 'parameters_grad', 0, file, out);
    return out;
  }
  for (const [field, suffix, state] of IO_FIELDS) {
    if (entry.has(field)) parseValue(entry.get(field)!, opName + suffix, state, 0, file, out);
  }
  return out;
}

/** `get_input_output`: outputs are keyed by their full name, everything else (params too) lands in inputs. */
export function splitInputOutput(items: RawItem[], into?: NodeData): NodeData {
  const inputData = into?.inputData ?? new Map<string, RawItem>();
  const outputData = into?.outputData ?? new Map<string, RawItem>();
  for (const item of items) {
    const fullOpName = item.get('full_op_name');
    if (typeof fullOpName !== 'string' || !fullOpName) continue;
    if (fullOpName.includes('.output.') && !fullOpName.includes('.input.')) {
      outputData.set(fullOpName, item);
      continue;
    }
    const dataName = item.get('data_name');
    // Real-tensor dumps key items by their file name minus the extension.
    inputData.set(typeof dataName === 'string' && dataName !== '-1' ? rsplitHead(dataName) : fullOpName, item);
  }
  return { inputData, outputData };
}

/** `op_item_parse`, appending the items of `v` to `out`. */
function parseValue(v: PyValue, name: string, state: ItemState, depth: number, file: string, out: RawItem[]): void {
  if (depth > MAX_DEPTH) throw new DumpFileError(file, `parse of api/module of ${name} exceeds the recursion limit.`);
  if (v === null) {
    out.push(defaultItem(name, state));
    return;
  }
  if (Array.isArray(v)) {
    // Parameter gradients are one-element lists per parameter: the element takes the list's own name.
    const indexed = !(name.includes(PARAMS_GRAD) && name.split('.').includes(PARAMS_GRAD));
    for (let i = 0; i < v.length; i++) parseValue(v[i], indexed ? `${name}.${i}` : name, state, depth + 1, file, out);
    return;
  }
  if (!(v instanceof Map) || v.size === 0) return;
  if (v.get('class_type') === 'torch.distributed.P2POp') {
    const tensor = v.get('tensor');
    const item = tensor instanceof Map ? leafItem(tensor, name, state) : defaultItem(name, state);
    for (const k of P2P_KEYS) item.set(k, v.has(k) ? v.get(k)! : null);
    out.push(item);
    return;
  }
  if (typeof v.get('type') === 'string') {
    out.push(leafItem(v, name, state));
    return;
  }
  for (const [k, sub] of v) parseValue(sub, `${name}.${k}`, state, depth + 1, file, out);
}

/** The item of a `None` argument/output: every stat null, which the export turns into `{"value": "null"}`. */
function defaultItem(name: string, state: ItemState): RawItem {
  return new Map<string, PyValue>([
    ['full_op_name', name],
    ['type', null],
    ['Max', null],
    ['Min', null],
    ['Mean', null],
    ['Norm', null],
    ['dtype', null],
    ['shape', null],
    ['md5', null],
    ['value', null],
    ['data_name', '-1'],
    ['state', state],
    ['requires_grad', null],
  ]);
}

/** `gen_op_item`: the descriptor (bools as "True"/"False") plus the keys parsing adds, reused in place. */
function leafItem(desc: Map<string, PyValue>, name: string, state: ItemState): RawItem {
  const original = desc.has('value') ? desc.get('value')! : undefined;
  const item: RawItem = desc;
  for (const [k, v] of desc) if (typeof v === 'boolean') item.set(k, v ? 'True' : 'False');
  const dn = desc.get('data_name');
  const dataName = pyTruthy(dn) ? pyStr(dn) : '-1';
  item.set('data_name', dataName);
  item.set('full_op_name', dataName !== '-1' ? rsplitHead(dataName) : name);
  item.set('state', state);
  if (!item.has('requires_grad')) item.set('requires_grad', null);
  for (const k of STATS) if (!item.has(k)) item.set(k, null);

  if (!pyTruthy(item.get('dtype'))) {
    const type = item.get('type');
    const value = original === undefined ? null : original;
    if (type === 'torch.Size') {
      item.set('dtype', type);
      item.set('shape', pyStr(value));
    } else if (type === 'slice') {
      item.set('dtype', type);
      item.set('shape', numpyShape(value));
    } else if (type === 'ellipsis') {
      item.set('dtype', type);
      item.set('shape', '[]');
      for (const k of STATS) item.set(k, value);
    } else if (RANK_ARGS.has(name.slice(name.lastIndexOf('.') + 1))) {
      const text = pyStr(value);
      item.set('dtype', type ?? null);
      item.set('shape', '[]');
      for (const k of STATS) item.set(k, text);
      item.set('md5', text);
    } else if (type === 'torch.ProcessGroup') {
      const text = pyStr(desc.has('group_ranks') ? desc.get('group_ranks')! : null);
      item.set('dtype', type);
      item.set('shape', '[]');
      for (const k of STATS) item.set(k, text);
      item.set('md5', text);
    } else {
      item.set('dtype', pyTypeName(value));
      item.set('shape', '[]');
      for (const k of STATS) item.set(k, value);
    }
  }
  if (!pyTruthy(item.get('md5'))) item.set('md5', crc32Hex(original === undefined ? '' : pyStr(original)));
  return item;
}

/** `name.rsplit('.', 1)[0]` */
function rsplitHead(name: string): string {
  const at = name.lastIndexOf('.');
  return at < 0 ? name : name.slice(0, at);
}

/** `str(np.shape(np.array(value)))` for the nested lists a slice value can be, e.g. `(3,)`. */
function numpyShape(value: PyValue): string {
  const dims: number[] = [];
  let level: PyValue[] = [value];
  while (level.every((x) => Array.isArray(x))) {
    const len = (level[0] as PyValue[]).length;
    // A ragged level stops the shape there (numpy would make an object array of that level).
    if (!level.every((x) => (x as PyValue[]).length === len)) break;
    dims.push(len);
    if (len === 0) break;
    level = level.flatMap((x) => x as PyValue[]);
  }
  if (dims.length === 0) return '()';
  return dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
}
