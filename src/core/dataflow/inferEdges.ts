import type { GraphEdge, IoItem } from '../api/types.js';

/**
 * The optional "dataflow" layer of msprobe graphs (issue 16). msprobe files carry no edges, only each node's formatted
 * input and output items (msprobe-format.md §2.5, §4.1), so an edge is inferred from child A to a later sibling B when
 * an output of A and an input of B carry the same fingerprint:
 * - md5 mode: dtype + shape + md5 (msprobe writes an md5 for every tensor then; "00000000", the crc32 of nothing
 *   that older statistics-mode files carry for every tensor (§2.5), is no md5);
 * - otherwise dtype + shape + Max + Min + Mean + Norm as the file prints them, not all four null.
 * Only tensors with at least two elements count: python scalars, None, `{"value": "null"}` items, process groups and
 * one-number tensors say too little to tell tensors apart.
 * The producer is the latest child before B that outputs the fingerprint (an in-place or identity op passes the same
 * tensor on; its consumer reads it from the last one). A fingerprint output by more than MAX_PRODUCERS children of
 * the module is ambiguous (zero gradients, constant masks) and gives no edge. Parallel edges between two children are
 * bundled with a count and up to MAX_LABELS `dtype[shape]` labels, marked `inferred`.
 */

/** A module's child as the inference reads it (GraphStore.items' NodeItems plus the id). */
export interface DataflowChild {
  id: string;
  inputData: Record<string, IoItem>;
  outputData: Record<string, IoItem>;
}

/** More distinct producers than this and a fingerprint identifies no one tensor. */
export const MAX_PRODUCERS = 8;
/** Distinct labels kept per bundled edge, as for TensorBoard graphs (src/core/tbgraph/hierarchy.ts). */
export const MAX_LABELS = 3;
/** A module with more children than this gets no inferred edges (the server says why: ChildrenResponse.dataflowSkipped). */
export const DATAFLOW_MAX_CHILDREN = 2000;

/** The crc32 of the empty string: what msprobe writes as the `md5` of a tensor dumped without one (§2.5). */
const NO_MD5 = '00000000';
const STATS = ['Max', 'Min', 'Mean', 'Norm'] as const;
const SHAPE = /^\[\s*(\d+(?:\s*,\s*\d+)*)?\s*\]$/;

function text(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

const isNull = (s: string | null) => s === null || s === '' || s === 'null' || s === 'None';

export interface Fingerprint {
  /** Equal keys = the same tensor, by the rule above. */
  key: string;
  /** `dtype[shape]`, what the edge shows. */
  label: string;
}

/** The fingerprint of one formatted item, or null when it is no tensor or says too little to identify one. */
export function fingerprint(item: IoItem): Fingerprint | null {
  if (typeof item !== 'object' || item === null) return null;
  const type = text(item.type);
  // `torch.Tensor`, `mindspore.Tensor`: scalars, None, slices, process groups and devices are no dataflow.
  if (type === null || !type.endsWith('Tensor')) return null;
  const dtype = text(item.dtype);
  const shape = text(item.shape);
  const dims = shape === null ? null : SHAPE.exec(shape);
  if (dtype === null || isNull(dtype) || !dims) return null;
  const sizes = dims[1] ? dims[1].split(',').map((d) => Number(d.trim())) : [];
  if (sizes.reduce((n, d) => n * d, 1) < 2) return null;
  const label = `${dtype}[${sizes.join(',')}]`;
  const md5 = text(item.md5);
  if (!isNull(md5) && md5 !== NO_MD5) return { key: `md5\u0000${label}\u0000${md5}`, label };
  const stats = STATS.map((k) => text(item[k]));
  if (stats.every(isNull)) return null;
  return { key: `stats\u0000${label}\u0000${stats.map((s) => (isNull(s) ? 'null' : s)).join('\u0000')}`, label };
}

/**
 * Inferred edges among `children` (a module's direct children in execution order; undefined = a child without items,
 * e.g. the synthetic unreachable group), by the rule at the top of this file. Edges come in the order of their
 * consumer, then of their producer.
 */
export function inferDataflow(children: ReadonlyArray<DataflowChild | undefined>): GraphEdge[] {
  // Fingerprint → indexes of the children that output it, ascending, each once.
  const producers = new Map<string, number[]>();
  children.forEach((child, i) => {
    if (!child) return;
    for (const item of Object.values(child.outputData)) {
      const fp = fingerprint(item);
      if (!fp) continue;
      const list = producers.get(fp.key);
      if (!list) producers.set(fp.key, [i]);
      else if (list[list.length - 1] !== i) list.push(i);
    }
  });
  const edges: GraphEdge[] = [];
  children.forEach((child, j) => {
    if (!child) return;
    const fromHere = new Map<number, GraphEdge>();
    for (const item of Object.values(child.inputData)) {
      const fp = fingerprint(item);
      const list = fp && producers.get(fp.key);
      if (!fp || !list || list.length > MAX_PRODUCERS) continue;
      const from = latestBefore(list, j);
      if (from < 0) continue;
      let edge = fromHere.get(from);
      if (!edge) fromHere.set(from, (edge = { from: children[from]!.id, to: child.id, data: 0, control: 0, labels: [], inferred: true }));
      edge.data++;
      if (edge.labels.length < MAX_LABELS && !edge.labels.includes(fp.label)) edge.labels.push(fp.label);
    }
    for (const from of [...fromHere.keys()].sort((a, b) => a - b)) edges.push(fromHere.get(from)!);
  });
  return edges;
}

/** The largest index in the ascending `list` below `j`, or -1. */
function latestBefore(list: readonly number[], j: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1 >= 0 ? list[lo - 1] : -1;
}
