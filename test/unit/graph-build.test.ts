import { describe, expect, it } from 'vitest';
import { buildGraph, NO_FORWARD_STACK } from '../../src/core/build/buildGraph.js';
import { pagingByMicroStep } from '../../src/core/build/microSteps.js';
import { parseConstructJson } from '../../src/core/formats/constructJson.js';
import { DumpFileError } from '../../src/core/formats/dumpFileError.js';
import { parseDumpJson } from '../../src/core/formats/dumpJson.js';
import type { FormatEra } from '../../src/core/formats/formatEra.js';
import { parseStackJson } from '../../src/core/formats/stackJson.js';
import { postOrder } from '../../src/core/formats/visDb.js';
import type { Graph } from '../../src/core/model/graph.js';

// Hierarchy rules of msprobe-format.md §2.2–2.10 on small construct.json files.
function build(construct: object, opts: { data?: object; stack?: object; era?: FormatEra } = {}) {
  const src = {
    construct: parseConstructJson(JSON.stringify(construct)),
    dump: parseDumpJson(JSON.stringify({ task: 'statistics', data: opts.data ?? {} })),
    stack: parseStackJson(JSON.stringify(opts.stack ?? {})),
    dumpDir: '/dump',
  };
  return buildGraph(src, { era: opts.era ?? 'db' });
}

const children = (g: Graph, id: string) => g.nodeMap.get(id)!.subnodes.map((n) => n.id);
const parentOf = (g: Graph, id: string) => g.nodeMap.get(id)!.upnode?.id ?? null;

describe('construct.json → hierarchy', () => {
  it('creates parents on first reference and attaches them when their own entry comes (sibling order)', () => {
    const { graph } = build({ 'Module.a.A.forward.0': 'Module.p.P.forward.0', 'Module.b.B.forward.0': null, 'Module.p.P.forward.0': '' });
    expect([...graph.nodeMap.keys()]).toEqual(['DefaultModel', 'Module.p.P.forward.0', 'Module.a.A.forward.0', 'Module.b.B.forward.0']);
    expect(children(graph, 'DefaultModel')).toEqual(['Module.b.B.forward.0', 'Module.p.P.forward.0']);
    expect(children(graph, 'Module.p.P.forward.0')).toEqual(['Module.a.A.forward.0']);
  });

  it('gives a top-level backward call the backward twin of its forward twin’s parent (modules and APIs)', () => {
    const { graph } = build({
      'Module.m.M.forward.0': null,
      'Module.m.l.L.forward.0': 'Module.m.M.forward.0',
      'Tensor.add.0.forward': 'Module.m.M.forward.0',
      'Module.m.M.backward.0': null,
      'Module.m.l.L.backward.0': null,
      'Tensor.add.0.backward': null,
    });
    expect(parentOf(graph, 'Module.m.l.L.backward.0')).toBe('Module.m.M.backward.0');
    expect(parentOf(graph, 'Tensor.add.0.backward')).toBe('Module.m.M.backward.0');
  });

  it('fixes backward parents misplaced by in-place layers (db era only)', () => {
    const construct = {
      'Module.layer4.1.BasicBlock.forward.0': null,
      'Module.layer4.1.conv2.Conv2d.forward.0': 'Module.layer4.1.BasicBlock.forward.0',
      'Module.layer4.1.relu.ReLU.forward.1': 'Module.layer4.1.BasicBlock.forward.0',
      'Module.layer4.1.BasicBlock.backward.0': null,
      'Module.layer4.1.relu.ReLU.backward.1': 'Module.layer4.1.BasicBlock.backward.0',
      'Module.layer4.1.conv2.Conv2d.backward.0': 'Module.layer4.1.relu.ReLU.backward.1',
    };
    expect(parentOf(build(construct).graph, 'Module.layer4.1.conv2.Conv2d.backward.0')).toBe('Module.layer4.1.BasicBlock.backward.0');
    expect(parentOf(build(construct, { era: 'vis202507' }).graph, 'Module.layer4.1.conv2.Conv2d.backward.0')).toBe(
      'Module.layer4.1.relu.ReLU.backward.1',
    );
  });

  it('groups runs of two or more top-level APIs into Apis_Between_Modules.{k}', () => {
    const { graph } = build({
      'Tensor.a.0.forward': null,
      'Torch.b.0.forward': null,
      'Module.m.M.forward.0': null,
      'Tensor.c.0.forward': null,
      'Module.n.N.forward.0': null,
      'Functional.d.0.forward': null,
      'NPU.e.0.forward': null,
    });
    expect(children(graph, 'DefaultModel')).toEqual([
      'Apis_Between_Modules.0',
      'Module.m.M.forward.0',
      'Tensor.c.0.forward',
      'Module.n.N.forward.0',
      'Apis_Between_Modules.1',
    ]);
    expect(children(graph, 'Apis_Between_Modules.1')).toEqual(['Functional.d.0.forward', 'NPU.e.0.forward']);
    expect(parentOf(graph, 'Tensor.a.0.forward')).toBe('Apis_Between_Modules.0');
    expect(graph.nodeMap.get('Apis_Between_Modules.0')!.op).toBe(9);
    expect([...graph.nodeMap.keys()].slice(-2)).toEqual(['Apis_Between_Modules.0', 'Apis_Between_Modules.1']);
  });

  it('hangs parameter gradients under the last backward call; E2 only knew the unnumbered name', () => {
    const construct = { 'Module.fc.Linear.forward.0': null, 'Module.fc.Linear.backward.0': null, 'Module.fc.Linear.backward.1': null };
    const w = { weight: [{ type: 'torch.Tensor', dtype: 'torch.float32', shape: [2], Max: 1.0, Min: 0.0, Mean: 0.5, Norm: 1.0 }] };
    const numbered = build(construct, { data: { 'Module.fc.Linear.parameters_grad.0': w } });
    expect(children(numbered.graph, 'Module.fc.Linear.backward.1')).toEqual(['Module.fc.Linear.parameters_grad.0']);
    expect([...numbered.graph.nodeMap.get('Module.fc.Linear.parameters_grad.0')!.inputData.keys()]).toEqual([
      'Module.fc.Linear.parameters_grad.0.weight',
    ]);
    expect(build(construct, { data: { 'Module.fc.Linear.parameters_grad.0': w }, era: 'vis202507' }).graph.nodeMap.has('Module.fc.Linear.parameters_grad.0')).toBe(false);
    const legacy = build(construct, { data: { 'Module.fc.Linear.parameters_grad': w }, era: 'vis202507' });
    expect(children(legacy.graph, 'Module.fc.Linear.backward.1')).toEqual(['Module.fc.Linear.parameters_grad']);
    // No backward call: the gradients are dropped.
    expect(build({ 'Module.fc.Linear.forward.0': null }, { data: { 'Module.fc.Linear.parameters_grad.0': w } }).graph.nodeMap.size).toBe(2);
  });

  it('moves recomputed top-level modules under the backward parent of their plain call (db era)', () => {
    const construct = {
      'Module.module.Layer.forward.0': null,
      'Module.module.layers.0.mlp.MLP.forward.0': 'Module.module.Layer.forward.0',
      'Module.module.layers.0.mlp.MLP.forward.1': null,
      'Module.module.layers.0.mlp.MLP.backward.1': null,
      'Module.module.Layer.backward.0': null,
    };
    const { graph } = build(construct);
    expect(children(graph, 'DefaultModel')).toEqual(['Module.module.Layer.forward.0', 'Module.module.Layer.backward.0']);
    expect(children(graph, 'Module.module.Layer.backward.0')).toEqual([
      'Module.module.layers.0.mlp.MLP.forward.1',
      'Module.module.layers.0.mlp.MLP.backward.1',
    ]);
    expect(children(build(construct, { era: 'vis202507' }).graph, 'DefaultModel')).toHaveLength(4);
  });

  it('treats unknown names as modules, with msprobe’s warning', () => {
    const { graph, warnings } = build({ 'weird_node': null, 'Tensor1': 'Module1', 'Module1': null });
    expect(graph.nodeMap.get('weird_node')!.op).toBe(0);
    // msprobe's unescaped dots: "Tensor." matches "Tensor1".
    expect(graph.nodeMap.get('Tensor1')!.op).toBe(1);
    expect(warnings).toEqual(['Cannot parse node_name weird_node into NodeOp, default parsing as module.']);
  });

  it('keeps orphans (parents that never reach the root) in nodeMap but not in the exported post-order', () => {
    const { graph } = build({ 'Tensor.x.0.forward': 'Module.gone.G.forward.0', 'Module.m.M.forward.0': null });
    expect(graph.nodeMap.has('Module.gone.G.forward.0')).toBe(true);
    expect(postOrder(graph.root).map((n) => n.id)).toEqual(['Module.m.M.forward.0', 'DefaultModel']);
  });
});

describe('stacks', () => {
  const construct = {
    'Module.conv.Conv2d.forward.0': null,
    'Tensor.add.0.forward': 'Module.conv.Conv2d.forward.0',
    'Module.conv.Conv2d.backward.1': null,
    'Tensor.add.0.backward': 'Module.conv.Conv2d.backward.1',
    'Tensor.mul.0.backward': 'Module.conv.Conv2d.backward.1',
  };
  const stack = {
    'Module.conv.Conv2d.forward.0': ['File a.py, line 1, in f, \n y = g(x)', 'File m.py, line 9, in forward, \n x = self.conv(x)'],
    'Tensor.add.0.forward': ['File wrap.py, line 61, in t, \n return TensorOPTemplate(op, hook)(*a)', 'File m.py, line 3, in f, \n x = x + 1', 'File run.py, line 1'],
  };

  it('copies forward stacks to backward calls (module: call 0) and says when there is none', () => {
    const { graph } = build(construct, { stack });
    expect(graph.nodeMap.get('Module.conv.Conv2d.backward.1')!.stackInfo).toEqual(stack['Module.conv.Conv2d.forward.0']);
    expect(graph.nodeMap.get('Tensor.add.0.backward')!.stackInfo).toEqual(stack['Tensor.add.0.forward']);
    expect(graph.nodeMap.get('Tensor.mul.0.backward')!.stackInfo).toEqual([NO_FORWARD_STACK]);
  });

  it('simplifies stacks to one line in the E2 era', () => {
    const { graph } = build(construct, { stack, era: 'vis202507' });
    expect(graph.nodeMap.get('Module.conv.Conv2d.forward.0')!.stackInfo).toEqual(['File m.py, line 9, in forward, \n x = self.conv(x)']);
    expect(graph.nodeMap.get('Tensor.add.0.backward')!.stackInfo).toEqual(['File m.py, line 3, in f, \n x = x + 1']);
  });

  it('reads the grouped stack.json format', () => {
    const grouped = { '0': [['Tensor.add.0.forward', 'Module.conv.Conv2d.forward.0'], ['File m.py, line 3']] };
    const { graph } = build(construct, { stack: grouped });
    expect(graph.nodeMap.get('Tensor.add.0.forward')!.stackInfo).toEqual(['File m.py, line 3']);
    expect(graph.nodeMap.get('Module.conv.Conv2d.forward.0')!.stackInfo).toEqual(['File m.py, line 3']);
  });
});

describe('micro steps', () => {
  const construct = {
    'Module.m.M.forward.0': null,
    'Tensor.x.0.forward': 'Module.m.M.forward.0',
    'Module.m.M.backward.0': null,
    'Tensor.a.0.forward': null,
    'Module.m.M.forward.1': null,
    'Tensor.y.0.forward': 'Module.m.M.forward.1',
    'Module.m.M.backward.1': null,
  };

  it('starts a micro step at each top-level forward module after a backward one; db propagates to descendants', () => {
    const { graph } = build(construct);
    expect(pagingByMicroStep(graph, null, 'db')).toBe(2);
    expect(graph.root.subnodes.map((n) => n.microStepId)).toEqual([0, 0, 0, 1, 1]);
    expect(graph.nodeMap.get('Tensor.y.0.forward')!.microStepId).toBe(1);
  });

  it('marks only root children in the E2 era', () => {
    const { graph } = build(construct, { era: 'vis202507' });
    expect(pagingByMicroStep(graph, null, 'vis202507')).toBe(2);
    expect(graph.nodeMap.get('Tensor.y.0.forward')!.microStepId).toBeNull();
  });

  it('takes Megatron micro steps from construct.json', () => {
    const { graph } = build({ megatron_micro_step_number: 1, 'Module.m.M.forward.0': [null, 0], 'Module.m.M.forward.1': [null, 1] });
    expect(pagingByMicroStep(graph, null, 'db')).toBe(2);
    expect(graph.nodeMap.get('Module.m.M.forward.1')!.microStepId).toBe(1);
    expect(() => parseConstructJson('{"megatron_micro_step_number": 1, "A": [null, 0, 3]}', 'x/construct.json')).toThrow(
      new DumpFileError('x/construct.json', 'Parse construct json file "construct.json" failed.'),
    );
  });
});
