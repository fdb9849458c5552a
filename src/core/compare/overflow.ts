import type { PyValue } from '../formats/pyJson.js';
import { toPy, type DumpValue } from '../formats/pyJsonNative.js';
import type { Graph } from '../model/graph.js';

/**
 * `-oc` overflow levels (msprobe-format.md §2.11; msprobe `core/overflow_check`): per dump entry, the first
 * matching scene wins — critical (inputs normal, output inf/nan), high (both), medium (inputs only), high (output
 * norm > 100 × input norm) — then msprobe's ignore rules drop known false positives.
 */

export type OverflowLevel = 'medium' | 'high' | 'critical';

const CHECK_FIELDS = ['Max', 'Min', 'Mean'];
const OVERFLOW_VALUES = new Set(['inf', '-inf', 'nan']);

/** A descriptor dict whose Max/Min/Mean prints as inf/-inf/nan (`str(v).lower()` in msprobe). */
function hasNanInf(v: PyValue | undefined): boolean {
  if (!(v instanceof Map)) return false;
  for (const k of CHECK_FIELDS) {
    const x = v.get(k);
    // floats print inf/-inf/nan exactly when non-finite; ints and bools never do
    if (typeof x === 'number' ? !Number.isFinite(x) : typeof x === 'string' && OVERFLOW_VALUES.has(x.toLowerCase())) return true;
  }
  return false;
}

function hasAnomaly(v: PyValue | undefined): boolean {
  if (v instanceof Map) return hasNanInf(v);
  if (Array.isArray(v)) return v.some(hasAnomaly);
  return false;
}

interface ApiInfo {
  name: string;
  /** first two dot segments, lower-cased (`torch.empty`) */
  torchApi: string;
  inputArgs: PyValue[];
  inputKwargs: Map<string, PyValue>;
  outputs: PyValue[];
}

function asList(v: PyValue | undefined): PyValue[] {
  return Array.isArray(v) ? v : [];
}

function apiInfo(name: string, entry: PyValue): ApiInfo {
  const data = entry instanceof Map ? entry : new Map<string, PyValue>();
  const args = data.has('input_args') ? data.get('input_args') : data.get('input');
  const kwargs = data.get('input_kwargs');
  const parts = name.split('.');
  return {
    name,
    torchApi: (parts.length === 1 ? parts[0] : parts.slice(0, 2).join('.')).toLowerCase(),
    inputArgs: asList(args),
    inputKwargs: kwargs instanceof Map ? kwargs : new Map(),
    outputs: asList(data.get('output')),
  };
}

/** Largest non-NaN `Norm` among top-level `torch.Tensor` descriptors, or null when there is none. */
function maxTensorNorm(values: Iterable<PyValue>, current: number | null): number | null {
  let max = current;
  for (const d of values) {
    if (!(d instanceof Map) || d.get('type') !== 'torch.Tensor') continue;
    const v = d.get('Norm');
    // bools count as 0/1 like numpy; "True"/"False" are those bools after the item parser stringified them in place
    const norm =
      typeof v === 'number' ? v
      : typeof v === 'bigint' ? Number(v)
      : v === true || v === 'True' ? 1
      : v === false || v === 'False' ? 0
      : NaN;
    if (Number.isNaN(norm)) continue;
    if (max === null || norm > max) max = norm;
  }
  return max;
}

function numericalMutation(api: ApiInfo): boolean {
  const maxIn = maxTensorNorm(api.inputKwargs.values(), maxTensorNorm(api.inputArgs, null));
  const maxOut = maxTensorNorm(api.outputs, null);
  if (maxIn === null || maxOut === null) return false;
  if (maxIn === 0) return maxOut > 100;
  return maxOut / maxIn > 100;
}

function detectLevel(api: ApiInfo): OverflowLevel | null {
  let inputAnomaly = api.inputArgs.some(hasAnomaly);
  if (!inputAnomaly) for (const v of api.inputKwargs.values()) if (hasAnomaly(v)) inputAnomaly = true;
  const outputAnomaly = api.outputs.some(hasAnomaly);
  if (!inputAnomaly && outputAnomaly) return 'critical';
  if (inputAnomaly && outputAnomaly) return 'high';
  if (inputAnomaly && !outputAnomaly) return 'medium';
  if (numericalMutation(api)) return 'high';
  return null;
}

interface IgnoreRule {
  inputIndex: Set<number>;
  inputName: Set<string>;
  outputIndex: Set<number>;
}

const rule = (inputIndex: number[], inputName: string[], outputIndex: number[]): IgnoreRule => ({
  inputIndex: new Set(inputIndex),
  inputName: new Set(inputName),
  outputIndex: new Set(outputIndex),
});

// msprobe core/overflow_check/ignore_rules.yaml
const IGNORE_RULES = new Map<string, IgnoreRule>([
  ['torch.empty', rule([], [], [0])],
  ['torch.empty_like', rule([], [], [0])],
  ['torch.empty_strided', rule([], [], [0])],
  ['distributed.recv', rule([0], ['tensor'], [])],
  ['distributed.all_gather', rule([0], [], [])],
  ['distributed.reduce_scatter', rule([0], ['output'], [])],
  ['distributed._reduce_scatter_base', rule([0], [], [])],
  ['distributed.all_gather_into_tensor', rule([0], [], [])],
  ['distributed.reduce_scatter_tensor', rule([0], [], [])],
  ['tensor.masked_fill_', rule([0], [], [])],
]);

/** msprobe `Rule.match`: every inf/nan sits at an ignored position (checks only the kinds the rule lists). */
function ignored(api: ApiInfo): boolean {
  const r = IGNORE_RULES.get(api.torchApi);
  if (!r) return false;
  if (r.inputIndex.size && api.inputArgs.length) {
    for (let i = 0; i < api.inputArgs.length; i++) if (hasNanInf(api.inputArgs[i]) && !r.inputIndex.has(i)) return false;
  }
  if (r.inputName.size && api.inputKwargs.size) {
    for (const [k, v] of api.inputKwargs) if (hasNanInf(v) && !r.inputName.has(k)) return false;
  }
  if (r.outputIndex.size && api.outputs.length) {
    for (let i = 0; i < api.outputs.length; i++) if (hasNanInf(api.outputs[i]) && !r.outputIndex.has(i)) return false;
  }
  return true;
}

/** The overflow level of one dump entry, or null. */
export function overflowLevelOf(name: string, entry: PyValue): OverflowLevel | null {
  const api = apiInfo(name, entry);
  const level = detectLevel(api);
  if (level === null || ignored(api)) return null;
  return level;
}

/** Sets `data.overflowLevel` on every node of `graph` that has an overflowing dump entry. */
export function applyOverflowLevels(graph: Graph, dumpData: ReadonlyMap<string, DumpValue>): void {
  for (const [name, entry] of dumpData) {
    const node = graph.nodeMap.get(name);
    if (!node) continue;
    const level = overflowLevelOf(name, toPy(entry));
    if (level) node.data.overflowLevel = level;
  }
}
