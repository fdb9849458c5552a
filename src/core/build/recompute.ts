import { NodeOp, type Graph, type GraphNode } from '../model/graph.js';
import { callSuffixAt, swapCallDirection } from './callNames.js';
import { classifyNodeOp } from './nodeOp.js';

/**
 * Activation recomputation re-runs modules outside the hierarchy, so their forward/backward pair lands at the top
 * level (msprobe-format.md §2.7). Each such module moves under the backward twin of the parent its n-th plain
 * (non-recomputed) forward call had.
 */
export function handleRecompute(graph: Graph): void {
  const rootChildren = graph.root.subnodes;
  const { prefixOf, indexOf } = findRecomputeNodes(rootChildren);
  if (prefixOf.size === 0) return;
  const forwardQueues = plainForwardCalls(graph, new Set(prefixOf.values()));
  if (forwardQueues.size === 0) return;
  // Recomputed forward and backward calls each consume the plain calls in order, independently.
  const backwardQueues = new Map([...forwardQueues].map(([k, v]) => [k, v.slice()]));

  const removed: number[] = [];
  for (const [nodeId, prefix] of prefixOf) {
    if (!forwardQueues.has(prefix)) continue;
    const queue = (callSuffixAt(nodeId, 'forward') >= 0 ? forwardQueues : backwardQueues).get(prefix);
    if (!queue || queue.length === 0) continue;
    const plain = queue.shift()!;
    const node = graph.nodeMap.get(nodeId);
    if (!node) continue;
    const newParent = graph.nodeMap.get(swapCallDirection(plain.upnode!.id, 'forward'));
    if (!newParent) continue;
    node.upnode = newParent;
    newParent.subnodes.push(node);
    removed.push(indexOf.get(nodeId)!);
  }
  removed.sort((a, b) => b - a);
  for (const i of removed) rootChildren.splice(i, 1);
}

/** Top-level modules whose names do not fit a top-level module and whose twin is also top-level. */
function findRecomputeNodes(nodes: readonly GraphNode[]): { prefixOf: Map<string, string>; indexOf: Map<string, number> } {
  const prefixOf = new Map<string, string>();
  const indexOf = new Map<string, number>();
  const ids = new Set(nodes.map((n) => n.id));
  const twins = new Set<string>();
  nodes.forEach((node, i) => {
    if (classifyNodeOp(node.id).op !== NodeOp.module) return;
    const segments = node.id.split('.');
    const prefix = segments.slice(0, -2).join('.');
    if (twins.has(node.id)) {
      prefixOf.set(node.id, prefix);
      indexOf.set(node.id, i);
      return;
    }
    if (!looksRecomputed(segments)) return;
    segments[segments.length - 2] = segments[segments.length - 2] === 'forward' ? 'backward' : 'forward';
    const twin = segments.join('.');
    if (!ids.has(twin)) return;
    prefixOf.set(node.id, prefix);
    indexOf.set(node.id, i);
    twins.add(twin);
  });
  return { prefixOf, indexOf };
}

const DIGITS = /^\d+$/;

/** A genuine top-level module is `Module|Cell.[n.]name.[n.]Class.forward|backward.n`; anything longer is nested. */
function looksRecomputed(s: string[]): boolean {
  if (s.length > 7) return true;
  if (s.length === 7 && !(DIGITS.test(s[1]) && DIGITS.test(s[3]))) return true;
  return s.length === 6 && !DIGITS.test(s[1]);
}

/** prefix → its forward calls that sit below the top level, in node order. */
function plainForwardCalls(graph: Graph, prefixes: ReadonlySet<string>): Map<string, GraphNode[]> {
  const out = new Map<string, GraphNode[]>();
  for (const [id, node] of graph.nodeMap) {
    const at = callSuffixAt(id, 'forward');
    if (at < 0 || classifyNodeOp(id).op !== NodeOp.module) continue;
    if (!node.upnode || node.upnode.id === graph.root.id) continue;
    const prefix = id.slice(0, at);
    if (!prefixes.has(prefix)) continue;
    let list = out.get(prefix);
    if (!list) out.set(prefix, (list = []));
    list.push(node);
  }
  return out;
}
