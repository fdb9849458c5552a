import type { PyValue } from '../../src/core/formats/pyJson.js';
import { GraphNode, NodeOp, type Graph, type NodeOpValue, type RawItem } from '../../src/core/model/graph.js';

/** Hand-made graphs for the compare unit tests (the shape the build side produces: RawItem maps, python values). */

export interface ItemSpec {
  stats?: [PyValue, PyValue, PyValue, PyValue];
  shape?: PyValue;
  type?: string;
  dtype?: string;
  md5?: string;
  requiresGrad?: string | null;
  state?: string;
  dataName?: string;
}

export function item(name: string, spec: ItemSpec = {}): RawItem {
  const [max, min, mean, norm] = spec.stats ?? [1.0, 0.0, 0.5, 2.0];
  return new Map<string, PyValue>([
    ['type', spec.type ?? 'torch.Tensor'],
    ['dtype', spec.dtype ?? 'torch.float32'],
    ['shape', spec.shape ?? [2, 3]],
    ['Max', max],
    ['Min', min],
    ['Mean', mean],
    ['Norm', norm],
    ['requires_grad', spec.requiresGrad === undefined ? 'True' : spec.requiresGrad],
    ['data_name', spec.dataName ?? '-1'],
    ['full_op_name', name],
    ['state', spec.state ?? (name.includes('.output.') ? 'output' : name.includes('.parameters.') ? 'parameters' : 'input')],
    ['md5', spec.md5 ?? '00000000'],
  ]);
}

export function newGraph(dumpDir = '/dump'): Graph {
  const root = new GraphNode('DefaultModel', NodeOp.module);
  return { root, nodeMap: new Map([['DefaultModel', root]]), dumpDataDir: null, dumpDir, step: 0, rank: 0, megatronMicroStepNumber: null };
}

export function addNode(
  graph: Graph,
  id: string,
  parentId: string,
  items: { inputs?: Array<[string, ItemSpec?]>; outputs?: Array<[string, ItemSpec?]> } = {},
  op?: NodeOpValue,
): GraphNode {
  const kind =
    op ?? (id.startsWith('Module.') || id.startsWith('Cell.') ? NodeOp.module : id.startsWith('Apis_') ? NodeOp.apiCollection : NodeOp.functionApi);
  const node = new GraphNode(id, kind);
  graph.nodeMap.set(id, node);
  node.attachTo(graph.nodeMap.get(parentId)!);
  for (const [suffix, spec] of items.inputs ?? []) node.inputData.set(`${id}.${suffix}`, item(`${id}.${suffix}`, spec));
  for (const [suffix, spec] of items.outputs ?? []) node.outputData.set(`${id}.${suffix}`, item(`${id}.${suffix}`, spec));
  return node;
}
