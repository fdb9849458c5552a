/**
 * A `TbHierarchy` answered through the viewer's existing contract (src/core/api/types.ts), so the server's
 * `children` / `node` routes and the canvas can show TensorBoard graphs like msprobe ones: scopes as modules
 * (nodeType 0), ops as leaves (1), series as collections (9, drawn dashed). Precision fields stay empty. The
 * TensorBoard-only facts (op, device, attributes, edges) ride along in `tb`.
 */
import type { ChildrenResponse, IoItem, NodeDetail, NodeSummary } from '../api/types.js';
import { ancestorsOf, ROOT_ID, type TbHierarchy, type TbHNodeKind, type TbMetaEdge } from './hierarchy.js';
import { tensorLabel, type TbAttr, type TbOpRole } from './opGraph.js';

const NODE_TYPE: Record<TbHNodeKind, number> = { root: 0, scope: 0, op: 1, series: 9 };

export function tbNodeSummary(h: TbHierarchy, id: string): NodeSummary {
  const n = h.nodes.get(id);
  if (!n) throw new Error(`no node "${id}"`);
  return {
    id,
    nodeType: NODE_TYPE[n.kind],
    precisionIndex: null,
    overflowLevel: null,
    matchedNodeLink: [],
    childCount: n.children.length,
    microStepId: null,
  };
}

export interface TbChildrenResponse extends ChildrenResponse {
  /** Edges among the children (`children` of this node on every page), for the group's dagre layout. */
  edges: TbMetaEdge[];
}

export function tbChildren(h: TbHierarchy, id: string, offset = 0, limit = Infinity): TbChildrenResponse {
  const n = h.nodes.get(id);
  if (!n) throw new Error(`no node "${id}"`);
  return {
    node: id,
    children: n.children.slice(offset, offset + limit).map((c) => tbNodeSummary(h, c)),
    total: n.children.length,
    edges: h.edges.get(id) ?? [],
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
export function tbNodeDetail(h: TbHierarchy, id: string): TbNodeDetail {
  const n = h.nodes.get(id);
  if (!n) throw new Error(`no node "${id}"`);
  const op = n.op >= 0 ? h.graph.ops[n.op] : null;
  const inputData: Record<string, IoItem> = {};
  const outputData: Record<string, IoItem> = {};
  op?.inputs.forEach((inp, i) => {
    const info = inp.param ?? inp.info;
    inputData[`${id}.input.${i}`] = {
      name: inp.name,
      source: inp.source === null ? null : h.opIds[inp.source],
      dtype: info?.dtype ?? null,
      shape: info?.shape ?? null,
      kind: inp.control ? 'control' : inp.param ? 'parameter' : 'data',
      ...(inp.param ? { bytes: inp.param.bytes } : {}),
    };
  });
  op?.outputs.forEach((o, i) => {
    outputData[`${id}.output.${i}`] = { name: o.name, dtype: o.dtype, shape: o.shape, label: tensorLabel(o) };
  });
  const path = ancestorsOf(h, id);
  return {
    ...tbNodeSummary(h, id),
    side: 'npu',
    upnode: n.parent === ROOT_ID ? null : n.parent,
    path,
    inputData,
    outputData,
    stackInfo: [],
    suggestions: {},
    parallelMergeInfo: [],
    matchedDistributed: null,
    tb: {
      label: n.label,
      kind: n.kind,
      op: op?.op ?? null,
      domain: op?.domain ?? null,
      device: op?.device ?? null,
      attrs: op?.attrs ?? [],
      role: op?.role ?? null,
      calls: op?.calls ?? [],
      opCount: n.opCount,
    },
  };
}
