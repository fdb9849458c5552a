/**
 * A `TbHierarchy` (packed, packed.ts) answered through the viewer's existing contract (src/core/api/types.ts), so the server's
 * `children` / `node` routes and the canvas can show TensorBoard graphs like msprobe ones: scopes as modules
 * (nodeType 0), ops as leaves (1), series as collections (9, drawn dashed). Precision fields stay empty. The
 * TensorBoard-only facts (op, device, attributes, edges) ride along in `tb`.
 */
import type { ChildrenResponse, IoItem, NodeDetail, NodeSummary } from '../api/types.js';
import type { TbHNodeKind, TbMetaEdge } from './hierarchy.js';
import { tensorLabel, type TbAttr, type TbOpRole } from './opGraph.js';
import type { TbView } from './packed.js';

const NODE_TYPE: Record<TbHNodeKind, number> = { root: 0, scope: 0, op: 1, series: 9 };

function indexOf(v: TbView, id: string): number {
  const i = v.indexOf(id);
  if (i < 0) throw new Error(`no node "${id}"`);
  return i;
}

/** Node i's summary (`id` when the caller has it already decoded). */
export function tbSummaryAt(v: TbView, i: number, id = v.id(i)): NodeSummary {
  return {
    id,
    nodeType: NODE_TYPE[v.kind(i)],
    precisionIndex: null,
    overflowLevel: null,
    matchedNodeLink: [],
    childCount: v.children(i).length,
    microStepId: null,
  };
}

export function tbNodeSummary(v: TbView, id: string): NodeSummary {
  return tbSummaryAt(v, indexOf(v, id), id);
}

export interface TbChildrenResponse extends ChildrenResponse {
  /** Edges among the children (`children` of this node on every page), for the group's dagre layout. */
  edges: TbMetaEdge[];
}

export function tbChildren(v: TbView, id: string, offset = 0, limit = Infinity): TbChildrenResponse {
  const i = indexOf(v, id);
  const kids = v.children(i);
  return {
    node: id,
    children: Array.from(kids.subarray(offset, Math.min(kids.length, offset + limit)), (c) => tbSummaryAt(v, c)),
    total: kids.length,
    edges: v.edges(i),
  };
}

export interface TbNodeDetail extends NodeDetail {
  tb: {
    label: string;
    kind: TbHNodeKind;
    op: string | null;
    domain: string | null;
    device: string | null;
    attrs: TbAttr[];
    role: TbOpRole | null;
    calls: string[];
    opCount: number;
  };
}

/**
 * Inputs and outputs as the info panel's table rows: one item per input (`input.0` …: source node id, tensor,
 * shape, dtype, control / parameter flags) and per output.
 */
export function tbNodeDetail(v: TbView, id: string): TbNodeDetail {
  const i = indexOf(v, id);
  const op = v.op(i);
  const inputData: Record<string, IoItem> = {};
  const outputData: Record<string, IoItem> = {};
  op?.inputs.forEach((inp, i) => {
    const info = inp.param ?? inp.info;
    inputData[`${id}.input.${i}`] = {
      name: inp.name,
      source: inp.source === null ? null : v.opId(inp.source),
      dtype: info?.dtype ?? null,
      shape: info?.shape ?? null,
      kind: inp.control ? 'control' : inp.param ? 'parameter' : 'data',
      ...(inp.param ? { bytes: inp.param.bytes } : {}),
    };
  });
  op?.outputs.forEach((o, i) => {
    outputData[`${id}.output.${i}`] = { name: o.name, dtype: o.dtype, shape: o.shape, label: tensorLabel(o) };
  });
  const path = v.ancestors(i).map((a) => v.id(a));
  const parent = v.parent(i);
  return {
    ...tbSummaryAt(v, i, id),
    side: 'npu',
    upnode: parent <= 0 ? null : v.id(parent),
    path,
    inputData,
    outputData,
    stackInfo: [],
    suggestions: {},
    parallelMergeInfo: [],
    matchedDistributed: null,
    tb: {
      label: v.label(i),
      kind: v.kind(i),
      op: op?.op ?? null,
      domain: op?.domain ?? null,
      device: op?.device ?? null,
      attrs: op?.attrs ?? [],
      role: op?.role ?? null,
      calls: op?.calls ?? [],
      opCount: v.opCount(i),
    },
  };
}
