import { DumpFileError } from './dumpFileError.js';
import { parsePyJson, type PyValue } from './pyJson.js';
import { pyTruthy } from './pyFormat.js';
import { nativeObject } from './pyJsonNative.js';

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

export function parseConstructJson(text: string, file = 'construct.json'): ConstructJson {
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
