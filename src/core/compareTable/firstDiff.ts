import type { JsonTree } from '../formats/pyJsonWrite.js';
import type { ApiCheck } from './diffCheck.js';

/**
 * `-da` step 2 (msprobe `find_first/analyzer.py`): the first differing node across ranks. Before the first
 * communication op of each rank, the first differing API; otherwise communication ops of all ranks are linked into
 * a graph (send↔recv, broadcast src→dst, collectives by group), nodes without problems pruned, and the earliest
 * layer with a differing communication op (or differing compute op feeding one) reported; else the first differing
 * op after the last communication. Where msprobe iterates a Python set (nondeterministic order), ranks ascend.
 */

const COMM_PREFIXES = ['Distributed', 'MintDistributed', 'communication.comm_func'];
const COMM_KEYWORDS = [
  'send', 'recv', 'broadcast', 'all_reduce', 'reduce', 'all_gather', 'gather', 'isend', 'irecv', 'scatter',
  'reduce_scatter', '_reduce_scatter_base', '_all_gather_base', 'all_to_all_single', 'all_to_all',
  'all_gather_into_tensor', 'reduce_scatter_tensor', 'send_object_list', 'recv_object_list',
];
const IGNORED = ['Torch.empty', 'Torch.fill', 'Tensor.__setitem__'];
const P2P: Record<string, string> = {
  send: 'recv', recv: 'send', isend: 'irecv', irecv: 'isend', send_object_list: 'recv_object_list', recv_object_list: 'send_object_list',
};
const DIRECTED = new Set(['send', 'recv', 'isend', 'irecv', 'broadcast', 'scatter', 'gather', 'send_object_list', 'recv_object_list']);
type NodeType = 'src' | 'dst' | 'link';
const OPPOSITE: Record<string, NodeType> = { src: 'dst', dst: 'src' };

export const isCommunicationOp = (op: string) =>
  COMM_PREFIXES.some((p) => op.startsWith(p)) && COMM_KEYWORDS.some((k) => op.includes(k));
const isIgnored = (op: string) => IGNORED.some((k) => op.includes(k));

type Metrics = Map<string, JsonTree>;

class DataNode {
  layer = 0;
  readonly isDiff: boolean;
  readonly inputs = new Map<string, Metrics>();
  readonly outputs = new Map<string, Metrics>();
  stack: JsonTree = null;

  constructor(
    readonly opName: string,
    readonly rank: number,
    check: ApiCheck,
    readonly subLayer = 0,
  ) {
    this.isDiff = !check.isSame;
    for (const item of check.opItems) {
      const metrics: Metrics = new Map();
      if (item.has('NPU max')) for (const k of ['NPU max', 'NPU min', 'NPU mean', 'NPU l2norm']) metrics.set(k, item.get(k) ?? null);
      else if (item.has('NPU MD5')) metrics.set('NPU MD5', item.get('NPU MD5') ?? null);
      if (item.has('NPU P2POp peer')) metrics.set('NPU P2POp peer', item.get('NPU P2POp peer') ?? null);
      const stack = item.get('NPU_Stack_Info') ?? null;
      if (stack !== 'N/A' && !this.stack) this.stack = stack;
      const name = String(item.get('NPU Name'));
      if (item.get('state') === 'input') this.inputs.set(name, metrics);
      else if (item.get('state') === 'output') this.outputs.set(name, metrics);
    }
  }

  info(): JsonTree {
    return new Map<string, JsonTree>([
      ['op_name', this.opName],
      ['data_info', new Map<string, JsonTree>([['input', this.inputs], ['output', this.outputs]])],
      ['stack_info', this.stack],
    ]);
  }
}

/** Python `int(v)` of a metric, or null where Python would raise. */
function pyInt(v: JsonTree | undefined): number | null {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return Math.trunc(v);
  if (v && typeof v === 'object' && 'value' in v && typeof (v as { value: unknown }).value === 'number') {
    return Math.trunc((v as { value: number }).value);
  }
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v);
  return null;
}

class CommNode {
  layer = 0;
  readonly api: string;
  readonly type: NodeType;
  readonly isDiff: boolean;
  connected = false;
  pre: CommNode | null = null;
  readonly next = new Map<string, CommNode>();
  readonly links = new Map<string, CommNode>();
  readonly dsts = new Map<string, CommNode>();
  readonly srcs = new Map<string, CommNode>();

  constructor(
    readonly id: string,
    readonly rank: number,
    readonly data: DataNode,
    readonly computeOps: DataNode[],
  ) {
    this.isDiff = data.isDiff;
    this.api = data.opName.split('.')[1] ?? '';
    this.type = this.resolveType();
  }

  private rankValue(v: Metrics): JsonTree | undefined {
    return v.has('NPU MD5') ? v.get('NPU MD5') : v.get('NPU max');
  }

  private resolveType(): NodeType {
    for (const prefix of ['src', 'dst'] as const) {
      for (const [k, v] of this.data.inputs) {
        if (k.includes(prefix) || k.includes(`${prefix}_GROUP`)) {
          // msprobe compares the stored value with the rank as is: a str "0" never equals the int 0.
          const value = this.rankValue(v);
          const equal = (typeof value === 'bigint' || typeof value === 'number') && Number(value) === this.rank;
          return equal ? prefix : OPPOSITE[prefix];
        }
      }
    }
    return 'link';
  }

  connections(): { ranks: number[]; api: string; type: NodeType } {
    const ranks = new Set<number>();
    for (const [name, v] of this.data.inputs) {
      if (['dst', 'group_dst', 'src', 'group_src'].some((k) => name.includes(k))) {
        const r = pyInt(this.rankValue(v));
        if (r) ranks.add(r);
      } else if (name.endsWith('.group')) {
        const val = this.rankValue(v);
        if (typeof val === 'string' && val.startsWith('[') && val.endsWith(']')) {
          for (const part of val.slice(1, -1).split(',')) if (part.trim()) ranks.add(Number(part));
        }
      } else if (v.get('NPU P2POp peer') !== 'None') {
        const r = pyInt(v.get('NPU P2POp peer'));
        if (r !== null) ranks.add(r);
      }
    }
    return { ranks: [...ranks].sort((a, b) => a - b), api: `Distributed.${P2P[this.api] ?? this.api}`, type: OPPOSITE[this.type] ?? 'link' };
  }

  addNext(n: CommNode): void {
    this.next.set(n.id, n);
    n.pre = this;
    n.layer = this.layer + 1;
    n.data.layer = n.layer;
  }

  addLink(n: CommNode): void {
    this.links.set(n.id, n);
    n.links.set(this.id, this);
    n.layer = this.layer;
    n.data.layer = n.layer;
    this.connected = n.connected = true;
  }

  addDst(n: CommNode): void {
    this.dsts.set(n.id, n);
    n.srcs.set(this.id, this);
    n.layer = this.layer;
    n.data.layer = n.layer;
    this.connected = n.connected = true;
  }

  remove(): void {
    for (const n of this.next.values()) n.pre = null;
    for (const n of this.dsts.values()) n.srcs.delete(this.id);
    for (const n of this.srcs.values()) n.dsts.delete(this.id);
    for (const n of this.links.values()) n.links.delete(this.id);
    this.pre?.next.delete(this.id);
  }
}

/** `ranks`: rank number → that rank's API checks in table order. Returns the `diff_analyze_*.json` tree or null. */
export function firstDiffNodes(ranks: ReadonlyMap<number, ReadonlyMap<string, ApiCheck>>): JsonTree | null {
  const order = [...ranks.keys()].sort((a, b) => a - b);
  let diff: DataNode[] = [];
  const firstComm = new Map<number, string>();

  for (const rank of order) {
    for (const [op, check] of ranks.get(rank)!) {
      if (isIgnored(op)) continue;
      if (isCommunicationOp(op)) {
        firstComm.set(rank, op);
        break;
      }
      const node = new DataNode(op, rank, check);
      if (node.isDiff) {
        diff.push(node);
        break;
      }
    }
  }
  if (diff.length) return report(diff);

  const afterComm = new Map<number, DataNode[]>();
  const graph = new Map<number, Map<string, CommNode>>();
  for (const rank of order) graph.set(rank, commNodes(rank, ranks.get(rank)!, firstComm.get(rank), afterComm));
  connect(graph);
  for (const nodes of graph.values()) {
    for (const [id, node] of [...nodes]) {
      if (node.isDiff || node.computeOps.length) continue;
      node.remove();
      nodes.delete(id);
    }
  }
  diff = searchFirstDiff(graph);
  if (diff.length) return report(diff);
  for (const rank of order) {
    const nodes = afterComm.get(rank);
    if (nodes?.length) diff.push(nodes[0]);
  }
  return diff.length ? report(diff) : null;
}

function commNodes(
  rank: number,
  checks: ReadonlyMap<string, ApiCheck>,
  first: string | undefined,
  afterComm: Map<number, DataNode[]>,
): Map<string, CommNode> {
  const nodes = new Map<string, CommNode>();
  if (first === undefined) return nodes;
  let started = false;
  let last: CommNode | null = null;
  let compute: DataNode[] = [];
  let subLayer = 0;
  for (const [op, check] of checks) {
    if (!started && op !== first) continue;
    started = true;
    if (isCommunicationOp(op)) {
      const node = new CommNode(`${rank}.${op}`, rank, new DataNode(op, rank, check, subLayer), compute);
      last?.addNext(node);
      nodes.set(node.id, node);
      last = node;
      compute = [];
      subLayer = 0;
    } else if (!isIgnored(op)) {
      const data = new DataNode(op, rank, check, subLayer);
      if (data.isDiff) compute.push(data);
      subLayer++;
    }
  }
  if (compute.length) afterComm.set(rank, compute);
  return nodes;
}

function connect(graph: Map<number, Map<string, CommNode>>): void {
  const searched = new Set<number>();
  const entries = [...graph.entries()];
  for (const [rank, nodes] of entries.slice(0, -1)) {
    searched.add(rank);
    const seen = new Set<string>();
    let last: CommNode | null = null;
    for (const cur of nodes.values()) {
      if (last && last.layer >= cur.layer) cur.layer = last.layer + 1;
      const info = cur.connections();
      const targets = info.ranks.length ? info.ranks : [...graph.keys()];
      last = cur;
      for (const other of targets) {
        if (searched.has(other)) continue;
        const prefix = `${other}.${info.api}`;
        for (const [id, candidate] of graph.get(other) ?? []) {
          if (seen.has(id) || !id.startsWith(prefix) || candidate.type !== info.type) continue;
          const theirs = candidate.connections().ranks;
          if ((!theirs.length && !DIRECTED.has(candidate.api)) || theirs.includes(cur.rank)) {
            seen.add(id);
            if (candidate.type === 'dst') cur.addDst(candidate);
            else if (candidate.type === 'src') {
              candidate.layer = cur.layer;
              candidate.addDst(cur);
            } else cur.addLink(candidate);
            break;
          }
        }
      }
    }
  }
}

function searchFirstDiff(graph: Map<number, Map<string, CommNode>>): DataNode[] {
  const byId = (id: string) => graph.get(Number(id.slice(0, id.indexOf('.'))))?.get(id) ?? null;
  const queues = [...graph.values()].map((nodes) => [...nodes.values()].sort((a, b) => a.layer - b.layer));
  const seen = new Set<string>();
  const relatives = (n: CommNode | null) =>
    n ? new Set([n.id, ...n.links.keys(), ...n.srcs.keys(), ...n.dsts.keys()]) : new Set<string>();
  const members = (n: CommNode) => {
    const ids = relatives(n);
    const queue = [...ids].flatMap((id) => [...relatives(byId(id))].filter((x) => !ids.has(x)));
    while (queue.length) {
      const id = queue.shift()!;
      ids.add(id);
      for (const x of relatives(byId(id))) if (!ids.has(x)) queue.push(x);
    }
    return ids;
  };
  let diff: DataNode[] = [];
  while (queues.some((q) => q.length)) {
    const groups: Set<string>[] = [];
    const inGroups = new Set<string>();
    for (const q of queues) {
      let node: CommNode | undefined;
      while (q.length) {
        const n = q.shift()!;
        if (!seen.has(n.id)) {
          node = n;
          break;
        }
      }
      if (!node) continue;
      if (!groups.length || !inGroups.has(node.id)) {
        const g = members(node);
        groups.push(g);
        for (const id of g) inGroups.add(id);
      }
    }
    for (const g of groups) {
      for (const id of g) seen.add(id);
      const nodes = [...g].map(byId).filter((n): n is CommNode => n !== null);
      for (const n of nodes.filter((x) => (x.type === 'src' || x.type === 'link') && x.isDiff)) {
        for (const op of n.computeOps) {
          op.layer = n.layer;
          diff.push(op);
        }
      }
      for (const n of nodes.filter((x) => x.data.isDiff)) {
        n.data.layer = n.layer;
        diff.push(n.data);
      }
    }
    if (diff.length) {
      const best = diff.reduce((m, x) => (x.layer < m[0] || (x.layer === m[0] && x.subLayer < m[1]) ? [x.layer, x.subLayer] : m), [
        Infinity,
        Infinity,
      ]);
      diff = diff.filter((x) => x.layer === best[0] && x.subLayer === best[1]);
      return diff;
    }
  }
  return diff;
}

function report(nodes: DataNode[]): JsonTree {
  const out = new Map<string, JsonTree[]>();
  for (const n of nodes) {
    const key = `rank_${n.rank}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key)!.push(n.info());
  }
  return out;
}
