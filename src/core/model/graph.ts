import type { PyValue } from '../formats/pyJson.js';
import type { RawItem } from './item.js';

export { Item, type RawItem } from './item.js';

/**
 * The in-memory graph that `graph` builds from dump directories (msprobe-format.md §2.1). One `Graph` per
 * (side, step, rank). Field names are msprobe's concepts in camelCase; they become snake_case only in writers.
 */

/** msprobe NodeOp, serialised as `node_type`. */
export const NodeOp = { module: 0, functionApi: 1, multiCollection: 8, apiCollection: 9 } as const;
export type NodeOpValue = (typeof NodeOp)[keyof typeof NodeOp];

/** The shared empty list of a node's list fields (frozen: changing it in place would be a bug, and throws). */
const NONE = Object.freeze([]) as unknown as never[];

export class GraphNode {
  upnode: GraphNode | null = null;
  readonly subnodes: GraphNode[] = [];
  /** key (e.g. `X.input.0`, `X.parameters.weight`) → item; parameters and parameters_grad live here too. */
  inputData: Map<string, RawItem>;
  outputData: Map<string, RawItem>;
  /** `precision_index`, `overflow_level` — written as the node's `data` object. */
  readonly data: { precisionIndex?: number; overflowLevel?: 'medium' | 'high' | 'critical' } = {};
  // The lists below are replaced, never changed in place: until then every node shares one empty list (a run has
  // hundreds of thousands of nodes, and each object the garbage collector copies costs).
  matchedNodeLink: string[] = NONE;
  stackInfo: string[] = NONE;
  microStepId: number | null = null;
  /** §2.12: an object, or a list of objects for batch_isend_irecv; null when none. */
  matchedDistributed: unknown = null;
  parallelMergeInfo: string[] = NONE;
  /** §2.4: `{op, peer, group_id}` of batch_isend_irecv P2P ops (internal). */
  batchP2pInfo: Array<{ op: string; peer: PyValue; groupId: PyValue }> = NONE;

  /** `inputData` / `outputData`: the node's items when they are made already (else new empty maps). */
  constructor(
    readonly id: string,
    public op: NodeOpValue,
    inputData?: Map<string, RawItem>,
    outputData?: Map<string, RawItem>,
  ) {
    this.inputData = inputData ?? new Map();
    this.outputData = outputData ?? new Map();
  }

  /** §2.4 add_upnode: the first parent assignment wins; a node is never its own parent. */
  attachTo(parent: GraphNode): void {
    if (this.upnode || parent.id === this.id) return;
    this.upnode = parent;
    parent.subnodes.push(this);
  }

  /** Ancestor ids from the root down to the parent (msprobe `get_ancestors`); [] on a cycle. */
  ancestors(): string[] {
    const out: string[] = [];
    // Hierarchies are a few dozen levels deep: only a longer chain is checked for a cycle.
    for (let p = this.upnode; p; p = p.upnode) {
      if (out.length === 256) return this.ancestorsChecked();
      out.push(p.id);
    }
    return out.reverse();
  }

  private ancestorsChecked(): string[] {
    const out: string[] = [];
    const seen = new Set<GraphNode>([this]);
    for (let p = this.upnode; p; p = p.upnode) {
      if (seen.has(p)) return [];
      seen.add(p);
      out.push(p.id);
    }
    return out.reverse();
  }
}

export interface Graph {
  root: GraphNode;
  /** Insertion-ordered: root first, then construct.json order, collections and parameters_grad nodes last. */
  nodeMap: Map<string, GraphNode>;
  /** dump.json's `dump_data_dir`, copied verbatim. */
  dumpDataDir: PyValue;
  /** Directory holding dump.json (real tensors are read from `{dir}/dump_tensor_data`). */
  dumpDir: string;
  step: number;
  rank: number;
  /** Megatron `megatron_micro_step_number` when present (§1.5). */
  megatronMicroStepNumber: number | null;
}
