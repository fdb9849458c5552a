import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { pyTruthy } from './pyFormat.js';
import { nativeObject } from './pyJsonNative.js';
import { jsonString, skipWs, stringEnd } from './jsonBytes.js';
import { textOfBytes } from './textLimit.js';
import { utf8Decode, type Utf8Decode } from './utf8.js';

/** construct.json (msprobe-format.md §1.5): child dump name → parent, in call order. */
export interface ConstructJson {
  /** null = top level (the file's `null` and `""` alike). */
  parents: Map<string, string | null>;
  /** Megatron dumps only: node → micro step (every listed node; 0 for plain values). */
  microSteps: Map<string, number> | null;
  /** Megatron dumps only: `megatron_micro_step_number` (the largest zero-based micro step). */
  megatronMicroStepNumber: number | null;
}

const MEGATRON_KEY = 'megatron_micro_step_number';

export const EMPTY_CONSTRUCT_PROBLEM =
  "The content of 'construct.json' is empty, failed to build graph. When dumping data, it is necessary to select " +
  "level L0 or mix in order to collect model structure data, that is, the content of 'construct.json' is not empty.";

/**
 * construct.json from its text or its UTF-8 bytes. From bytes, the common file (`{child: parent | null}`, no
 * Megatron micro steps) is read by a scan straight into the Map, without the text of the whole file and without a
 * JS object of ten thousands of keys in between; anything else takes the readers below.
 */
export function parseConstructJson(input: string | Uint8Array, file = 'construct.json', decode: Utf8Decode = utf8Decode): ConstructJson {
  if (typeof input !== 'string') {
    const parents = scanConstruct(input, decode);
    if (parents) return { parents, microSteps: null, megatronMicroStepNumber: null };
  }
  const text = typeof input === 'string' ? input : textOfBytes(input, file, decode);
  const top = nativeConstruct(text) ?? (parsePyJson(text, { mode: 'python', file }) as PyValue);
  if (!(top instanceof Map)) throw new DumpFileError(file, 'the top level must be a JSON object (child → parent)');
  const megatron = top.has(MEGATRON_KEY);
  const parents = new Map<string, string | null>();
  const microSteps = megatron ? new Map<string, number>() : null;
  let megatronMicroStepNumber: number | null = null;
  for (const [child, value] of top) {
    if (megatron && child === MEGATRON_KEY) {
      megatronMicroStepNumber = intValue(value, file, MEGATRON_KEY);
      continue;
    }
    let parent: PyValue = value;
    if (megatron && Array.isArray(value)) {
      if (value.length !== 2) throw new DumpFileError(file, `Parse construct json file "${basename(file)}" failed.`);
      parent = value[0];
      microSteps!.set(child, intValue(value[1], file, `the micro step of '${child}'`));
    } else if (microSteps) microSteps.set(child, 0);
    parents.set(child, parentValue(parent, file, child));
  }
  if (parents.size === 0) throw new DumpFileError(file, EMPTY_CONSTRUCT_PROBLEM);
  return { parents, microSteps, megatronMicroStepNumber };
}

/**
 * The plain `{child: parent | null}` file read from its bytes: each key and parent decoded as it is found, into the
 * Map (which keeps file order for integer-like names too, and, as both parsers do, a repeated name's first place
 * and last value). Null for anything else (empty, Megatron, other values, malformed), which the parsers read.
 */
export function scanConstruct(bytes: Uint8Array, decode: Utf8Decode = utf8Decode): Map<string, string | null> | null {
  const n = bytes.length;
  let i = skipWs(bytes, 0);
  if (bytes[i] !== 0x7b) return null;
  i = skipWs(bytes, i + 1);
  if (bytes[i] === 0x7d) return null;
  const out = new Map<string, string | null>();
  for (;;) {
    if (bytes[i] !== 0x22) return null;
    const keyEnd = stringEnd(bytes, i);
    if (keyEnd < 0) return null;
    const child = jsonString(bytes, i, keyEnd, decode);
    if (child === null || child === MEGATRON_KEY) return null;
    i = skipWs(bytes, keyEnd);
    if (bytes[i] !== 0x3a) return null;
    i = skipWs(bytes, i + 1);
    let parent: string | null;
    if (bytes[i] === 0x22) {
      const end = stringEnd(bytes, i);
      if (end < 0) return null;
      const value = jsonString(bytes, i, end, decode);
      if (value === null) return null;
      // parentValue: an empty name is no parent
      parent = value === '' ? null : value;
      i = end;
    } else if (bytes[i] === 0x6e && bytes[i + 1] === 0x75 && bytes[i + 2] === 0x6c && bytes[i + 3] === 0x6c) {
      parent = null;
      i += 4;
    } else return null;
    out.set(child, parent);
    i = skipWs(bytes, i);
    if (bytes[i] === 0x2c) {
      i = skipWs(bytes, i + 1);
      continue;
    }
    if (bytes[i] !== 0x7d) return null;
    return skipWs(bytes, i + 1) === n ? out : null;
  }
}

/**
 * The plain `{child: parent | null}` file through the native parser (several times faster): JS objects keep
 * insertion order except for integer-like keys, which come first, so the first key tells whether there are any.
 * Duplicate keys keep the first position and the last value in both parsers. Megatron files (ints whose int-vs-float
 * spelling is checked) and anything unusual take the Python-mode parser.
 */
function nativeConstruct(text: string): Map<string, PyValue> | null {
  const obj = nativeObject(text);
  if (!obj) return null;
  const out = new Map<string, PyValue>();
  let first = true;
  for (const k in obj) {
    if (first && /^(?:0|[1-9]\d*)$/.test(k) && Number(k) < 2 ** 32 - 1) return null;
    first = false;
    const parent = obj[k];
    if (parent !== null && typeof parent !== 'string') return null;
    out.set(k, parent);
  }
  if (out.has(MEGATRON_KEY)) return null;
  return out;
}

function parentValue(v: PyValue, file: string, child: string): string | null {
  if (!pyTruthy(v)) return null;
  if (typeof v !== 'string') throw new DumpFileError(file, `the parent of '${child}' must be a string or null`);
  return v;
}

function intValue(v: PyValue, file: string, what: string): number {
  if (typeof v === 'bigint') return Number(v);
  throw new DumpFileError(file, `${what} must be an integer`);
}

function basename(p: string): string {
  const at = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return p.slice(at + 1);
}
