import type { Graph, GraphNode, RawItem } from '../model/graph.js';
import { NodeOp } from '../model/graph.js';
import { Item } from '../model/item.js';
import type { PyValue } from '../formats/pyJson.js';
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
  if (a.size === 0) return true;
  const ib = b.values();
  for (const x of a.values()) {
    const y = ib.next().value as RawItem;
    if (x instanceof Item && y instanceof Item) {
      // The positions of `type` and `shape` are known from the items' shapes (no key lookups).
      if (!sameRaw(valueAt(x, x.shape.typeAt), valueAt(y, y.shape.typeAt))) return false;
      if (!sameRaw(valueAt(x, x.shape.shapeAt), valueAt(y, y.shape.shapeAt))) return false;
    } else {
      if (!pyEquals(x.get('type'), y.get('type'))) return false;
      if (!pyEquals(x.get('shape'), y.get('shape'))) return false;
    }
  }
  return true;
}

function valueAt(item: Item, at: number): PyValue | undefined {
  return at < 0 ? undefined : item.vals[at];
}

/**
 * `pyEquals`, answered at once for the usual pairs: the same string or int (small ints are shared bigints), or
 * lists of such (shapes; equal tensor shapes read from bytes are one list, on both sides, so mostly the first test
 * answers).
 */
function sameRaw(a: PyValue | undefined, b: PyValue | undefined): boolean {
  if (a === b && typeof a !== 'number') return true;
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      if (x !== b[i] || typeof x === 'number' || (x !== null && typeof x === 'object')) return pyEquals(a, b);
    }
    return true;
  }
  return pyEquals(a, b);
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

/** Links in the fuzzy / layer-mapping style: each side points at the other side's path. */
function crossLink(n: GraphNode, b: GraphNode): void {
  const ancestorsN = n.ancestors();
  const ancestorsB = b.ancestors();
  n.matchedNodeLink = [...ancestorsB, b.id];
  b.matchedNodeLink = [...ancestorsN, n.id];
}

/**
 * `b.ancestors()` equals `list`, walked up from `b` without making b's list. A chain with a cycle has the empty
 * list (GraphNode.ancestors), so only an empty `list` needs the full answer.
 */
function hasAncestors(b: GraphNode, list: readonly string[]): boolean {
  if (list.length === 0) return b.upnode === null || b.ancestors().length === 0;
  let p = b.upnode;
  for (let i = list.length - 1; i >= 0; i--) {
    if (p === null || p.id !== list[i]) return false;
    p = p.upnode;
  }
  return p === null;
}

function matchExact(npu: Graph, bench: Graph, onMatch: OnMatch): void {
  const queue: GraphNode[] = [npu.root];
  // Each queued node's ancestors, from its parent's list (null: its own walk decides, see below).
  const above: Array<readonly string[] | null> = [null];
  for (let qi = 0; qi < queue.length; qi++) {
    const n = queue[qi];
    const ancestors = above[qi] ?? n.ancestors();
    above[qi] = null;
    let childList: readonly string[] | null = null;
    const b = bench.nodeMap.get(n.id);
    if (b && sameStructure(n.inputData, b.inputData) && sameStructure(n.outputData, b.outputData) && hasAncestors(b, ancestors)) {
      // msprobe shares one list between both nodes (nothing changes it afterwards); it is also the children's
      // ancestors.
      const link = [...ancestors, b.id];
      n.matchedNodeLink = link;
      b.matchedNodeLink = link;
      childList = link;
      onMatch(n, b);
    }
    // Without the parent's list (or with a cycle above, whose list is empty) the child's own walk decides.
    const passDown = ancestors.length > 0 || !n.upnode;
    for (const child of n.subnodes) {
      queue.push(child);
      above.push(passDown && child.upnode === n ? (childList ??= [...ancestors, n.id]) : null);
    }
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
