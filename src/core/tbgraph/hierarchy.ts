/**
 * The viewer's hierarchy over a `TbGraph`, built as TensorBoard's Graphs dashboard builds it (peers.md §3.3):
 * - groups from name scopes (`a/b/c` → a ⊃ b ⊃ c; ONNX `/a/b/Op`, PyTorch `Net/Linear[fc]/…` alike);
 * - TensorBoard's strict-hierarchy rule: an op whose name is also a scope (`a/b` beside `a/b/c`) moves into that
 *   scope as `a/b/(b)`;
 * - series: ≥ SERIES_MIN_SIZE siblings of one kind (same op, or all scopes) whose names differ only by a consecutive
 *   number collapse into `name[lo-hi]` (TensorBoard's `add, add_1 … add_5` → `add[0-5]`; also `layers.0 …` and
 *   `Linear[0] …`, so repeated layers fold too);
 * - metaedges: each dataflow edge is lifted to the lowest group holding both ends and drawn there between the two
 *   children containing them; parallel edges between two children bundle into one with counts.
 */
import type { TbGraph } from './opGraph.js';
import { tensorLabel } from './opGraph.js';

export const ROOT_ID = '__root__';
export const SERIES_MIN_SIZE = 5;

export type TbHNodeKind = 'root' | 'scope' | 'series' | 'op';

export interface TbHNode {
  id: string;
  /** What the box shows: the last scope part, `(leaf)` for a moved op, `prefix[lo-hi]` for a series. */
  label: string;
  kind: TbHNodeKind;
  parent: string | null;
  children: string[];
  /** Index in `TbGraph.ops` (kind 'op'), else -1. */
  op: number;
  /** Ops at or below this node. */
  opCount: number;
  depth: number;
}

export interface TbMetaEdge {
  /** Children of the group the edge is drawn in. */
  from: string;
  to: string;
  /** Dataflow edges bundled here. */
  data: number;
  /** Control dependencies (`^x`) bundled here; drawn dashed. */
  control: number;
  /** Distinct dtype/shape labels of the data edges (at most MAX_EDGE_LABELS). */
  labels: string[];
}

export const MAX_EDGE_LABELS = 3;

export interface TbHierarchy {
  graph: TbGraph;
  nodes: Map<string, TbHNode>;
  /** Hierarchy id of each op, by op index. */
  opIds: string[];
  /** Group id → metaedges between its children. */
  edges: Map<string, TbMetaEdge[]>;
  /** The same hierarchy as built (packed.ts packs this). */
  tree: TbTree;
}

/**
 * What the hierarchy needs of a graph's ops, as columns: a reader fills it without building `TbOp` objects
 * (graphDefWire.ts reads a 10^5-node GraphDef straight into it), `tbOpTable` from a `TbGraph`.
 */
export interface TbOpTable {
  format: TbGraph['format'];
  meta: TbGraph['meta'];
  problems: string[];
  /**
   * Op k's unique id (`TbOp.id`), scope path (`TbOp.path`) and op type. A path may be given as the name it splits:
   * a string without empty parts (no leading, trailing or double '/'), which spares a reader 10^5 arrays.
   */
  ids: string[];
  paths: Array<string[] | string>;
  types: string[];
  /**
   * Op k's inputs are [inputStart[k], inputStart[k + 1]): the source op (-1: none), a control input (1), the edge's
   * tensor label (index into `labels`, -1 when the source's output is not described).
   */
  inputStart: Uint32Array;
  inputSource: Int32Array;
  inputControl: Uint8Array;
  inputLabel: Int32Array;
  labels: string[];
}

/** Interns strings as small indexes (tensor labels repeat across a graph). */
export class Interner {
  readonly list: string[] = [];
  private readonly at = new Map<string, number>();
  of(s: string): number {
    let i = this.at.get(s);
    if (i === undefined) {
      this.at.set(s, (i = this.list.length));
      this.list.push(s);
    }
    return i;
  }
}

export function tbOpTable(graph: TbGraph): TbOpTable {
  const n = graph.ops.length;
  let inputs = 0;
  for (const op of graph.ops) inputs += op.inputs.length;
  const inputStart = new Uint32Array(n + 1);
  const inputSource = new Int32Array(inputs);
  const inputControl = new Uint8Array(inputs);
  const inputLabel = new Int32Array(inputs);
  const labels = new Interner();
  let j = 0;
  graph.ops.forEach((op, k) => {
    inputStart[k] = j;
    for (const input of op.inputs) {
      inputSource[j] = input.source ?? -1;
      inputControl[j] = input.control ? 1 : 0;
      inputLabel[j++] = input.info ? labels.of(tensorLabel(input.info)) : -1;
    }
  });
  inputStart[n] = j;
  return {
    format: graph.format,
    meta: graph.meta,
    problems: graph.problems,
    ids: graph.ops.map((o) => o.id),
    paths: graph.ops.map((o) => o.path),
    types: graph.ops.map((o) => o.op),
    inputStart,
    inputSource,
    inputControl,
    inputLabel,
    labels: labels.list,
  };
}

interface SeriesKey {
  cluster: string;
  prefix: string;
  suffix: string;
  n: number;
}

const TB_SERIES = /^(.*?)_(\d+)$/;

/**
 * TensorBoard's `name_N`, where a bare `name` is N = 0 when a sibling `name_N` exists (`tbPrefixes`); else the last
 * number in the name (`layers.3`, `Linear[3]`).
 */
function seriesKey(label: string, cluster: string, tbPrefixes: Set<string>): SeriesKey {
  const tb = TB_SERIES.exec(label);
  if (tb) return { cluster, prefix: tb[1], suffix: '', n: Number(tb[2]) };
  if (tbPrefixes.has(`${cluster}\u0000${label}`)) return { cluster, prefix: label, suffix: '', n: 0 };
  const any = /^(.*?)(\d+)(\D*)$/.exec(label);
  if (any) return { cluster, prefix: any[1], suffix: any[3], n: Number(any[2]) };
  return { cluster, prefix: label, suffix: '', n: 0 };
}

function seriesLabel(k: SeriesKey, lo: number, hi: number): string {
  if (k.prefix.endsWith('[') && k.suffix.startsWith(']')) return `${k.prefix}${lo}-${hi}${k.suffix}`;
  const prefix = k.suffix === '' ? k.prefix.replace(/[._]$/, '') : k.prefix;
  return `${prefix}[${lo}-${hi}]${k.suffix}`;
}

const NO_CHILDREN: number[] = [];

export const KIND_ROOT = 0;
export const KIND_SCOPE = 1;
export const KIND_SERIES = 2;
export const KIND_OP = 3;
export const KINDS: TbHNodeKind[] = ['root', 'scope', 'series', 'op'];

/** The hierarchy by node index (creation order, the root first): what `buildTree` makes and packed.ts packs. */
export interface TbTree {
  table: TbOpTable;
  ids: string[];
  labels: string[];
  kinds: number[];
  parent: number[];
  children: number[][];
  /** Op index of node i, -1 for groups. */
  op: number[];
  /** Node of op k. */
  opNode: Int32Array;
  depth: Int32Array;
  opCount: Int32Array;
  /** Group node → metaedges between its children (by node index). */
  edges: Map<number, TbTreeEdge[]>;
}

export type TbTreeEdge = Omit<TbMetaEdge, 'from' | 'to'> & { from: number; to: number };

/**
 * Builds the hierarchy on indexes and flat arrays (a 10^5-op graph makes ~10^6 short-lived objects otherwise,
 * half its time in GC). `buildHierarchy` gives the same as ids and objects.
 */
export function buildTree(table: TbOpTable): TbTree {
  const ids: string[] = [ROOT_ID];
  const labels: string[] = [''];
  const kinds: number[] = [KIND_ROOT];
  const parent: number[] = [-1];
  const children: number[][] = [[]];
  const op: number[] = [-1];
  const index = new Map<string, number>([[ROOT_ID, 0]]);
  const make = (id: string, label: string, kind: number, p: number, k = -1): number => {
    const i = ids.length;
    ids.push(id);
    labels.push(label);
    kinds.push(kind);
    parent.push(p);
    // Ops never get children: they share one empty list (10^5 arrays fewer).
    children.push(kind === KIND_OP ? NO_CHILDREN : []);
    op.push(k);
    index.set(id, i);
    if (p >= 0) children[p].push(i);
    return i;
  };
  const n = table.ids.length;

  // Each op's path as one string `full` and where its parts end in it (`ends`): scope ids and labels are slices.
  const ends: number[] = [];
  const fullOf = (k: number): string => {
    ends.length = 0;
    const path = table.paths[k];
    if (typeof path === 'string' && path !== '') {
      for (let at = path.indexOf('/'); at >= 0; at = path.indexOf('/', at + 1)) ends.push(at);
      ends.push(path.length);
      return path;
    }
    const parts = typeof path === 'string' || path.length === 0 ? [table.ids[k]] : path;
    let e = -1;
    for (const part of parts) ends.push((e += part.length + 1));
    return parts.length === 1 ? parts[0] : parts.join('/');
  };
  const part = (full: string, i: number) => full.slice(i === 0 ? 0 : ends[i - 1] + 1, ends[i]);

  // Every proper prefix of an op path is a scope. Deepest first: once one is known, so are the shorter ones.
  const scopes = new Set<string>();
  for (let k = 0; k < n; k++) {
    const full = fullOf(k);
    for (let i = ends.length - 2; i >= 0; i--) {
      const p = full.slice(0, ends[i]);
      if (scopes.has(p)) break;
      scopes.add(p);
    }
  }
  /** The scope of the first `upTo` parts of `full` (as `ends` holds them), made with its ancestors when new. */
  const ensureScope = (full: string, upTo: number): number => {
    if (upTo === 0) return 0;
    const id = full.slice(0, ends[upTo - 1]);
    const known = index.get(id);
    if (known !== undefined) return known;
    return make(id, part(full, upTo - 1), KIND_SCOPE, ensureScope(full, upTo - 1));
  };

  const opNode = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const full = fullOf(k);
    const parts = ends.length;
    const leaf = part(full, parts - 1);
    let p: number;
    let id = table.ids[k];
    let label = leaf;
    if (scopes.has(full)) {
      p = ensureScope(full, parts);
      id = `${full}/(${leaf})`;
      label = `(${leaf})`;
    } else p = ensureScope(full, parts - 1);
    while (index.has(id) || scopes.has(id)) id = `${id}#`;
    opNode[k] = make(id, label, KIND_OP, p, k);
  }

  const before = ids.length;
  for (let p = 0; p < before; p++) {
    if (kinds[p] === KIND_OP || children[p].length < SERIES_MIN_SIZE) continue;
    groupSeries(p);
  }
  function groupSeries(p: number) {
    // Members of a series carry a number, but for one bare `name` beside its `name_1`…: too few numbered, no series.
    let numbered = 0;
    for (const c of children[p]) if (/\d/.test(labels[c])) numbered++;
    if (numbered < SERIES_MIN_SIZE - 1) return;
    const cluster = (c: number) => (kinds[c] === KIND_OP ? `op:${table.types[op[c]]}` : 'scope');
    const tbPrefixes = new Set<string>();
    for (const c of children[p]) {
      const tb = TB_SERIES.exec(labels[c]);
      if (tb) tbPrefixes.add(`${cluster(c)}\u0000${tb[1]}`);
    }
    const buckets = new Map<string, Array<{ node: number; key: SeriesKey }>>();
    for (const c of children[p]) {
      const key = seriesKey(labels[c], cluster(c), tbPrefixes);
      const b = `${key.cluster}\u0000${key.prefix}\u0000${key.suffix}`;
      let members = buckets.get(b);
      if (!members) buckets.set(b, (members = []));
      members.push({ node: c, key });
    }
    const replace = new Map<number, number>();
    for (const members of buckets.values()) {
      if (members.length < SERIES_MIN_SIZE) continue;
      members.sort((a, b) => a.key.n - b.key.n);
      let start = 0;
      for (let i = 1; i <= members.length; i++) {
        if (i < members.length && members[i].key.n === members[i - 1].key.n + 1) continue;
        if (i - start >= SERIES_MIN_SIZE) {
          const run = members.slice(start, i);
          const label = seriesLabel(run[0].key, run[0].key.n, run[run.length - 1].key.n);
          let id = kinds[p] === KIND_ROOT ? label : `${ids[p]}/${label}`;
          while (index.has(id)) id = `${id}#`;
          // Made without joining the parent's children yet: it takes its first member's place below.
          const s = make(id, label, KIND_SERIES, -1);
          parent[s] = p;
          for (const m of run) {
            children[s].push(m.node);
            parent[m.node] = s;
            replace.set(m.node, s);
          }
        }
        start = i;
      }
    }
    if (replace.size === 0) return;
    // The series takes the place of its first member among the siblings.
    const seen = new Set<number>();
    const kept: number[] = [];
    for (const c of children[p]) {
      const s = replace.get(c);
      if (s === undefined) kept.push(c);
      else if (!seen.has(s)) {
        seen.add(s);
        kept.push(s);
      }
    }
    children[p] = kept;
  }

  // Depth and op counts, parents before children.
  const size = ids.length;
  const depth = new Int32Array(size);
  const opCount = new Int32Array(size);
  const order: number[] = [];
  const stack = [0];
  while (stack.length) {
    const i = stack.pop()!;
    order.push(i);
    for (const c of children[i]) {
      depth[c] = depth[i] + 1;
      stack.push(c);
    }
  }
  for (let o = order.length - 1; o >= 0; o--) {
    const i = order[o];
    if (kinds[i] === KIND_OP) opCount[i] = 1;
    if (parent[i] >= 0) opCount[parent[i]] += opCount[i];
  }

  const tree: TbTree = { table, ids, labels, kinds, parent, children, op, opNode, depth, opCount, edges: new Map() };
  tree.edges = liftEdges(tree);
  return tree;
}

export function buildHierarchy(graph: TbGraph): TbHierarchy {
  const tree = buildTree(tbOpTable(graph));
  const nodes = new Map<string, TbHNode>();
  tree.ids.forEach((id, i) => {
    const p = tree.parent[i];
    nodes.set(id, {
      id,
      label: tree.labels[i],
      kind: KINDS[tree.kinds[i]],
      parent: p < 0 ? null : tree.ids[p],
      children: tree.children[i].map((c) => tree.ids[c]),
      op: tree.op[i],
      opCount: tree.opCount[i],
      depth: tree.depth[i],
    });
  });
  const edges = new Map([...tree.edges].map(([g, list]) => [tree.ids[g], list.map((e) => ({ ...e, from: tree.ids[e.from], to: tree.ids[e.to] }))]));
  return { graph, nodes, opIds: Array.from(tree.opNode, (i) => tree.ids[i]), edges, tree };
}

/** Ancestor chain of a node from itself up to (excluding) the root. */
function chain(nodes: Map<string, TbHNode>, id: string): string[] {
  const out: string[] = [];
  for (let n = nodes.get(id); n && n.parent !== null; n = nodes.get(n.parent)) out.push(n.id);
  return out;
}

function liftEdges(t: TbTree): Map<number, TbTreeEdge[]> {
  const { table, parent, depth } = t;
  const byGroup = new Map<number, Map<number, TbTreeEdge>>();
  const size = t.ids.length;
  for (let dst = 0; dst < t.opNode.length; dst++) {
    for (let j = table.inputStart[dst]; j < table.inputStart[dst + 1]; j++) {
      const source = table.inputSource[j];
      if (source < 0) continue;
      let a = t.opNode[source];
      let b = t.opNode[dst];
      if (a === b) continue;
      while (depth[a] > depth[b]) a = parent[a];
      while (depth[b] > depth[a]) b = parent[b];
      while (parent[a] !== parent[b]) {
        a = parent[a];
        b = parent[b];
      }
      if (a === b) continue; // one end contains the other: no edge between siblings to draw
      const group = parent[a];
      let edges = byGroup.get(group);
      if (!edges) byGroup.set(group, (edges = new Map()));
      const key = a * size + b;
      let e = edges.get(key);
      if (!e) edges.set(key, (e = { from: a, to: b, data: 0, control: 0, labels: [] }));
      if (table.inputControl[j]) e.control++;
      else {
        e.data++;
        const label = table.inputLabel[j] < 0 ? '' : table.labels[table.inputLabel[j]];
        if (label && e.labels.length < MAX_EDGE_LABELS && !e.labels.includes(label)) e.labels.push(label);
      }
    }
  }
  return new Map([...byGroup].map(([g, m]) => [g, [...m.values()]]));
}

/**
 * Edges as drawn for a set of expanded groups: each end attaches to its outermost collapsed ancestor (or itself
 * when every ancestor is expanded), parallel edges bundled. The root counts as expanded.
 */
export function visibleEdges(h: TbHierarchy, expanded: ReadonlySet<string>): TbMetaEdge[] {
  const shownCache = new Map<string, string>();
  const shown = (id: string): string => {
    let s = shownCache.get(id);
    if (s === undefined) {
      const up = chain(h.nodes, id).reverse();
      s = up.find((x) => !expanded.has(x)) ?? id;
      shownCache.set(id, s);
    }
    return s;
  };
  const out = new Map<string, TbMetaEdge>();
  h.graph.ops.forEach((op, dst) => {
    for (const input of op.inputs) {
      if (input.source === null) continue;
      const a = shown(h.opIds[input.source]);
      const b = shown(h.opIds[dst]);
      if (a === b) continue;
      const key = `${a}\u0000${b}`;
      let e = out.get(key);
      if (!e) out.set(key, (e = { from: a, to: b, data: 0, control: 0, labels: [] }));
      if (input.control) e.control++;
      else {
        e.data++;
        const label = tensorLabel(input.info);
        if (label && e.labels.length < MAX_EDGE_LABELS && !e.labels.includes(label)) e.labels.push(label);
      }
    }
  });
  return [...out.values()];
}

/** Ancestor ids from the root's first child down to the parent (what a deep link needs to reveal the node). */
export function ancestorsOf(h: TbHierarchy, id: string): string[] {
  return chain(h.nodes, id).slice(1).reverse();
}
