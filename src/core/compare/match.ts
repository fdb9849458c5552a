import type { Graph, GraphNode, RawItem } from '../model/graph.js';
import { NodeOp } from '../model/graph.js';
import { pyEquals } from './pyNumber.js';

/**
 * Node matching and `matched_node_link` (msprobe-format.md §3.2): the NPU tree is walked breadth-first from the
 * root; each NPU node is matched by exact id + structure + ancestors, by fuzzy module/API recount, or through a
 * layer-mapping name map. `onMatch` runs for every matched pair in walk order (that is where compare rows are made).
 */

export interface MatchOptions {
  fuzzy: boolean;
  /** `-lm`: NPU dump name → Bench dump name or "N/A"; an empty map still selects layer-mapping matching. */
  layerMapping: Map<string, string> | null;
  /** False only under parallel merge (fuzzy without the shape check). */
  checkShape?: boolean;
}

type OnMatch = (npuNode: GraphNode, benchNode: GraphNode) => void;

/** msprobe `compare_data`: same count, and positional pairs with equal raw `type` and `shape`. */
function sameStructure(a: Map<string, RawItem>, b: Map<string, RawItem>): boolean {
  if (a.size !== b.size) return false;
  const ib = b.values();
  for (const x of a.values()) {
    const y = ib.next().value as RawItem;
    if (!pyEquals(x.get('type'), y.get('type'))) return false;
    if (!pyEquals(x.get('shape'), y.get('shape'))) return false;
  }
  return true;
}

/** msprobe `compare_data_fuzzy`: positional pairs (up to the shorter side) with equal raw `shape`. */
function sameShapes(a: Map<string, RawItem>, b: Map<string, RawItem>): boolean {
  const ib = b.values();
  for (const x of a.values()) {
    const next = ib.next();
    if (next.done) return true;
    if (!pyEquals(x.get('shape'), (next.value as RawItem).get('shape'))) return false;
  }
  return true;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Links in the fuzzy / layer-mapping style: each side points at the other side's path. */
function crossLink(n: GraphNode, b: GraphNode): void {
  const ancestorsN = n.ancestors();
  const ancestorsB = b.ancestors();
  n.matchedNodeLink = [...ancestorsB, b.id];
  b.matchedNodeLink = [...ancestorsN, n.id];
}

/**
 * `node.ancestors()` for many nodes of one graph: a node's list is its parent's plus the parent, so each list is
 * made once from the parent's instead of walking up to the root every time.
 */
function ancestorCache(): (node: GraphNode) => readonly string[] {
  const known = new Map<GraphNode, readonly string[]>();
  const of = (node: GraphNode): readonly string[] => {
    let list = known.get(node);
    if (list) return list;
    const parent = node.upnode;
    const above = parent ? known.get(parent) : undefined;
    // Without the parent's list (or with a cycle above, whose list is empty) the walk decides.
    list = parent && above && (above.length > 0 || !parent.upnode) ? [...above, parent.id] : node.ancestors();
    known.set(node, list);
    return list;
  };
  return of;
}

function matchExact(npu: Graph, bench: Graph, onMatch: OnMatch): void {
  const ancestorsN = ancestorCache();
  const ancestorsB = ancestorCache();
  const queue: GraphNode[] = [npu.root];
  for (let qi = 0; qi < queue.length; qi++) {
    const n = queue[qi];
    const b = bench.nodeMap.get(n.id);
    if (b && sameStructure(n.inputData, b.inputData) && sameStructure(n.outputData, b.outputData)) {
      const ancestors = ancestorsN(n);
      if (sameList(ancestors, ancestorsB(b))) {
        // msprobe shares one list between both nodes (nothing changes it afterwards).
        const link = [...ancestors, b.id];
        n.matchedNodeLink = link;
        b.matchedNodeLink = link;
        onMatch(n, b);
      }
    }
    for (const child of n.subnodes) queue.push(child);
  }
}

function matchLayerMapping(npu: Graph, bench: Graph, mapping: Map<string, string>, onMatch: OnMatch): void {
  const queue: GraphNode[] = [npu.root];
  for (let qi = 0; qi < queue.length; qi++) {
    const n = queue[qi];
    const b = bench.nodeMap.get(mapping.get(n.id) ?? n.id);
    if (b) {
      crossLink(n, b);
      onMatch(n, b);
    }
    for (const child of n.subnodes) queue.push(child);
  }
}

const COUNT_SEGMENT = /\.\d+\./g;
const RANK_SUFFIX = /_rank\d+/g;

/** Direct API children re-keyed without call counts: `Functional.relu.3.forward` → `Functional.relu.forward1`. */
function recountApis(node: GraphNode): Map<string, string> {
  const out = new Map<string, string>();
  const counts = new Map<string, number>();
  for (const sub of node.subnodes) {
    if (sub.op !== NodeOp.functionApi) continue;
    const stripped = sub.id.replace(COUNT_SEGMENT, '.').replace(RANK_SUFFIX, '');
    const count = (counts.get(stripped) ?? 0) + 1;
    counts.set(stripped, count);
    out.set(`${stripped}${count}`, sub.id);
  }
  return out;
}

function matchFuzzy(npu: Graph, bench: Graph, checkShape: boolean, onMatch: OnMatch): void {
  const fuzzyPair = (n: GraphNode | undefined, b: GraphNode | undefined): boolean => {
    if (!n || !b) return false;
    if (checkShape && !(sameShapes(n.inputData, b.inputData) && sameShapes(n.outputData, b.outputData))) return false;
    crossLink(n, b);
    onMatch(n, b);
    return true;
  };
  const queue: GraphNode[] = [npu.root];
  for (let qi = 0; qi < queue.length; qi++) {
    const n = queue[qi];
    if (n.op !== NodeOp.functionApi) {
      const b = bench.nodeMap.get(n.id);
      if (b && fuzzyPair(n, b)) {
        const apisB = recountApis(b);
        for (const [key, idN] of recountApis(n)) {
          const idB = apisB.get(key);
          fuzzyPair(npu.nodeMap.get(idN), idB === undefined ? undefined : bench.nodeMap.get(idB));
        }
      }
    }
    for (const child of n.subnodes) queue.push(child);
  }
}

/** Runs the matching strategy selected by the options (§3.2 a/b/c). */
export function matchGraphs(npu: Graph, bench: Graph, options: MatchOptions, onMatch: OnMatch): void {
  // msprobe checks fuzzy first: `-f` together with `-lm` ignores the mapping.
  if (options.fuzzy) matchFuzzy(npu, bench, options.checkShape ?? true, onMatch);
  else if (options.layerMapping) matchLayerMapping(npu, bench, options.layerMapping, onMatch);
  else matchExact(npu, bench, onMatch);
}
