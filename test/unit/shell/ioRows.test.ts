import { describe, expect, it } from 'vitest';
import { buildIoTable, cellText, stripNodePrefix } from '../../../src/app/panels/ioRows.js';
import { visNode } from './visNode.js';

const SYNTH = 'compare/synth_2layer.vis';

describe('buildIoTable on real msprobe items', () => {
  it('interleaves NPU and Bench items positionally, inputs then outputs, with every column of the items', () => {
    const id = 'Module.module.module.GPTModel.forward.0';
    const npu = visNode(SYNTH, 'npu', id);
    const bench = visNode(SYNTH, 'bench', id);
    const table = buildIoTable(npu, bench, true);

    expect(table.rows.map((r) => `${r.side}:${r.name}:${r.matched}`)).toEqual([
      'npu:input.0:true',
      'bench:input.0:true',
      'npu:output.0:true',
      'bench:output.0:true',
    ]);
    // Every key of every item is a column (first appearance order, NPU first) except the tensor file name.
    const expected: string[] = [];
    for (const item of [...Object.values(npu.inputData), ...Object.values(bench.inputData), ...Object.values(npu.outputData), ...Object.values(bench.outputData)])
      for (const key of Object.keys(item)) if (key !== 'data_name' && !expected.includes(key)) expected.push(key);
    expect(table.columns).toEqual(expected);
    expect(table.columns).toContain('MaxRelativeErr');
    expect(table.columns).toContain('L2norm diff');
    expect(table.columns).not.toContain('data_name');
    // Cells are the file's strings, untouched.
    const npuOut = npu.outputData[`${id}.output.0`];
    expect(table.rows[2].item).toBe(npuOut);
    expect(cellText(table.rows[2].item['NormRelativeErr'])).toBe(npuOut['NormRelativeErr']);
    expect(table.rows[3].item['NormRelativeErr']).toBeUndefined();
  });

  it('puts items without a positional partner after the pairs: NPU leftovers, then Bench leftovers', () => {
    const id = 'Module.module.module.GPTModel.forward.0';
    const npu = visNode(SYNTH, 'npu', id);
    const bench = visNode(SYNTH, 'bench', id);
    // Bench lost its only output, NPU lost its only input: one pair is impossible on each kind.
    const trimmedBench = { ...bench, outputData: {} };
    const trimmedNpu = { ...npu, inputData: {} };
    const table = buildIoTable(trimmedNpu, trimmedBench, true);
    expect(table.rows.map((r) => `${r.side}:${r.name}:${r.matched}`)).toEqual(['npu:output.0:false', 'bench:input.0:false']);
  });

  it('shows an unmatched node alone, every row marked unmatched', () => {
    const id = 'Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0';
    const npu = visNode('compare/lm_pt_vs_pt.vis', 'npu', id);
    expect(npu.matchedNodeLink).toEqual([]);
    const table = buildIoTable(npu, null, true);
    expect(table.rows.map((r) => `${r.side}:${r.name}:${r.matched}`)).toEqual(['npu:input.0:false', 'npu:output.0:false']);
  });

  it('gives build files no match markers', () => {
    const npu = visNode('build/mock_single_statis_graph.vis', 'build', 'AddOne_0');
    const table = buildIoTable(npu, null, false);
    expect(table.rows.length).toBe(Object.keys(npu.inputData).length + Object.keys(npu.outputData).length);
    expect(table.rows.every((r) => r.matched === null && r.side === 'npu')).toBe(true);
  });

  it('keeps error_key as highlighted cells instead of a column, and shows non-string legacy values as JSON', () => {
    const npu = visNode('compare/mock_compare.vis', 'npu', 'AddOne_1');
    const table = buildIoTable(npu, null, true);
    const flaggedRow = table.rows.find((r) => r.flagged.size > 0)!;
    expect([...flaggedRow.flagged]).toEqual(['type', 'shape']);
    expect(table.columns).not.toContain('error_key');
    expect(table.columns).toContain('longlonglonglonglonglongName');
    const arrayShape = table.rows.find((r) => Array.isArray(r.item.shape))!;
    expect(cellText(arrayShape.item.shape)).toBe('[64,256,2,2]');
    // This legacy item key carries another node's prefix; it is shown whole rather than guessed at.
    expect(flaggedRow.name).toBe('Test.maxpoolMaxPool2.maxpoolpo.tt.ee.input_arg.0');
  });
});

describe('stripNodePrefix', () => {
  it('removes exactly "{node id}." and nothing else', () => {
    expect(stripNodePrefix('Tensor.add.0.forward.input.0', 'Tensor.add.0.forward')).toBe('input.0');
    expect(stripNodePrefix('Tensor.add.0.forwardX.input.0', 'Tensor.add.0.forward')).toBe('Tensor.add.0.forwardX.input.0');
    expect(stripNodePrefix('Tensor.add.0.forward.', 'Tensor.add.0.forward')).toBe('Tensor.add.0.forward.');
  });
});
