import type { IoItem, NodeDetail, NodeSummary, Side } from '../../../src/core/api/types.js';
import { isObject, subnodeIds, type RawNode, type VisSide } from './visDocument.js';

/**
 * Raw `.vis` node → the API's node records. The tolerance rules are the reference viewer's (msprobe-format.md §7,
 * §5.2): string micro steps, `N___`/`B___` link prefixes, NaN precision, missing `data`/`stack_info`.
 */

export function nodeSummary(id: string, raw: RawNode, side: VisSide): NodeSummary {
  const data = isObject(raw.data) ? raw.data : {};
  return {
    id,
    nodeType: toInt(raw.node_type) ?? 0,
    precisionIndex: toFiniteNumber(data.precision_index),
    overflowLevel: typeof data.overflow_level === 'string' ? data.overflow_level : null,
    matchedNodeLink: matchedNodeLink(raw.matched_node_link),
    childCount: subnodeIds(raw, side.nodes).length,
    microStepId: toInt(raw.micro_step_id),
  };
}

export function nodeDetail(id: string, raw: RawNode, side: VisSide, sideName: Side): NodeDetail {
  const path = ancestors(id, side);
  return {
    ...nodeSummary(id, raw, side),
    side: sideName,
    upnode: path.length > 0 ? path[path.length - 1] : null,
    path,
    ...detailFields(raw),
  };
}

/** The parts of a node's detail that come from its own record only (shared with the streamed index's store). */
export function detailFields(
  raw: RawNode,
): Pick<NodeDetail, 'inputData' | 'outputData' | 'stackInfo' | 'suggestions' | 'parallelMergeInfo' | 'matchedDistributed'> {
  return {
    inputData: ioItems(raw.input_data),
    outputData: ioItems(raw.output_data),
    stackInfo: stringList(raw.stack_info),
    suggestions: isObject(raw.suggestions) ? raw.suggestions : {},
    parallelMergeInfo: stringList(raw.parallel_merge_info),
    matchedDistributed: raw.matched_distributed ?? null,
  };
}

/**
 * Root → parent. Nodes reachable from the root use the `subnodes` tree; unreachable ones (kept by JSON-era files,
 * msprobe-format.md §2.4) sit in the synthetic unreachable group under the root (server/store/unreachableGroup.ts).
 */
function ancestors(id: string, side: VisSide): string[] {
  const out: string[] = [];
  if (id === side.rootId) return out;
  const orphans = side.unreachable;
  const up = (n: string) => side.parentOf.get(n) ?? orphans?.parentOf.get(n) ?? (orphans && n !== orphans.id ? orphans.id : undefined);
  for (let parent = up(id); parent !== undefined; parent = parent === orphans?.id ? side.rootId : up(parent)) {
    out.push(parent);
    if (parent === side.rootId) break;
  }
  return out.reverse();
}

const LINK_PREFIX = /^(?:N|B)___/;

/** Legacy viewers stored links as `N___id` / `B___id` (msprobe-format.md §5.2); the id is what the app needs. */
export function matchedNodeLink(v: unknown): string[] {
  return stringList(v).map((s) => s.replace(LINK_PREFIX, ''));
}

/**
 * Items are objects of strings. Legacy files also hold bare values (`"input_arg.2": "None"`); they become
 * `{value: …}`, the shape msprobe uses for scalar arguments (§5.1 `{"value": "null"}`), so the row still shows.
 */
export function ioItems(v: unknown): Record<string, IoItem> {
  // Null prototype: item keys come from the file, and `__proto__` must stay an ordinary key.
  const out: Record<string, IoItem> = Object.create(null);
  if (!isObject(v)) return out;
  for (const key of Object.keys(v)) {
    const item = v[key];
    if (isObject(item)) out[key] = item;
    else if (item !== null && item !== undefined) out[key] = { value: item };
  }
  return out;
}

export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

/** JSON has no NaN/Infinity; the API says null for "no usable index" (msprobe-format.md §3.9: NaN → white). */
export function toFiniteNumber(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

/** Integers, or integer strings as legacy files write `micro_step_id` (msprobe-format.md §5.2). */
export function toInt(v: unknown): number | null {
  const n = toFiniteNumber(v);
  return n !== null && Number.isInteger(n) ? n : null;
}
