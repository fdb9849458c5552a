import type { TensorDtype } from './npy.js';
import { TorchPtError } from './torchPtError.js';
import type { ZipEntry } from './zipDirectory.js';

export { TorchPtError };
export * from './zipDirectory.js';

/**
 * PyTorch `.pt` files written by `torch.save(tensor)` (the zip format, torch ≥ 1.6): a zip holding
 * `{prefix}/data.pkl` (a pickle calling `torch._utils._rebuild_tensor_v2`) and the raw storage in
 * `{prefix}/data/{key}`, stored uncompressed. Only plain tensors (optionally wrapped as a Parameter) are supported;
 * anything else is a `TorchPtError` naming the file. Pure: the Node reader (server/workers) reads the byte ranges
 * these functions ask for, so a large storage can be streamed from its file offset.
 *
 * msprobe loads `.pt` with `torch.load` and converts bfloat16 to float32 before comparing; `tensorDtype` reports
 * bfloat16 storages as 'bfloat16' (decoded exactly) and the comparison treats them as float32.
 */

export interface TorchTensorMeta {
  dtype: TensorDtype;
  itemSize: number;
  shape: number[];
  stride: number[];
  storageOffset: number;
  /** zip entry name of the storage, e.g. `archive/data/0` */
  storageEntry: string;
}

const STORAGE_TYPES: Record<string, [TensorDtype, number]> = {
  FloatStorage: ['float32', 4],
  DoubleStorage: ['float64', 8],
  HalfStorage: ['float16', 2],
  BFloat16Storage: ['bfloat16', 2],
  LongStorage: ['int64', 8],
  IntStorage: ['int32', 4],
  ShortStorage: ['int16', 2],
  CharStorage: ['int8', 1],
  ByteStorage: ['uint8', 1],
  BoolStorage: ['bool', 1],
};

const TORCH_DTYPES: Record<string, [TensorDtype, number]> = {
  float32: ['float32', 4],
  float: ['float32', 4],
  float64: ['float64', 8],
  double: ['float64', 8],
  float16: ['float16', 2],
  half: ['float16', 2],
  bfloat16: ['bfloat16', 2],
  int64: ['int64', 8],
  long: ['int64', 8],
  int32: ['int32', 4],
  int: ['int32', 4],
  int16: ['int16', 2],
  short: ['int16', 2],
  int8: ['int8', 1],
  uint8: ['uint8', 1],
  bool: ['bool', 1],
};

interface Global {
  kind: 'global';
  name: string;
}
interface Call {
  kind: 'call';
  fn: unknown;
  args: unknown[];
}
interface Persistent {
  kind: 'persistent';
  pid: unknown;
}
const MARK = Symbol('mark');

/** A pickle VM for the opcode subset torch.save emits (protocols 2–5); builds a tree of plain values. */
function unpickle(bytes: Uint8Array, file: string): unknown {
  const stack: unknown[] = [];
  const memo = new Map<number, unknown>();
  const text = new TextDecoder();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let p = 0;
  const fail = (what: string): never => {
    throw new TorchPtError(file, `unsupported pickle content in data.pkl (${what} at byte ${p})`);
  };
  const popMark = (): unknown[] => {
    const items: unknown[] = [];
    while (stack.length) {
      const v = stack.pop();
      if (v === MARK) return items.reverse();
      items.push(v);
    }
    return fail('missing MARK');
  };
  const readLine = (): string => {
    const end = bytes.indexOf(0x0a, p);
    if (end < 0) fail('unterminated line');
    const s = text.decode(bytes.subarray(p, end));
    p = end + 1;
    return s;
  };
  const str = (len: number): string => {
    const s = text.decode(bytes.subarray(p, p + len));
    p += len;
    return s;
  };
  const intLE = (len: number, signed: boolean): number | bigint => {
    let v = 0n;
    for (let i = len - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[p + i]);
    if (signed && len > 0 && bytes[p + len - 1] & 0x80) v -= 1n << BigInt(8 * len);
    p += len;
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  };
  while (p < bytes.length) {
    const op = bytes[p++];
    switch (op) {
      case 0x80: // PROTO
        p += 1;
        break;
      case 0x95: // FRAME
        p += 8;
        break;
      case 0x63: {
        // GLOBAL
        const module = readLine();
        const name = readLine();
        stack.push({ kind: 'global', name: `${module}.${name}` } satisfies Global);
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = stack.pop();
        const module = stack.pop();
        stack.push({ kind: 'global', name: `${String(module)}.${String(name)}` } satisfies Global);
        break;
      }
      case 0x28: // MARK
        stack.push(MARK);
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push([]);
        break;
      case 0x85: // TUPLE1
        stack.push([stack.pop()]);
        break;
      case 0x86: {
        const b = stack.pop();
        const a = stack.pop();
        stack.push([a, b]);
        break;
      }
      case 0x87: {
        const c = stack.pop();
        const b = stack.pop();
        const a = stack.pop();
        stack.push([a, b, c]);
        break;
      }
      case 0x74: // TUPLE
      case 0x6c: // LIST
        stack.push(popMark());
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x61: {
        // APPEND
        const v = stack.pop();
        (stack[stack.length - 1] as unknown[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        (stack[stack.length - 1] as unknown[]).push(...items);
        break;
      }
      case 0x7d: // EMPTY_DICT
        stack.push(new Map());
        break;
      case 0x64: {
        // DICT
        const items = popMark();
        const m = new Map();
        for (let i = 0; i + 1 < items.length; i += 2) m.set(items[i], items[i + 1]);
        stack.push(m);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = stack.pop();
        const k = stack.pop();
        const target = stack[stack.length - 1];
        if (target instanceof Map) target.set(k, v);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        const target = stack[stack.length - 1];
        if (target instanceof Map) for (let i = 0; i + 1 < items.length; i += 2) target.set(items[i], items[i + 1]);
        break;
      }
      case 0x4b: // BININT1
        stack.push(intLE(1, false));
        break;
      case 0x4d: // BININT2
        stack.push(intLE(2, false));
        break;
      case 0x4a: // BININT
        stack.push(intLE(4, true));
        break;
      case 0x8a: {
        // LONG1
        const n = bytes[p++];
        stack.push(intLE(n, true));
        break;
      }
      case 0x8b: {
        // LONG4
        const n = view.getUint32(p, true);
        p += 4;
        stack.push(intLE(n, true));
        break;
      }
      case 0x47: // BINFLOAT
        stack.push(view.getFloat64(p, false));
        p += 8;
        break;
      case 0x58: {
        // BINUNICODE
        const n = view.getUint32(p, true);
        p += 4;
        stack.push(str(n));
        break;
      }
      case 0x8c: {
        // SHORT_BINUNICODE
        const n = bytes[p++];
        stack.push(str(n));
        break;
      }
      case 0x8d: {
        // BINUNICODE8
        const n = Number(view.getBigUint64(p, true));
        p += 8;
        stack.push(str(n));
        break;
      }
      case 0x55: // SHORT_BINSTRING
      case 0x43: {
        // SHORT_BINBYTES
        const n = bytes[p++];
        stack.push(str(n));
        break;
      }
      case 0x54: // BINSTRING
      case 0x42: {
        // BINBYTES
        const n = view.getUint32(p, true);
        p += 4;
        stack.push(str(n));
        break;
      }
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x51: // BINPERSID
        stack.push({ kind: 'persistent', pid: stack.pop() } satisfies Persistent);
        break;
      case 0x52: {
        // REDUCE
        const args = stack.pop();
        const fn = stack.pop();
        const call: Call = { kind: 'call', fn, args: Array.isArray(args) ? args : [] };
        // OrderedDict() and friends become Maps so SETITEMS can fill them.
        if ((fn as Global)?.name === 'collections.OrderedDict') stack.push(new Map());
        else stack.push(call);
        break;
      }
      case 0x81: {
        // NEWOBJ
        const args = stack.pop();
        const cls = stack.pop();
        stack.push({ kind: 'call', fn: cls, args: Array.isArray(args) ? args : [] } satisfies Call);
        break;
      }
      case 0x62: // BUILD: state is ignored (tensor metadata only)
        stack.pop();
        break;
      case 0x71: // BINPUT
        memo.set(bytes[p++], stack[stack.length - 1]);
        break;
      case 0x72: // LONG_BINPUT
        memo.set(view.getUint32(p, true), stack[stack.length - 1]);
        p += 4;
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, stack[stack.length - 1]);
        break;
      case 0x68: // BINGET
        stack.push(memo.get(bytes[p++]));
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memo.get(view.getUint32(p, true)));
        p += 4;
        break;
      case 0x2e: // STOP
        return stack.pop();
      default:
        fail(`opcode 0x${op.toString(16)}`);
    }
  }
  return fail('no STOP');
}

function intList(v: unknown, what: string, file: string): number[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number')) {
    throw new TorchPtError(file, `unexpected tensor ${what} in data.pkl`);
  }
  return v as number[];
}

/** Reads `data.pkl`: dtype, shape, strides and where the storage is. */
export function parseTorchPickle(pkl: Uint8Array, prefix: string, file: string): TorchTensorMeta {
  let root = unpickle(pkl, file) as Call;
  if (root?.kind === 'call' && (root.fn as Global)?.name === 'torch._utils._rebuild_parameter') {
    root = root.args[0] as Call;
  }
  if (root?.kind !== 'call' || (root.fn as Global)?.name !== 'torch._utils._rebuild_tensor_v2') {
    const what = root?.kind === 'call' ? (root.fn as Global)?.name : typeof root;
    throw new TorchPtError(file, `not a plain tensor (top-level object: ${what ?? 'unknown'})`);
  }
  const [storage, offset, size, stride] = root.args as [Persistent, number, unknown, unknown];
  const pid = storage?.kind === 'persistent' ? storage.pid : null;
  if (!Array.isArray(pid) || pid[0] !== 'storage') throw new TorchPtError(file, 'tensor storage reference not found in data.pkl');
  const storageType = pid[1] as Global | Call;
  let typeInfo: [TensorDtype, number] | undefined;
  if ((storageType as Global)?.kind === 'global') {
    const name = (storageType as Global).name.split('.').pop() ?? '';
    typeInfo = STORAGE_TYPES[name];
    if (!typeInfo && (storageType as Global).name.startsWith('torch.')) typeInfo = TORCH_DTYPES[name];
  }
  if (!typeInfo) {
    const name = (storageType as Global)?.name ?? 'unknown';
    throw new TorchPtError(file, `unsupported tensor storage type ${name}`);
  }
  return {
    dtype: typeInfo[0],
    itemSize: typeInfo[1],
    shape: intList(size, 'size', file),
    stride: intList(stride, 'stride', file),
    storageOffset: typeof offset === 'number' ? offset : 0,
    storageEntry: `${prefix}data/${String(pid[2])}`,
  };
}

/** The pickle entry (`{prefix}data.pkl`) and its prefix. */
export function findPickleEntry(entries: ZipEntry[], file: string): { entry: ZipEntry; prefix: string } {
  const entry = entries.find((e) => e.name.endsWith('data.pkl') && !e.name.slice(0, -'data.pkl'.length).includes('/data/'));
  if (!entry) throw new TorchPtError(file, 'no data.pkl in the zip (not a torch.save file)');
  return { entry, prefix: entry.name.slice(0, -'data.pkl'.length) };
}
