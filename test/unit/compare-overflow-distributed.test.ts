import { describe, expect, it } from 'vitest';
import { compareGraphs } from '../../src/core/compare/compareGraphs.js';
import { matchDistributed } from '../../src/core/compare/distributed.js';
import { inheritBenchMicroSteps } from '../../src/core/compare/microSteps.js';
import { applyOverflowLevels, overflowLevelOf } from '../../src/core/compare/overflow.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import type { Graph } from '../../src/core/model/graph.js';
import { addNode, newGraph } from './compare-helpers.js';

const t = (stats: Partial<Record<'Max' | 'Min' | 'Mean' | 'Norm', PyValue>>, type = 'torch.Tensor') =>
  new Map<string, PyValue>([['type', type], ...Object.entries(stats)] as Array<[string, PyValue]>);
const entry = (inputs: PyValue[], outputs: PyValue[], kwargs: Array<[string, PyValue]> = []) =>
  new Map<string, PyValue>([
    ['input_args', inputs],
    ['input_kwargs', new Map(kwargs)],
    ['output', outputs],
  ]);

describe('overflow levels (-oc, §2.11)', () => {
  const ok = t({ Max: 1.0, Min: 0.0, Mean: 0.5, Norm: 1.0 });
  const bad = t({ Max: Infinity, Min: 0.0, Mean: NaN, Norm: 1.0 });

  it('scenes in priority order', () => {
    expect(overflowLevelOf('Torch.add.0.forward', entry([ok], [bad]))).toBe('critical');
    expect(overflowLevelOf('Torch.add.0.forward', entry([bad], [bad]))).toBe('high');
    expect(overflowLevelOf('Torch.add.0.forward', entry([bad], [ok]))).toBe('medium');
    expect(overflowLevelOf('Torch.add.0.forward', entry([ok], [ok]))).toBeNull();
    // nested lists are searched; kwargs count as inputs
    expect(overflowLevelOf('Torch.cat.0.forward', entry([[ok, bad]], [ok]))).toBe('medium');
    expect(overflowLevelOf('Torch.add.0.forward', entry([ok], [ok], [['other', bad]]))).toBe('medium');
    // backward entries use `input`
    expect(overflowLevelOf('Torch.add.0.backward', new Map<string, PyValue>([['input', [bad]], ['output', [ok]]]))).toBe('medium');
  });

  it('numerical mutation: output norm > 100 × input norm (torch.Tensor only)', () => {
    const small = t({ Max: 1.0, Min: 0.0, Mean: 0.5, Norm: 2.0 });
    const large = t({ Max: 1.0, Min: 0.0, Mean: 0.5, Norm: 201.0 });
    expect(overflowLevelOf('Torch.mm.0.forward', entry([small], [large]))).toBe('high');
    expect(overflowLevelOf('Torch.mm.0.forward', entry([small], [t({ Norm: 200.0 })]))).toBeNull();
    expect(overflowLevelOf('Torch.mm.0.forward', entry([t({ Norm: 0.0 })], [t({ Norm: 100.5 })]))).toBe('high');
    const ms = (norm: number) => t({ Max: 1.0, Min: 0.0, Mean: 0.5, Norm: norm }, 'mindspore.Tensor');
    expect(overflowLevelOf('Mint.mm.0.forward', entry([ms(1)], [ms(1000)]))).toBeNull();
  });

  it('ignore rules drop known false positives', () => {
    expect(overflowLevelOf('Torch.empty.0.forward', entry([ok], [bad]))).toBeNull();
    expect(overflowLevelOf('Torch.empty.0.forward', entry([ok], [ok, bad]))).toBe('critical');
    expect(overflowLevelOf('Distributed.recv.0.forward', entry([bad], [ok]))).toBeNull();
    expect(overflowLevelOf('Distributed.recv.0.forward', entry([ok], [ok], [['tensor', bad]]))).toBeNull();
    expect(overflowLevelOf('Tensor.masked_fill_.0.forward', entry([ok, bad], [ok]))).toBe('medium');
  });

  it('only dump entries that are nodes get a level', () => {
    const g = newGraph();
    addNode(g, 'Torch.add.0.forward', 'DefaultModel');
    applyOverflowLevels(g, new Map([['Torch.add.0.forward', entry([ok], [bad])], ['Torch.gone.0.forward', entry([ok], [bad])]]));
    expect(g.nodeMap.get('Torch.add.0.forward')!.data.overflowLevel).toBe('critical');
  });
});

function commNode(g: Graph, id: string, params: Array<[string, PyValue]>, output: Map<string, PyValue> | null = null) {
  const node = addNode(g, id, 'DefaultModel');
  for (const [k, v] of params) node.inputData.set(`${id}.input.${k}`, new Map(v instanceof Map ? v : [['value', v]]));
  if (output) node.outputData.set(`${id}.output.0`, output);
  return node;
}

const group = (ranks: bigint[], id: string) =>
  new Map<string, PyValue>([['type', 'torch.ProcessGroup'], ['group_ranks', ranks], ['group_id', id]]);

describe('matched_distributed (§2.12)', () => {
  it('collective all_reduce on every rank of the group; index = peer precision_index', () => {
    const g0 = newGraph();
    const g1 = newGraph();
    commNode(g0, 'Distributed.all_reduce.0.forward', [['group', group([0n, 1n], 'ab12')]]);
    commNode(g1, 'Distributed.all_reduce.0.forward', [['group', group([0n, 1n], 'ab12')]]);
    const b0 = newGraph();
    const b1 = newGraph();
    commNode(b0, 'Distributed.all_reduce.0.forward', [['group', group([0n, 1n], 'ab12')]]);
    commNode(b1, 'Distributed.all_reduce.0.forward', [['group', group([0n, 1n], 'ab12')]]);
    compareGraphs(g1, b1, { mode: 'summary', fuzzy: false, layerMapping: null, overflowCheck: false });
    matchDistributed(new Map([[0, g0], [1, g1]]), false);
    expect(g0.nodeMap.get('Distributed.all_reduce.0.forward')!.matchedDistributed).toEqual({
      communications_type: 'send_receive',
      nodes_info: { '1': ['Nan', 'Distributed.all_reduce.0.forward'] },
    });
    expect(g1.nodeMap.get('Distributed.all_reduce.0.forward')!.matchedDistributed).toEqual({
      communications_type: 'send_receive',
      nodes_info: { '0': ['Nan', 'Distributed.all_reduce.0.forward'] },
    });
  });

  it('p2p send/recv pair when ranks and outputs agree', () => {
    const out = new Map<string, PyValue>([['dtype', 'torch.float32'], ['shape', [2n]], ['Max', 1.0], ['Min', 0.0], ['Mean', 0.5], ['Norm', 1.0]]);
    const g0 = newGraph();
    const g1 = newGraph();
    commNode(g0, 'Distributed.send.0.forward', [['dst', 1n]], out);
    commNode(g1, 'Distributed.recv.0.forward', [['src', 0n]], new Map(out));
    g1.nodeMap.get('Distributed.recv.0.forward')!.data.overflowLevel = 'high';
    matchDistributed(new Map([[0, g0], [1, g1]]), true);
    expect(g0.nodeMap.get('Distributed.send.0.forward')!.matchedDistributed).toEqual({
      communications_type: 'send',
      nodes_info: { '1': ['high', 'Distributed.recv.0.forward'] },
    });
    expect(g1.nodeMap.get('Distributed.recv.0.forward')!.matchedDistributed).toEqual({
      communications_type: 'receive',
      nodes_info: { '0': ['Nan', 'Distributed.send.0.forward'] },
    });
  });

  it('p2p with different outputs does not match; broadcast peers get the reversed type', () => {
    const g0 = newGraph();
    const g1 = newGraph();
    commNode(g0, 'Distributed.send.0.forward', [['dst', 1n]], new Map([['Max', 1.0]]));
    commNode(g1, 'Distributed.recv.0.forward', [['src', 0n]], new Map([['Max', 2.0]]));
    commNode(g0, 'Distributed.broadcast.0.forward', [['1', 0n], ['group', group([0n, 1n], 'g')]]);
    commNode(g1, 'Distributed.broadcast.0.forward', [['1', 0n], ['group', group([0n, 1n], 'g')]]);
    matchDistributed(new Map([[0, g0], [1, g1]]), false);
    expect(g0.nodeMap.get('Distributed.send.0.forward')!.matchedDistributed).toBeNull();
    expect(g0.nodeMap.get('Distributed.broadcast.0.forward')!.matchedDistributed).toEqual({
      communications_type: 'send',
      nodes_info: { '1': ['Nan', 'Distributed.broadcast.0.forward'] },
    });
    expect(g1.nodeMap.get('Distributed.broadcast.0.forward')!.matchedDistributed).toEqual({
      communications_type: 'receive',
      nodes_info: { '0': ['Nan', 'Distributed.broadcast.0.forward'] },
    });
  });

  it('batch_isend_irecv: one entry per P2P op, a list when there are several', () => {
    const g0 = newGraph();
    const g1 = newGraph();
    const n0 = commNode(g0, 'Distributed.batch_isend_irecv.0.forward', []);
    n0.batchP2pInfo = [
      { op: 'isend', peer: 1n, groupId: 'gg' },
      { op: 'irecv', peer: 1n, groupId: 'gg' },
    ];
    const n1 = commNode(g1, 'Distributed.batch_isend_irecv.0.forward', []);
    n1.batchP2pInfo = [
      { op: 'irecv', peer: 0n, groupId: 'gg' },
      { op: 'isend', peer: 0n, groupId: 'gg' },
    ];
    matchDistributed(new Map([[0, g0], [1, g1]]), false);
    expect(n0.matchedDistributed).toEqual([
      { communications_type: 'send', nodes_info: { '1': ['Nan', 'Distributed.batch_isend_irecv.0.forward'] } },
      { communications_type: 'receive', nodes_info: { '1': ['Nan', 'Distributed.batch_isend_irecv.0.forward'] } },
    ]);
  });
});

describe('bench micro steps (§2.10)', () => {
  it('matched bench nodes inherit, unmatched take their last id segment, descendants propagate', () => {
    const npu = newGraph();
    const bench = newGraph();
    for (const g of [npu, bench]) {
      addNode(g, 'Module.a.A.forward.0', 'DefaultModel');
      addNode(g, 'Torch.x.0.forward', 'Module.a.A.forward.0');
    }
    addNode(bench, 'Apis_Between_Modules.3', 'DefaultModel');
    addNode(bench, 'Module.b.B.backward.x', 'DefaultModel');
    compareGraphs(npu, bench, { mode: 'summary', fuzzy: false, layerMapping: null, overflowCheck: false });
    npu.nodeMap.get('Module.a.A.forward.0')!.microStepId = 2;
    inheritBenchMicroSteps(npu, bench);
    expect(bench.nodeMap.get('Module.a.A.forward.0')!.microStepId).toBe(2);
    expect(bench.nodeMap.get('Torch.x.0.forward')!.microStepId).toBe(2);
    expect(bench.nodeMap.get('Apis_Between_Modules.3')!.microStepId).toBe(3);
    expect(bench.nodeMap.get('Module.b.B.backward.x')!.microStepId).toBe(0);
  });
});
