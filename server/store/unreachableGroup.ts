import type { NodeDetail, NodeSummary, Side } from '../../src/core/api/types.js';
import { MAX_PATH_DEPTH } from './findQuery.js';

/**
 * Nodes a side's root does not reach (issue 14 #11). JSON `.vis` files keep every node msprobe created, orphans
 * included (msprobe-format.md §2.4: a parent id that never appears as a key; layer-mapping and cross-framework dumps
 * have many), while the tree from the root shows none of them, so a search hit among them had nowhere to be drawn.
 * The stores show them under one synthetic group, the root's last child, that exists only in the API's answers
 * (never in a file): `synthetic: 'unreachable'`. Inside it the orphans keep the file's own `subnodes` tree.
 * A `.vis.db` holds no such nodes (the DB era writes only what the root reaches, §2.4), so it never has the group.
 */

/** The group's id; a file that uses it for a node of its own gets a numbered variant (see groupId). */
export const UNREACHABLE_GROUP_ID = '(unreachable from the root)';

export interface UnreachableForest {
  /** The group's id on this side. */
  id: string;
  /** Entries listed directly in the group (no unreachable node lists them in its subnodes), in file order. */
  tops: number[];
  /** Entry → its parent inside the group's tree; -1 for tops and for entries the root reaches. */
  parent: Int32Array;
  /** Unreachable nodes in all. */
  count: number;
}

/** One side seen as numbered entries in file order (dead entries are skipped). */
export interface ForestSource {
  size: number;
  isLive(e: number): boolean;
  isReachable(e: number): boolean;
  childrenOf(e: number): ArrayLike<number>;
  hasId(id: string): boolean;
}

/**
 * The orphans' forest, or null when the root reaches every node. Tops are the unreachable nodes no other
 * unreachable node lists; parents come from walking `subnodes` down from them (first parent wins, as from the root);
 * a cycle of orphans with no top gets its first entry as a top, so every node ends up in the group.
 */
export function unreachableForest(src: ForestSource): UnreachableForest | null {
  const orphan = new Uint8Array(src.size);
  let count = 0;
  for (let e = 0; e < src.size; e++) {
    if (src.isLive(e) && !src.isReachable(e)) {
      orphan[e] = 1;
      count++;
    }
  }
  if (count === 0) return null;
  const listed = new Uint8Array(src.size);
  for (let e = 0; e < src.size; e++) {
    if (!orphan[e]) continue;
    const kids = src.childrenOf(e);
    for (let k = 0; k < kids.length; k++) if (orphan[kids[k]] && kids[k] !== e) listed[kids[k]] = 1;
  }
  const parent = new Int32Array(src.size).fill(-1);
  const placed = new Uint8Array(src.size);
  const tops: number[] = [];
  const plant = (top: number) => {
    tops.push(top);
    placed[top] = 1;
    const stack = [top];
    while (stack.length > 0) {
      const e = stack.pop()!;
      const kids = src.childrenOf(e);
      for (let k = 0; k < kids.length; k++) {
        const c = kids[k];
        if (!orphan[c] || placed[c]) continue;
        placed[c] = 1;
        parent[c] = e;
        stack.push(c);
      }
    }
  };
  for (let e = 0; e < src.size; e++) if (orphan[e] && !listed[e] && !placed[e]) plant(e);
  for (let e = 0; e < src.size; e++) if (orphan[e] && !placed[e]) plant(e);
  tops.sort((a, b) => a - b);
  return { id: groupId(src.hasId), tops, parent, count };
}

function groupId(hasId: (id: string) => boolean): string {
  let id = UNREACHABLE_GROUP_ID;
  for (let k = 2; hasId(id); k++) id = `${UNREACHABLE_GROUP_ID} ${k}`;
  return id;
}

/** Root → parent of an unreachable entry: the root, the group, then its ancestors inside the group (capped). */
export function forestPath(forest: UnreachableForest, e: number, rootId: string, idOf: (e: number) => string): string[] {
  const chain: string[] = [];
  for (let p = forest.parent[e]; p >= 0 && chain.length < MAX_PATH_DEPTH; p = forest.parent[p]) chain.push(idOf(p));
  return [rootId, forest.id, ...chain.reverse()];
}

/** The group as a child of the root. Unmatched: it is no node of the file and has no counterpart. */
export function groupSummary(id: string, childCount: number): NodeSummary {
  return {
    id,
    nodeType: 0,
    precisionIndex: null,
    overflowLevel: null,
    matchedNodeLink: [],
    childCount,
    microStepId: null,
    synthetic: 'unreachable',
  };
}

/** What `/api/graph/node` answers for the group: no data of its own. */
export function groupDetail(id: string, childCount: number, side: Side, rootId: string): NodeDetail {
  return {
    ...groupSummary(id, childCount),
    side,
    upnode: rootId,
    path: [rootId],
    inputData: {},
    outputData: {},
    stackInfo: [],
    suggestions: {},
    parallelMergeInfo: [],
    matchedDistributed: null,
  };
}
