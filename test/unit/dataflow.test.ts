import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GraphEdge, IoItem, Side } from '../../src/core/api/types.js';
import { fingerprint, inferDataflow, MAX_LABELS, MAX_PRODUCERS, type DataflowChild } from '../../src/core/dataflow/inferEdges.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { describeShared, sharedDataDir } from '../helpers/shared.js';

/**
 * The inferred dataflow of msprobe graphs (issue 16, src/core/dataflow/inferEdges.ts): the fingerprint rule item by
 * item, the producer choice and bundling on hand-made children, and the edges of real models dumped by msprobe
 * (../shared/data/real) checked against what each model computes.
 */

function tensor(stats: [string, string, string, string], extra: Record<string, string> = {}): IoItem {
  const [Max, Min, Mean, Norm] = stats;
  return { type: 'torch.Tensor', dtype: 'torch.float32', shape: '[2, 4]', Max, Min, Mean, Norm, requires_grad: 'False', data_name: '-1', ...extra };
}

const T1 = tensor(['1.0', '-1.0', '0.125', '3.0']);
const T2 = tensor(['2.0', '-2.0', '0.25', '6.0']);
const T3 = tensor(['3.0', '-3.0', '0.5', '9.0']);
const T4 = tensor(['4.0', '-4.0', '0.75', '12.0']);

/** A child whose inputs and outputs are the given items, keyed as msprobe keys them. */
function child(id: string, inputs: IoItem[], outputs: IoItem[]): DataflowChild {
  return {
    id,
    inputData: Object.fromEntries(inputs.map((item, i) => [`${id}.input.${i}`, item])),
    outputData: Object.fromEntries(outputs.map((item, i) => [`${id}.output.${i}`, item])),
  };
}

const pairs = (edges: GraphEdge[]) => edges.map((e) => `${e.from}->${e.to}`);

describe('fingerprint', () => {
  it('keys a statistics-mode tensor by dtype, shape and its four statistics as printed', () => {
    const fp = fingerprint(T1);
    expect(fp).toEqual({ key: expect.any(String), label: 'torch.float32[2,4]' });
    expect(fingerprint({ ...T1, requires_grad: 'True', data_name: 'x.pt', 'Max diff': '0.5' })!.key).toBe(fp!.key);
    for (const k of ['dtype', 'shape', 'Max', 'Min', 'Mean', 'Norm']) {
      const changed = { ...T1, [k]: k === 'dtype' ? 'torch.bfloat16' : k === 'shape' ? '[4, 2]' : '7.0' };
      expect(fingerprint(changed)!.key, k).not.toBe(fp!.key);
    }
    // "1.0" and "1" are different texts: the file's own printing is compared, never a parsed number.
    expect(fingerprint({ ...T1, Max: '1' })!.key).not.toBe(fp!.key);
  });

  it('keys an md5-mode tensor by dtype, shape and md5, whatever its statistics', () => {
    const a = fingerprint({ ...T1, md5: '8971dc51' })!;
    expect(a.key).toBe(fingerprint({ ...T2, md5: '8971dc51' })!.key);
    expect(a.key).not.toBe(fingerprint({ ...T1, md5: '8971dc52' })!.key);
    expect(a.key).not.toBe(fingerprint({ ...T1, dtype: 'torch.float16', md5: '8971dc51' })!.key);
    // The crc32 of nothing that old statistics-mode files write for every tensor is no md5: statistics decide.
    expect(fingerprint({ ...T1, md5: '00000000' })!.key).toBe(fingerprint(T1)!.key);
    expect(fingerprint({ ...T1, md5: 'null' })!.key).toBe(fingerprint(T1)!.key);
  });

  it('gives none for what is no tensor or says too little', () => {
    const scalar = { type: 'int', value: '1', dtype: '<class int>', shape: '[]', Max: '1', Min: '1', Mean: '1', Norm: '1', md5: '83dcefb7' };
    expect(fingerprint(scalar)).toBeNull();
    expect(fingerprint({ value: 'null' })).toBeNull();
    expect(fingerprint({ type: 'torch.ProcessGroup', group_ranks: '[0, 1]', group_id: '5a4d31ad', data_name: '-1' })).toBeNull();
    expect(fingerprint({ ...T1, shape: '[]' })).toBeNull();
    expect(fingerprint({ ...T1, shape: '[1, 1]' })).toBeNull();
    expect(fingerprint({ ...T1, shape: '[2, 0]' })).toBeNull();
    expect(fingerprint({ ...T1, shape: 'null' })).toBeNull();
    expect(fingerprint({ ...T1, dtype: 'null' })).toBeNull();
    expect(fingerprint(tensor(['null', 'null', 'null', 'null']))).toBeNull();
    expect(fingerprint({ ...T1, Max: undefined, Min: undefined, Mean: undefined, Norm: undefined })).toBeNull();
    expect(fingerprint(null as unknown as IoItem)).toBeNull();
  });

  it('keeps a tensor with some statistics null (a bool mask has no mean or norm)', () => {
    const mask = { type: 'torch.Tensor', dtype: 'torch.bool', shape: '[1, 1, 8, 8]', Max: 'True', Min: 'False', Mean: 'null', Norm: 'null' };
    expect(fingerprint(mask)).toEqual({ key: expect.any(String), label: 'torch.bool[1,1,8,8]' });
    expect(fingerprint({ ...mask, Min: 'True' })!.key).not.toBe(fingerprint(mask)!.key);
    // MindSpore tensors, and numbers a writer left unquoted, read the same.
    expect(fingerprint({ ...T1, type: 'mindspore.Tensor', dtype: 'Float32' })!.label).toBe('Float32[2,4]');
    expect(fingerprint({ ...T1, Max: 1.5 })!.key).toBe(fingerprint({ ...T1, Max: '1.5' })!.key);
  });
});

describe('inferDataflow', () => {
  it('links each output to the later inputs that carry it, in consumer then producer order', () => {
    const edges = inferDataflow([child('A', [T4], [T1]), child('B', [T1], [T2]), child('C', [T2, T1], [T3])]);
    expect(edges).toEqual([
      { from: 'A', to: 'B', data: 1, control: 0, labels: ['torch.float32[2,4]'], inferred: true },
      { from: 'A', to: 'C', data: 1, control: 0, labels: ['torch.float32[2,4]'], inferred: true },
      { from: 'B', to: 'C', data: 1, control: 0, labels: ['torch.float32[2,4]'], inferred: true },
    ]);
  });

  it('never links backwards nor a node to itself', () => {
    // B's output is A's input (B runs later) and B's own input (an identity op): neither is an edge.
    expect(inferDataflow([child('A', [T1], [T2]), child('B', [T1], [T1])])).toEqual([]);
  });

  it('takes the latest producer before the consumer', () => {
    // B passes A's tensor on unchanged (in-place / identity); D produces it again after C: C reads it from B.
    const edges = inferDataflow([child('A', [], [T1]), child('B', [T1], [T1]), child('C', [T1], [T2]), child('D', [T2], [T1])]);
    expect(pairs(edges)).toEqual(['A->B', 'B->C', 'C->D']);
  });

  it('bundles parallel edges with a count and at most MAX_LABELS distinct labels', () => {
    const shaped = (shape: string) => ({ ...T1, shape, Max: shape });
    const outs = ['[2, 3]', '[3, 3]', '[4, 3]', '[5, 3]'].map(shaped);
    const edges = inferDataflow([child('A', [], [...outs, T2]), child('B', [...outs, T2, T2], [])]);
    expect(edges).toHaveLength(1);
    expect(edges[0].data).toBe(6);
    expect(edges[0].labels).toEqual(['torch.float32[2,3]', 'torch.float32[3,3]', 'torch.float32[4,3]']);
    expect(edges[0].labels).toHaveLength(MAX_LABELS);
  });

  it('fans out: one output read by several later children', () => {
    expect(pairs(inferDataflow([child('A', [], [T1]), child('B', [T1], [T2]), child('C', [T1], [T3])]))).toEqual(['A->B', 'A->C']);
  });

  it(`ignores a fingerprint output by more than ${MAX_PRODUCERS} children`, () => {
    const common = (n: number) => [...Array.from({ length: n }, (_, i) => child(`P${i}`, [], [T1])), child('Z', [T1, T2], [])];
    expect(pairs(inferDataflow(common(MAX_PRODUCERS)))).toEqual([`P${MAX_PRODUCERS - 1}->Z`]);
    expect(inferDataflow(common(MAX_PRODUCERS + 1))).toEqual([]);
    // One child outputting it twice is one producer.
    expect(pairs(inferDataflow([child('A', [], Array(MAX_PRODUCERS + 1).fill(T1)), child('B', [T1], [])]))).toEqual(['A->B']);
  });

  it('matches md5 against md5 when the file has them, not statistics', () => {
    const a = { ...T1, md5: 'aaaaaaaa' };
    const sameStatsOtherBytes = { ...T1, md5: 'bbbbbbbb' };
    const sameBytesOtherPrint = { ...T2, md5: 'aaaaaaaa' };
    expect(inferDataflow([child('A', [], [a]), child('B', [sameStatsOtherBytes], [])])).toEqual([]);
    expect(pairs(inferDataflow([child('A', [], [a]), child('B', [sameBytesOtherPrint], [])]))).toEqual(['A->B']);
  });

  it('skips children without items and items without a fingerprint', () => {
    const none = { value: 'null' };
    const edges = inferDataflow([child('A', [], [T1, none]), undefined, child('C', [none, T1], [])]);
    expect(edges).toEqual([{ from: 'A', to: 'C', data: 1, control: 0, labels: ['torch.float32[2,4]'], inferred: true }]);
    expect(inferDataflow([])).toEqual([]);
  });
});

const visOf = (dir: string, stamp: string) => path.join(sharedDataDir() ?? '', 'real', dir, 'golden', 'graph-vis-202507', `compare_${stamp}.vis`);

/** The inferred edges of every group of one side of a real `.vis`, read as the server reads it (GraphStore.items). */
function realEdges(file: string, side: Side): Map<string, string[]> {
  const store = new VisJsonStore(readFileSync(file, 'utf8'), { file: path.basename(file), run: '.', tag: 'real' });
  const out = new Map<string, string[]>();
  const visit = (id: string | undefined) => {
    const kids = store.children({ side, nodeId: id })!.children.map((c) => c.id);
    const items = store.items({ side, ids: kids });
    out.set(id ?? store.meta().roots[side]!, pairs(inferDataflow(items.map((it, k) => it && { id: kids[k], ...it }))));
    for (const k of kids) visit(k);
  };
  visit(undefined);
  return out;
}

const count = (edges: Map<string, string[]>) => [...edges.values()].reduce((n, e) => n + e.length, 0);

describeShared('inferDataflow on real msprobe dumps', () => {
  it('resnet18 (statistics): the stem, the stages and the head in order, the residual block inside', () => {
    const npu = realEdges(visOf('resnet18_mix_statistics', 'step0_rank_20261126140403'), 'npu');
    expect(npu.get('DefaultModel')).toEqual([
      'Module.conv1.Conv2d.forward.0->Module.bn1.BatchNorm2d.forward.0',
      'Module.relu.ReLU.forward.0->Module.maxpool.MaxPool2d.forward.0',
      'Module.maxpool.MaxPool2d.forward.0->Module.layer1.Sequential.forward.0',
      'Module.layer1.Sequential.forward.0->Module.layer2.Sequential.forward.0',
      'Module.layer2.Sequential.forward.0->Module.layer3.Sequential.forward.0',
      'Module.layer3.Sequential.forward.0->Module.layer4.Sequential.forward.0',
      'Module.layer4.Sequential.forward.0->Module.avgpool.AdaptiveAvgPool2d.forward.0',
      'Module.avgpool.AdaptiveAvgPool2d.forward.0->Torch.flatten.0.forward',
      'Torch.flatten.0.forward->Module.fc.Linear.forward.0',
    ]);
    // bn → relu is missing by the data, not the rule: torchvision's ReLU is in-place, so msprobe records the relu's
    // input after it ran (equal to its output), no longer the BatchNorm's output.
    expect(npu.get('Module.layer1.0.BasicBlock.forward.0')).toEqual([
      'Module.layer1.0.conv1.Conv2d.forward.0->Module.layer1.0.bn1.BatchNorm2d.forward.0',
      'Module.layer1.0.relu.ReLU.forward.0->Module.layer1.0.conv2.Conv2d.forward.0',
      'Module.layer1.0.conv2.Conv2d.forward.0->Module.layer1.0.bn2.BatchNorm2d.forward.0',
      'Module.layer1.0.bn2.BatchNorm2d.forward.0->Tensor.__iadd__.0.forward',
    ]);
    // The backward pass runs the chain in reverse: each gradient flows to the op before it in the forward.
    const backward = npu.get('Apis_Between_Modules.0')!;
    expect(backward.slice(0, 4)).toEqual([
      'Functional.linear.0.backward->Torch.flatten.0.backward',
      'Torch.flatten.0.backward->Functional.adaptive_avg_pool2d.0.backward',
      'Functional.adaptive_avg_pool2d.0.backward->Functional.relu.16.backward',
      'Functional.relu.16.backward->Tensor.__iadd__.7.backward',
    ]);
    // The residual add's gradient goes both ways: into the block's last bn and, past the block, into the shortcut.
    expect(backward).toContain('Tensor.__iadd__.6.backward->Functional.batch_norm.17.backward');
    expect(backward).toContain('Tensor.__iadd__.6.backward->Functional.batch_norm.16.backward');
    // Totals over every group of each side, as a separate Python reading of the same rule over the JSON counted them.
    expect(count(npu)).toBe(111);
    expect(count(realEdges(visOf('resnet18_mix_statistics', 'step0_rank_20261126140403'), 'bench'))).toBe(111);
  });

  it('resnet18 (md5): the same head, matched by md5', () => {
    const file = visOf('resnet18_mix_md5', 'step0_rank_20261126140407');
    const npu = realEdges(file, 'npu');
    expect(npu.get('DefaultModel')).toContain('Torch.flatten.0.forward->Module.fc.Linear.forward.0');
    expect(count(npu)).toBe(109);
    expect(count(realEdges(file, 'bench'))).toBe(114);
  });

  it('a 2-layer GPT: Linear → GELU → Linear in the MLP, the residual stream between blocks', () => {
    const file = visOf('dist2_gpt_mix_statistics', 'step0_rank0_20261126140412');
    for (const side of ['npu', 'bench'] as const) {
      const edges = realEdges(file, side);
      expect(edges.get('Module.blocks.0.mlp.MLP.forward.0'), side).toEqual([
        'Module.blocks.0.mlp.fc.Linear.forward.0->Module.blocks.0.mlp.act.GELU.forward.0',
        'Module.blocks.0.mlp.act.GELU.forward.0->Module.blocks.0.mlp.out.Linear.forward.0',
      ]);
      expect(edges.get('Module.blocks.0.Block.forward.0'), side).toEqual([
        'Module.blocks.0.ln1.LayerNorm.forward.0->Module.blocks.0.attn.CausalSelfAttention.forward.0',
        'Module.blocks.0.attn.CausalSelfAttention.forward.0->Tensor.__add__.1.forward',
        'Tensor.__add__.1.forward->Module.blocks.0.ln2.LayerNorm.forward.0',
        'Module.blocks.0.ln2.LayerNorm.forward.0->Module.blocks.0.mlp.MLP.forward.0',
        'Tensor.__add__.1.forward->Tensor.__add__.2.forward',
        'Module.blocks.0.mlp.MLP.forward.0->Tensor.__add__.2.forward',
      ]);
      expect(edges.get('DefaultModel'), side).toEqual(
        expect.arrayContaining([
          'Module.blocks.0.Block.forward.0->Module.blocks.1.Block.forward.0',
          'Module.ln_f.LayerNorm.forward.0->Module.lm_head.Linear.forward.0',
        ]),
      );
      // Attention: the causal mask (a bool tensor from __eq__) and the scores meet in masked_fill, then softmax.
      expect(edges.get('Module.blocks.0.attn.CausalSelfAttention.forward.0'), side).toEqual(
        expect.arrayContaining([
          'Tensor.__eq__.0.forward->Tensor.masked_fill.0.forward',
          'Tensor.masked_fill.0.forward->Functional.softmax.0.forward',
          'Functional.softmax.0.forward->Torch.matmul.1.forward',
        ]),
      );
    }
    expect(count(realEdges(file, 'npu'))).toBe(167);
    expect(count(realEdges(file, 'bench'))).toBe(166);
  });
});
