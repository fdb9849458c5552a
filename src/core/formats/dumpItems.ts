import { EMPTY_SHAPE, Item, ItemBuilder, type ItemShape, type RawItem } from '../model/item.js';
import { crc32Hex } from './crc32.js';
import { DumpFileError } from './dumpFileError.js';
import type { PyValue } from './pyJson.js';
import { dictGet, dictHas, isDict, toPy, type DumpDict, type DumpValue, type PlainDict } from './pyJsonNative.js';
import { pyStr, pyTruthy, pyTypeName } from './pyFormat.js';

/**
 * Flattening one dump.json entry into a node's `input_data` / `output_data` items (msprobe-format.md §2.5:
 * `read_op` → `op_item_parse` → `gen_op_item` → `get_input_output`). Item key order is part of the output
 * (§4.1 step 4), so every key is added in the order msprobe adds it.
 *
 * Entries may come from either JSON reader (dicts as Maps or plain objects); the dump is not changed. Items are
 * compact `Item`s (model/item.ts) with msprobe's key order.
 */

export type ItemState = 'input' | 'output' | 'parameters' | 'parameters_grad';

/** The entry fields read, in this order (it fixes the order of parameters in the output). */
export const IO_FIELDS: ReadonlyArray<readonly [field: string, suffix: string, state: ItemState]> = [
  ['input_args', '.input', 'input'],
  ['input_kwargs', '.input', 'input'],
  ['input', '.input', 'input'],
  ['output', '.output', 'output'],
  ['parameters', '.parameters', 'parameters'],
];

const STATS = ['Max', 'Min', 'Mean', 'Norm'] as const;
const RANK_ARGS = new Set(['src', 'dst', 'group_src', 'group_dst']);
const P2P_KEYS = ['class_type', 'op', 'peer', 'tag', 'group_id'] as const;
export const PARAMS_GRAD = 'parameters_grad';
/** msprobe's recursion limit of `op_item_parse`. */
export const MAX_DEPTH = 400;

export interface NodeData {
  inputData: Map<string, RawItem>;
  outputData: Map<string, RawItem>;
}

/** `get_input_output(read_op(entry, nodeId))`; a missing entry gives no data. Fills `into` when given. */
export function nodeInputOutput(entry: DumpValue | undefined, nodeId: string, file = 'dump.json', into?: NodeData): NodeData {
  return splitInputOutput(readOpItems(entry, nodeId, file), into);
}

/**
 * A dump's entries turned into node data as the file is read (dumpJson.ts `visitDumpJson` calls `add` for each),
 * so an entry's parse tree is garbage as soon as its items exist and the whole dump never sits in memory parsed.
 * What the build reads whole besides the items (batch_isend_irecv P2P ops) is kept as read. A problem in an entry
 * (the recursion limit) is kept too and raised when the build takes that entry, where reading it would have raised.
 */
export class PreparedEntries {
  private readonly data = new Map<string, NodeData | DumpFileError>();
  private readonly whole = new Map<string, DumpValue>();

  constructor(private readonly file: string) {}

  /** An entry's items, already made (dumpItemsFromBytes.ts: straight from the file's bytes). */
  addItems(name: string, items: RawItem[]): void {
    this.data.set(name, splitInputOutput(items));
  }

  add(name: string, entry: DumpValue): void {
    try {
      this.data.set(name, nodeInputOutput(entry, name, this.file));
    } catch (e) {
      if (!(e instanceof DumpFileError)) throw e;
      this.data.set(name, e);
    }
    if (this.keepsWhole(name)) this.whole.set(name, entry);
  }

  /** Entries kept as read besides their items: `add` must be given these. */
  keepsWhole(name: string): boolean {
    return name.includes('batch_isend_irecv');
  }

  names(): IterableIterator<string> {
    return this.data.keys();
  }

  has(name: string): boolean {
    return this.data.has(name);
  }

  /** The node data of `name`, handed over (the node owns it from then on); a name without an entry has none. */
  take(name: string): NodeData | undefined {
    const d = this.data.get(name);
    if (d instanceof DumpFileError) throw d;
    this.data.delete(name);
    return d;
  }

  /** The entry as read, for the P2P info of batch_isend_irecv nodes. */
  entry(name: string): DumpValue | undefined {
    return this.whole.get(name);
  }
}

/** `read_op`: the items of one entry, inputs, kwargs, backward inputs, outputs and parameters in that order. */
export function readOpItems(entry: DumpValue | undefined, opName: string, file = 'dump.json'): RawItem[] {
  if (!isDict(entry)) return [];
  // Parameter-gradient entries are `{weight: [..], bias: [..]}` themselves: `X.parameters_grad[.n]`.
  const out: RawItem[] = [];
  if (isParamsGradEntry(opName)) {
    parseValue(entry, opName, 'parameters_grad', 0, file, out);
    return out;
  }
  for (const [field, suffix, state] of IO_FIELDS) {
    if (dictHas(entry, field)) parseValue(dictGet(entry, field)!, opName + suffix, state, 0, file, out);
  }
  return out;
}

/** Parameter-gradient entries (`X.parameters_grad[.n]`) are `{weight: [..], bias: [..]}` themselves. */
export function isParamsGradEntry(opName: string): boolean {
  if (!opName.includes(PARAMS_GRAD)) return false;
  const segments = opName.split('.');
  return segments[segments.length - 1] === PARAMS_GRAD || segments[segments.length - 2] === PARAMS_GRAD;
}

/** Whether the elements of the list named `name` are named `name.{i}` (a parameter gradient's keeps the list's name). */
export function listIndexed(name: string): boolean {
  return !(name.includes(PARAMS_GRAD) && name.split('.').includes(PARAMS_GRAD));
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
function parseValue(v: DumpValue, name: string, state: ItemState, depth: number, file: string, out: RawItem[]): void {
  if (depth > MAX_DEPTH) throw new DumpFileError(file, `parse of api/module of ${name} exceeds the recursion limit.`);
  if (v === null) {
    out.push(defaultItem(name, state));
    return;
  }
  if (Array.isArray(v)) {
    // Parameter gradients are one-element lists per parameter: the element takes the list's own name.
    const indexed = listIndexed(name);
    for (let i = 0; i < v.length; i++) parseValue(v[i], indexed ? `${name}.${i}` : name, state, depth + 1, file, out);
    return;
  }
  if (v instanceof Map) {
    if (v.get('class_type') === 'torch.distributed.P2POp') {
      out.push(p2pItem(v, name, state));
      return;
    }
    if (typeof v.get('type') === 'string') {
      out.push(leafItem(v, name, state));
      return;
    }
    for (const [k, sub] of v) parseValue(sub, `${name}.${k}`, state, depth + 1, file, out);
    return;
  }
  if (typeof v !== 'object') return;
  // A plain dict from the native reader. Direct property reads are safe for these keys: none is on
  // Object.prototype, and JSON has no undefined values, so `!== undefined` means "has the key".
  const o = v as PlainDict;
  if (o.class_type === 'torch.distributed.P2POp') {
    out.push(p2pItem(o, name, state));
    return;
  }
  if (typeof o.type === 'string') {
    out.push(leafItem(o, name, state));
    return;
  }
  for (const k in o) parseValue(o[k], `${name}.${k}`, state, depth + 1, file, out);
}

/** A `torch.distributed.P2POp` argument: its tensor's item plus the op's own keys. */
function p2pItem(v: DumpDict, name: string, state: ItemState): Item {
  const tensor = dictGet(v, 'tensor');
  const item = isDict(tensor) ? leafItem(tensor, name, state) : defaultItem(name, state);
  for (const k of P2P_KEYS) item.set(k, dictHas(v, k) ? toPy(dictGet(v, k)) : null);
  return item;
}

const DEFAULT_SHAPE = ['full_op_name', 'type', 'Max', 'Min', 'Mean', 'Norm', 'dtype', 'shape', 'md5', 'value', 'data_name', 'state', 'requires_grad'].reduce(
  (shape: ItemShape, k) => shape.with(k),
  EMPTY_SHAPE,
);

/** The item of a `None` argument/output: every stat null, which the export turns into `{"value": "null"}`. */
export function defaultItem(name: string, state: ItemState): Item {
  return new Item(DEFAULT_SHAPE, [name, null, null, null, null, null, null, null, null, null, '-1', state, null]);
}

function itemValue(v: DumpValue): PyValue {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return v !== null && typeof v === 'object' ? toPy(v) : (v as PyValue);
}

const builder = new ItemBuilder();

/** `gen_op_item`: a copy of the descriptor (bools as "True"/"False") plus the keys parsing adds. */
function leafItem(desc: DumpDict, name: string, state: ItemState): Item {
  const original = dictHas(desc, 'value') ? toPy(dictGet(desc, 'value')) : undefined;
  const item = builder.reset();
  // The descriptor's keys and values in order (keys of a dict are distinct).
  if (desc instanceof Map) for (const [k, v] of desc) item.add(k, itemValue(v));
  else for (const k in desc) item.add(k, itemValue(desc[k]));
  const groupRanks = item.get('type') === 'torch.ProcessGroup' && dictHas(desc, 'group_ranks') ? toPy(dictGet(desc, 'group_ranks')) : null;
  return finishLeafItem(item, name, state, original, groupRanks);
}

/**
 * The rest of `gen_op_item`, once `item` holds the descriptor's keys and values as `leafItem` adds them: the keys
 * parsing adds, and the statistics of values that are not tensors. `original` is the descriptor's `value` as read
 * (undefined: none); `groupRanks` its `group_ranks` as read (read for process groups only).
 */
export function finishLeafItem(item: ItemBuilder, name: string, state: ItemState, original: PyValue | undefined, groupRanks: PyValue): Item {
  const dn = item.get('data_name');
  const dataName = pyTruthy(dn) ? pyStr(dn) : '-1';
  item.set('data_name', dataName);
  item.set('full_op_name', dataName !== '-1' ? rsplitHead(dataName) : name);
  item.set('state', state);
  if (!item.has('requires_grad')) item.add('requires_grad', null);
  for (const k of STATS) if (!item.has(k)) item.add(k, null);

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
      const text = pyStr(groupRanks);
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
  if (!pyTruthy(item.get('md5'))) item.set('md5', original === undefined ? EMPTY_CRC : crc32Hex(pyStr(original)));
  return item.build();
}

const EMPTY_CRC = crc32Hex('');

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
