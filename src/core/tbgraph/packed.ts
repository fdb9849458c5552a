/**
 * A `TbHierarchy` packed into typed arrays and UTF-8 string tables, so a worker thread can hand a 10^5-node graph to
 * the server's thread by transferring a dozen ArrayBuffers instead of structured-cloning ~10^6 objects (1.6 s and
 * more of a stalled event loop, bench/tb.mjs). Ids are looked up through a hash table built with the pack; an op's
 * details and a group's edges stay JSON text until asked for.
 */
import { ROOT_ID, type TbHierarchy, type TbHNodeKind, type TbMetaEdge } from './hierarchy.js';
import type { TbGraph, TbOp } from './opGraph.js';

/** What the details panel reads of an op (apiView.ts): the op without its id and path, which the node carries. */
export type TbOpDetail = Omit<TbOp, 'id' | 'name' | 'path'>;

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
  /** Node i's id, label; the metaedges among node i's children ('' when none). */
  ids: StringTable;
  labels: StringTable;
  edges: StringTable;
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

const KINDS: TbHNodeKind[] = ['root', 'scope', 'series', 'op'];

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

function fnv1a(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h >>> 0;
}

export function packHierarchy(h: TbHierarchy): PackedTbHierarchy {
  // Pre-order from the root, so node 0 is the root and a group's subtree is contiguous.
  const order: string[] = [];
  const stack = [ROOT_ID];
  while (stack.length) {
    const id = stack.pop()!;
    order.push(id);
    const kids = h.nodes.get(id)!.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  const n = order.length;
  const index = new Map<string, number>();
  order.forEach((id, i) => index.set(id, i));
  const ids = new TableBuilder();
  const labels = new TableBuilder();
  const edges = new TableBuilder();
  const kind = new Uint8Array(n);
  const parent = new Int32Array(n);
  const childStart = new Uint32Array(n + 1);
  const childList = new Int32Array(n - 1);
  const op = new Int32Array(n);
  const opCount = new Int32Array(n);
  let size = 1;
  while (size < n * 2) size *= 2;
  const hash = new Int32Array(size);
  let c = 0;
  for (let i = 0; i < n; i++) {
    const node = h.nodes.get(order[i])!;
    const bytes = ids.add(node.id);
    for (let slot = fnv1a(bytes) & (size - 1); ; slot = (slot + 1) & (size - 1)) {
      if (hash[slot] === 0) {
        hash[slot] = i + 1;
        break;
      }
    }
    labels.add(node.label);
    const edgeList = h.edges.get(node.id);
    edges.add(edgeList?.length ? JSON.stringify(edgeList) : '');
    kind[i] = KINDS.indexOf(node.kind);
    parent[i] = node.parent === null ? -1 : index.get(node.parent)!;
    childStart[i] = c;
    for (const k of node.children) childList[c++] = index.get(k)!;
    op[i] = node.op;
    opCount[i] = node.opCount;
  }
  childStart[n] = c;
  return {
    ids: ids.done(),
    labels: labels.done(),
    edges: edges.done(),
    kind,
    parent,
    childStart,
    childList,
    op,
    opCount,
    opNode: Int32Array.from(h.opIds, (id) => index.get(id)!),
    hash,
    format: h.graph.format,
    meta: h.graph.meta,
    problems: h.graph.problems,
  };
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
  const views: ArrayBufferView[] = [p.ids.bytes, p.ids.end, p.labels.bytes, p.labels.end, p.edges.bytes, p.edges.end];
  views.push(p.kind, p.parent, p.childStart, p.childList, p.op, p.opCount, p.opNode, p.hash);
  return views.map((v) => v.buffer as ArrayBuffer);
}

export function tableTransfer(t: StringTable): ArrayBuffer[] {
  return [t.bytes.buffer as ArrayBuffer, t.end.buffer as ArrayBuffer];
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function tableGet(t: StringTable, i: number): string {
  return decoder.decode(t.bytes.subarray(i === 0 ? 0 : t.end[i - 1], t.end[i]));
}

/** Reads a packed hierarchy: lookups by node index, ids decoded on demand. */
export class TbView {
  readonly size: number;
  private readonly opCache = new Map<number, TbOpDetail>();
  private failed: string | null = null;

  /** `ops` null: the details are still on their way (`setOpDetails`); `op()` throws DetailsPending meanwhile. */
  constructor(
    readonly p: PackedTbHierarchy,
    private ops: StringTable | null,
  ) {
    this.size = p.kind.length;
  }

  setOpDetails(ops: StringTable): void {
    this.ops = ops;
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
      this.opCache.set(k, (o = JSON.parse(tableGet(this.ops, k)) as TbOpDetail));
    }
    return o;
  }

  /** Node id of op `k` (an input's source). */
  opId(k: number): string {
    return this.id(this.p.opNode[k]);
  }

  /** Metaedges among node i's children. */
  edges(i: number): TbMetaEdge[] {
    const text = tableGet(this.p.edges, i);
    return text === '' ? [] : (JSON.parse(text) as TbMetaEdge[]);
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
