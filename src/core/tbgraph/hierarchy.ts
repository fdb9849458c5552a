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

export function buildHierarchy(graph: TbGraph): TbHierarchy {
  const nodes = new Map<string, TbHNode>();
  const make = (id: string, label: string, kind: TbHNodeKind, parent: string | null, op = -1): TbHNode => {
    const n: TbHNode = { id, label, kind, parent, children: [], op, opCount: 0, depth: 0 };
    nodes.set(id, n);
    if (parent !== null) nodes.get(parent)!.children.push(id);
    return n;
  };
  make(ROOT_ID, '', 'root', null);

  // Every proper prefix of an op path is a scope.
  const scopes = new Set<string>();
  for (const op of graph.ops) {
    let p = '';
    for (let i = 0; i < op.path.length - 1; i++) {
      p = i === 0 ? op.path[0] : `${p}/${op.path[i]}`;
      scopes.add(p);
    }
  }
  /** The scope of `path[0 .. upTo)`, made with its ancestors when new. */
  const ensureScope = (path: string[], upTo: number): string => {
    let parent = ROOT_ID;
    let id = '';
    for (let i = 0; i < upTo; i++) {
      id = i === 0 ? path[0] : `${id}/${path[i]}`;
      if (!nodes.has(id)) make(id, path[i], 'scope', parent);
      parent = id;
    }
    return parent;
  };

  const opIds: string[] = [];
  graph.ops.forEach((op, index) => {
    const path = op.path.length ? op.path : [op.id];
    const full = path.join('/');
    const leaf = path[path.length - 1];
    let parent: string;
    let id = op.id;
    let label = leaf;
    if (scopes.has(full)) {
      parent = ensureScope(path, path.length);
      id = `${full}/(${leaf})`;
      label = `(${leaf})`;
    } else parent = ensureScope(path, path.length - 1);
    while (nodes.has(id) || scopes.has(id)) id = `${id}#`;
    opIds.push(id);
    make(id, label, 'op', parent, index);
  });

  groupSeries(nodes, graph);

  // Depth and op counts, parents before children.
  const order: TbHNode[] = [];
  const stack = [nodes.get(ROOT_ID)!];
  while (stack.length) {
    const n = stack.pop()!;
    order.push(n);
    for (const c of n.children) {
      const child = nodes.get(c)!;
      child.depth = n.depth + 1;
      stack.push(child);
    }
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i];
    if (n.kind === 'op') n.opCount = 1;
    if (n.parent !== null) nodes.get(n.parent)!.opCount += n.opCount;
  }

  return { graph, nodes, opIds, edges: liftEdges(graph, nodes, opIds) };
}

function groupSeries(nodes: Map<string, TbHNode>, graph: TbGraph): void {
  for (const parent of [...nodes.values()]) {
    if (parent.kind === 'op' || parent.children.length < SERIES_MIN_SIZE) continue;
    const buckets = new Map<string, Array<{ id: string; key: SeriesKey }>>();
    const cluster = (child: TbHNode) => (child.kind === 'op' ? `op:${graph.ops[child.op].op}` : 'scope');
    const tbPrefixes = new Set<string>();
    for (const c of parent.children) {
      const child = nodes.get(c)!;
      const tb = TB_SERIES.exec(child.label);
      if (tb) tbPrefixes.add(`${cluster(child)}\u0000${tb[1]}`);
    }
    for (const c of parent.children) {
      const child = nodes.get(c)!;
      const key = seriesKey(child.label, cluster(child), tbPrefixes);
      const b = `${key.cluster}\u0000${key.prefix}\u0000${key.suffix}`;
      if (!buckets.has(b)) buckets.set(b, []);
      buckets.get(b)!.push({ id: c, key });
    }
    const replace = new Map<string, string>();
    for (const members of buckets.values()) {
      if (members.length < SERIES_MIN_SIZE) continue;
      members.sort((a, b) => a.key.n - b.key.n);
      let start = 0;
      for (let i = 1; i <= members.length; i++) {
        if (i < members.length && members[i].key.n === members[i - 1].key.n + 1) continue;
        if (i - start >= SERIES_MIN_SIZE) {
          const run = members.slice(start, i);
          const label = seriesLabel(run[0].key, run[0].key.n, run[run.length - 1].key.n);
          let id = parent.kind === 'root' ? label : `${parent.id}/${label}`;
          while (nodes.has(id)) id = `${id}#`;
          const series: TbHNode = { id, label, kind: 'series', parent: parent.id, children: [], op: -1, opCount: 0, depth: 0 };
          nodes.set(id, series);
          for (const m of run) {
            series.children.push(m.id);
            nodes.get(m.id)!.parent = id;
            replace.set(m.id, id);
          }
        }
        start = i;
      }
    }
    if (replace.size === 0) continue;
    // The series takes the place of its first member among the siblings.
    const seen = new Set<string>();
    parent.children = parent.children.flatMap((c) => {
      const s = replace.get(c);
      if (s === undefined) return [c];
      if (seen.has(s)) return [];
      seen.add(s);
      return [s];
    });
  }
}

/** Ancestor chain of a node from itself up to (excluding) the root. */
function chain(nodes: Map<string, TbHNode>, id: string): string[] {
  const out: string[] = [];
  for (let n = nodes.get(id); n && n.parent !== null; n = nodes.get(n.parent)) out.push(n.id);
  return out;
}

function liftEdges(graph: TbGraph, nodes: Map<string, TbHNode>, opIds: string[]): Map<string, TbMetaEdge[]> {
  const byGroup = new Map<string, Map<string, TbMetaEdge>>();
  graph.ops.forEach((op, dst) => {
    for (const input of op.inputs) {
      if (input.source === null) continue;
      let a = nodes.get(opIds[input.source])!;
      let b = nodes.get(opIds[dst])!;
      if (a === b) continue;
      while (a.depth > b.depth) a = nodes.get(a.parent!)!;
      while (b.depth > a.depth) b = nodes.get(b.parent!)!;
      while (a.parent !== b.parent) {
        a = nodes.get(a.parent!)!;
        b = nodes.get(b.parent!)!;
      }
      if (a === b) continue; // one end contains the other: no edge between siblings to draw
      const group = a.parent!;
      let edges = byGroup.get(group);
      if (!edges) byGroup.set(group, (edges = new Map()));
      const key = `${a.id}\u0000${b.id}`;
      let e = edges.get(key);
      if (!e) edges.set(key, (e = { from: a.id, to: b.id, data: 0, control: 0, labels: [] }));
      if (input.control) e.control++;
      else {
        e.data++;
        const label = tensorLabel(input.info);
        if (label && e.labels.length < MAX_EDGE_LABELS && !e.labels.includes(label)) e.labels.push(label);
      }
    }
  });
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
