import type { IoItem } from '../../src/core/api/types.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { PyFloat, type JsonTree } from '../../src/core/formats/pyJsonWrite.js';
import { ADD_MATCH_KEYS, type Items, type NodeChange } from '../../src/core/match/index.js';

/**
 * A changed node written back as the original viewer writes it after matching (reference-viewer.md §4.4: json.load,
 * change, json.dump): every value the change does not touch keeps its Python type and key order — parsed in `python`
 * mode, ints stay `bigint` and floats become PyFloat, so `1.0` is written `1.0` again — and the change's values are
 * written as the original computes them: the eight `*AbsErr` / `*RelativeErr` cells updated in place or appended in
 * its order (absolute errors are Python floats), removed by an unmatch; `precision_index` an int or a float as
 * NodeChange.precisionIsInt says, removed when null; `matched_node_link` the engine's path.
 */

const ADDED: ReadonlySet<string> = new Set(ADD_MATCH_KEYS);

/** JSON text as the tree Python's json.load would hold (see above). */
export function parseFaithful(text: string, file: string): JsonTree {
  return faithful(parsePyJson(text, { mode: 'python', file }));
}

function faithful(v: unknown): JsonTree {
  if (typeof v === 'number') return new PyFloat(v);
  if (Array.isArray(v)) return v.map(faithful);
  if (v instanceof Map) {
    const out = new Map<string, JsonTree>();
    for (const [k, x] of v as Map<string, unknown>) out.set(k, faithful(x));
    return out;
  }
  return v as JsonTree;
}

/** A value computed here (an item from the engine) as Python would hold it: integral numbers too are floats there. */
function fromJs(v: unknown): JsonTree {
  if (typeof v === 'number') return new PyFloat(v);
  if (Array.isArray(v)) return v.map(fromJs);
  if (v !== null && typeof v === 'object') {
    const out = new Map<string, JsonTree>();
    for (const [k, x] of Object.entries(v)) out.set(k, fromJs(x));
    return out;
  }
  return v as JsonTree;
}

/** The node object (as parsed by parseFaithful) with `change` applied; the input is not modified. */
export function applyToNode(node: JsonTree, change: NodeChange): Map<string, JsonTree> {
  if (!(node instanceof Map)) throw new Error(`node "${change.id}" is not a JSON object`);
  const out = new Map(node as Map<string, JsonTree>);
  out.set('matched_node_link', [...change.matchedNodeLink]);
  if (change.inputData) out.set('input_data', applyToItems(out.get('input_data'), change.inputData));
  if (change.outputData) out.set('output_data', applyToItems(out.get('output_data'), change.outputData));
  if (change.precisionIndex !== undefined) {
    const old = out.get('data');
    const data = new Map(old instanceof Map ? (old as Map<string, JsonTree>) : []);
    if (change.precisionIndex === null) data.delete('precision_index');
    else data.set('precision_index', precisionValue(change.precisionIndex, change.precisionIsInt === true));
    out.set('data', data);
  }
  return out;
}

/** `precision_index` as the original stores it: Python int 0/1 (md5, min(x, 1) = 1) or a float. */
export function precisionValue(value: number, isInt: boolean): JsonTree {
  return isInt && Number.isInteger(value) ? BigInt(value) : new PyFloat(value);
}

/** An items object (`input_data` / `output_data`) with the change's cells: items in the file's order. */
export function applyToItems(old: JsonTree | undefined, changed: Items): Map<string, JsonTree> {
  const out = new Map<string, JsonTree>();
  const before = old instanceof Map ? (old as Map<string, JsonTree>) : new Map<string, JsonTree>();
  for (const [key, item] of before) {
    const next = Object.prototype.hasOwnProperty.call(changed, key) ? changed[key] : undefined;
    out.set(key, next === undefined ? item : applyToItem(item, next));
  }
  for (const [key, item] of Object.entries(changed)) if (!before.has(key)) out.set(key, fromJs(item));
  return out;
}

function applyToItem(old: JsonTree, next: IoItem): JsonTree {
  if (!(old instanceof Map) || next === null || typeof next !== 'object' || Array.isArray(next)) return old;
  const out = new Map<string, JsonTree>();
  for (const [k, v] of old as Map<string, JsonTree>) {
    if (!ADDED.has(k)) out.set(k, v);
    else if (k in next) out.set(k, fromJs(next[k]));
  }
  for (const k of Object.keys(next)) if (ADDED.has(k) && !out.has(k)) out.set(k, fromJs(next[k]));
  return out;
}
