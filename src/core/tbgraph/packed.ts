/**
 * A `TbHierarchy` packed into typed arrays and UTF-8 string tables, so a worker thread can hand a 10^5-node graph to
 * the server's thread by transferring a dozen ArrayBuffers instead of structured-cloning ~10^6 objects (1.6 s and
 * more of a stalled event loop, bench/tb.mjs). Ids are looked up through a hash table built with the pack; a group's
 * edges stay numbers and an op's details JSON text (or its NodeDef's bytes, graphDefWire.ts) until asked for.
 */
import { Interner, KINDS, MAX_EDGE_LABELS, type TbHierarchy, type TbHNodeKind, type TbMetaEdge, type TbTree } from './hierarchy.js';
import type { TbGraph, TbOp } from './opGraph.js';

/** What the details panel reads of an op (apiView.ts): the op without its id and path, which the node carries. */
export type TbOpDetail = Omit<TbOp, 'id' | 'name' | 'path'>;

/** Op details by op index, made when asked (a binary GraphDef's are decoded from its bytes: graphDefWire.ts). */
export interface TbOpDetailSource {
  detail(k: number): TbOpDetail;
}

/** Strings appended one after another as UTF-8; string i is bytes [end[i-1], end[i]). */
export interface StringTable {
  bytes: Uint8Array;
  end: Uint32Array;
}

/**
 * The packed hierarchy: plain data and typed arrays only (postMessage it with `packedTransfer`). The op details
 * (`packOpDetails`) are a separate table: a worker sends them after the structure, which is all a first paint needs.
 */
export interface PackedTbHierarchy {
  /** Node i's id, label. */
  ids: StringTable;
  labels: StringTable;
  /**
   * The metaedges among node i's children are e in [edgeStart[i], edgeStart[i + 1]): between nodes edgeFrom[e] and
   * edgeTo[e], bundling edgeData[e] dataflow and edgeControl[e] control edges, labelled edgeLabels[3e … 3e + 2]
   * (indexes into `edgeLabelText`, -1 = none).
   */
  edgeStart: Uint32Array;
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  edgeData: Int32Array;
  edgeControl: Int32Array;
  edgeLabels: Int32Array;
  edgeLabelText: StringTable;
  kind: Uint8Array;
  /** Parent node index, -1 for the root (node 0). */
  parent: Int32Array;
  /** Node i's children are childList[childStart[i] … childStart[i + 1]). */
  childStart: Uint32Array;
  childList: Int32Array;
  /** Op index of node i, -1 for groups. */
  op: Int32Array;
  opCount: Int32Array;
  /** Node index of op i (TbHierarchy.opIds). */
  opNode: Int32Array;
  /** Open addressing over FNV-1a of the id's bytes: node index + 1, 0 = empty; length a power of two. */
  hash: Int32Array;
  format: TbGraph['format'];
  meta: TbGraph['meta'];
  problems: string[];
}

class TableBuilder {
  private bytes = new Uint8Array(1 << 16);
  private length = 0;
  private readonly ends: number[] = [];
  private readonly encoder = new TextEncoder();

  /** Appends `s`; returns its bytes (valid until the next add). */
  add(s: string): Uint8Array {
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    if (this.length + s.length * 3 > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + s.length * 3));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    const start = this.length;
    this.length += this.encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
    this.ends.push(this.length);
    return this.bytes.subarray(start, this.length);
  }

  done(): StringTable {
    return { bytes: this.bytes.slice(0, this.length), end: Uint32Array.from(this.ends) };
  }
}

const encoder = new TextEncoder();

/** `strings` in one table: one encode of them all when they are ASCII (a byte per unit), else one at a time. */
function tableOf(strings: readonly string[]): StringTable {
  const joined = strings.join('');
  const bytes = encoder.encode(joined);
  if (bytes.length !== joined.length) {
    const t = new TableBuilder();
    for (const s of strings) t.add(s);
    return t.done();
  }
  const end = new Uint32Array(strings.length);
  let e = 0;
  for (let i = 0; i < strings.length; i++) end[i] = e += strings[i].length;
  return { bytes, end };
}

function tableBytes(t: StringTable, i: number): Uint8Array {
  return t.bytes.subarray(i === 0 ? 0 : t.end[i - 1], t.end[i]);
}

function fnv1a(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

export function packHierarchy(h: TbHierarchy): PackedTbHierarchy {
  return packTree(h.tree);
}

export function packTree(t: TbTree): PackedTbHierarchy {
  // Pre-order from the root, so node 0 is the root and a group's subtree is contiguous.
  const size = t.ids.length;
  const order = new Int32Array(size);
  const index = new Int32Array(size);
  const stack = [0];
  for (let i = 0; stack.length; i++) {
    const node = stack.pop()!;
    order[i] = node;
    index[node] = i;
    const kids = t.children[node];
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
  }
  const inOrder = (a: readonly string[]) => Array.from(order, (node) => a[node]);
  const ids = tableOf(inOrder(t.ids));
  const labels = tableOf(inOrder(t.labels));
  const kind = new Uint8Array(size);
  const parent = new Int32Array(size);
  const childStart = new Uint32Array(size + 1);
  const childList = new Int32Array(size - 1);
  const op = new Int32Array(size);
  const opCount = new Int32Array(size);
  let slots = 1;
  while (slots < size * 2) slots *= 2;
  const hash = new Int32Array(slots);
  let c = 0;
  for (let i = 0; i < size; i++) {
    const node = order[i];
    for (let slot = fnv1a(tableBytes(ids, i)) & (slots - 1); ; slot = (slot + 1) & (slots - 1)) {
      if (hash[slot] === 0) {
        hash[slot] = i + 1;
        break;
      }
    }
    kind[i] = t.kinds[node];
    parent[i] = t.parent[node] < 0 ? -1 : index[t.parent[node]];
    childStart[i] = c;
    for (const k of t.children[node]) childList[c++] = index[k];
    op[i] = t.op[node];
    opCount[i] = t.opCount[node];
  }
  childStart[size] = c;
  return {
    ids,
    labels,
    ...packEdges(t, order, index),
    kind,
    parent,
    childStart,
    childList,
    op,
    opCount,
    opNode: Int32Array.from(t.opNode, (node) => index[node]),
    hash,
    format: t.table.format,
    meta: t.table.meta,
    problems: t.table.problems,
  };
}

function packEdges(t: TbTree, order: Int32Array, index: Int32Array) {
  let count = 0;
  for (const list of t.edges.values()) count += list.length;
  const edgeStart = new Uint32Array(order.length + 1);
  const edgeFrom = new Int32Array(count);
  const edgeTo = new Int32Array(count);
  const edgeData = new Int32Array(count);
  const edgeControl = new Int32Array(count);
  const edgeLabels = new Int32Array(count * MAX_EDGE_LABELS).fill(-1);
  const text = new Interner();
  let e = 0;
  order.forEach((node, i) => {
    edgeStart[i] = e;
    for (const edge of t.edges.get(node) ?? []) {
      edgeFrom[e] = index[edge.from];
      edgeTo[e] = index[edge.to];
      edgeData[e] = edge.data;
      edgeControl[e] = edge.control;
      edge.labels.forEach((l, k) => (edgeLabels[e * MAX_EDGE_LABELS + k] = text.of(l)));
      e++;
    }
  });
  edgeStart[order.length] = e;
  return { edgeStart, edgeFrom, edgeTo, edgeData, edgeControl, edgeLabels, edgeLabelText: tableOf(text.list) };
}

/** Op i's details as JSON, by op index: the costliest part of a pack (~600 bytes an op of a GraphDef). */
export function packOpDetails(graph: TbGraph): StringTable {
  const ops = new TableBuilder();
  for (const o of graph.ops) {
    const { id: _id, name: _name, path: _path, ...detail } = o;
    ops.add(JSON.stringify(detail));
  }
  return ops.done();
}

/** The buffers to transfer with a postMessage of `p` (they are unusable in the sender afterwards). */
export function packedTransfer(p: PackedTbHierarchy): ArrayBuffer[] {
  return packedArrays(p).map((v) => v.buffer as ArrayBuffer);
}

/** The typed arrays of `p`, in one fixed order (the disk cache stores them so, server/store/tbGraph/tbDiskCache.ts). */
export function packedArrays(p: PackedTbHierarchy): Array<Uint8Array | Int32Array | Uint32Array> {
  return [
    p.ids.bytes, p.ids.end, p.labels.bytes, p.labels.end, p.edgeStart, p.edgeFrom, p.edgeTo, p.edgeData, p.edgeControl,
    p.edgeLabels, p.edgeLabelText.bytes, p.edgeLabelText.end, p.kind, p.parent, p.childStart, p.childList, p.op, p.opCount,
    p.opNode, p.hash,
  ];
}

/** How many arrays packedArrays gives. */
export const PACKED_ARRAYS = 20;

/**
 * packedArrays's inverse for arrays read back from elsewhere (the disk cache): the hierarchy, or null when a type or
 * length does not fit.
 */
export function packedFromArrays(
  a: ReadonlyArray<unknown>,
  rest: Pick<PackedTbHierarchy, 'format' | 'meta' | 'problems'>,
): PackedTbHierarchy | null {
  if (a.length !== PACKED_ARRAYS) return null;
  const [idsBytes, idsEnd, labelsBytes, labelsEnd, edgeStart, edgeFrom, edgeTo, edgeData, edgeControl, edgeLabels, textBytes, textEnd] = a;
  const [kind, parent, childStart, childList, op, opCount, opNode, hash] = a.slice(12);
  const n = kind instanceof Uint8Array ? kind.length : 0;
  const ids = stringTable(idsBytes, idsEnd, n);
  const labels = stringTable(labelsBytes, labelsEnd, n);
  const edgeLabelText = textEnd instanceof Uint32Array ? stringTable(textBytes, textEnd, textEnd.length) : null;
  if (!ids || !labels || !edgeLabelText || !(kind instanceof Uint8Array) || n === 0) return null;
  const int32 = [edgeFrom, edgeTo, edgeData, edgeControl, edgeLabels, parent, childList, op, opCount, opNode, hash];
  if (!(edgeStart instanceof Uint32Array) || !(childStart instanceof Uint32Array) || !int32.every((x) => x instanceof Int32Array)) return null;
  const [from, to, data, control, labelIds, up, list, ops, counts, nodes, hashes] = int32 as Int32Array[];
  const edges = from.length;
  if (edgeStart.length !== n + 1 || edgeStart[n] !== edges || to.length !== edges || data.length !== edges || control.length !== edges || labelIds.length !== edges * 3) return null;
  if (up.length !== n || childStart.length !== n + 1 || list.length !== n - 1 || ops.length !== n || counts.length !== n) return null;
  return {
    ids, labels, edgeStart, edgeFrom: from, edgeTo: to, edgeData: data, edgeControl: control, edgeLabels: labelIds, edgeLabelText,
    kind, parent: up, childStart, childList: list, op: ops, opCount: counts, opNode: nodes, hash: hashes, ...rest,
  };
}

/** A string table of `count` strings from its two arrays, or null when they do not make one. */
export function stringTable(bytes: unknown, end: unknown, count: number): StringTable | null {
  return bytes instanceof Uint8Array && end instanceof Uint32Array && end.length === count && (count === 0 || end[count - 1] === bytes.length)
    ? { bytes, end }
    : null;
}

export function tableTransfer(t: StringTable): ArrayBuffer[] {
  return [t.bytes.buffer as ArrayBuffer, t.end.buffer as ArrayBuffer];
}

const decoder = new TextDecoder();

function tableGet(t: StringTable, i: number): string {
  return decoder.decode(t.bytes.subarray(i === 0 ? 0 : t.end[i - 1], t.end[i]));
}

/** Reads a packed hierarchy: lookups by node index, ids decoded on demand. */
export class TbView {
  readonly size: number;
  private readonly opCache = new Map<number, TbOpDetail>();
  private failed: string | null = null;

  private ops: TbOpDetailSource | null = null;

  /**
   * `ops`: the op details as packOpDetails's JSON table or a source that makes them; null: still on their way
   * (`setOpDetails`), and `op()` throws DetailsPending meanwhile.
   */
  constructor(
    readonly p: PackedTbHierarchy,
    ops: StringTable | TbOpDetailSource | null,
  ) {
    this.size = p.kind.length;
    if (ops) this.setOpDetails(ops);
  }

  setOpDetails(ops: StringTable | TbOpDetailSource): void {
    this.ops = 'detail' in ops ? ops : { detail: (k) => JSON.parse(tableGet(ops, k)) as TbOpDetail };
  }

  /** The details will not come (the worker failed after the structure): `op()` throws this problem. */
  failOpDetails(problem: string): void {
    this.failed = problem;
  }

  get hasOpDetails(): boolean {
    return this.ops !== null;
  }

  /** Node index of `id`, or -1. */
  indexOf(id: string): number {
    const want = encoder.encode(id);
    const { hash, ids } = this.p;
    const mask = hash.length - 1;
    for (let slot = fnv1a(want) & mask; hash[slot] !== 0; slot = (slot + 1) & mask) {
      const i = hash[slot] - 1;
      const start = i === 0 ? 0 : ids.end[i - 1];
      if (ids.end[i] - start !== want.length) continue;
      let same = true;
      for (let k = 0; k < want.length && same; k++) same = ids.bytes[start + k] === want[k];
      if (same) return i;
    }
    return -1;
  }

  id(i: number): string {
    return tableGet(this.p.ids, i);
  }

  label(i: number): string {
    return tableGet(this.p.labels, i);
  }

  kind(i: number): TbHNodeKind {
    return KINDS[this.p.kind[i]];
  }

  /** Parent index, -1 for the root. */
  parent(i: number): number {
    return this.p.parent[i];
  }

  children(i: number): Int32Array {
    return this.p.childList.subarray(this.p.childStart[i], this.p.childStart[i + 1]);
  }

  opCount(i: number): number {
    return this.p.opCount[i];
  }

  /** The op a node stands for (kept once parsed: details are asked again as a user clicks around), or null. */
  op(i: number): TbOpDetail | null {
    const k = this.p.op[i];
    if (k < 0) return null;
    if (this.ops === null) throw this.failed === null ? new DetailsPending() : new Error(this.failed);
    let o = this.opCache.get(k);
    if (!o) {
      if (this.opCache.size >= 10_000) this.opCache.clear();
      this.opCache.set(k, (o = this.ops.detail(k)));
    }
    return o;
  }

  /** Node id of op `k` (an input's source). */
  opId(k: number): string {
    return this.id(this.p.opNode[k]);
  }

  /** Metaedges among node i's children. */
  edges(i: number): TbMetaEdge[] {
    const p = this.p;
    const out: TbMetaEdge[] = [];
    for (let e = p.edgeStart[i]; e < p.edgeStart[i + 1]; e++) {
      const labels: string[] = [];
      for (let k = 0; k < MAX_EDGE_LABELS; k++) {
        const l = p.edgeLabels[e * MAX_EDGE_LABELS + k];
        if (l >= 0) labels.push(tableGet(p.edgeLabelText, l));
      }
      out.push({ from: this.id(p.edgeFrom[e]), to: this.id(p.edgeTo[e]), data: p.edgeData[e], control: p.edgeControl[e], labels });
    }
    return out;
  }

  /** Ancestor indexes from the root's child down to the parent (hierarchy.ts ancestorsOf). */
  ancestors(i: number): number[] {
    const out: number[] = [];
    for (let a = this.p.parent[i]; a > 0; a = this.p.parent[a]) out.push(a);
    return out.reverse();
  }
}

/** An op's details were asked for before they arrived from the worker (the caller answers "in progress"). */
export class DetailsPending extends Error {
  constructor() {
    super('the graph\'s op details are still being decoded');
    this.name = 'DetailsPending';
  }
}
