import { describe, expect, it } from 'vitest';
import { compareGraphs } from '../../src/core/compare/compareGraphs.js';
import { nodeColors, toolTip } from '../../src/core/compare/colors.js';
import { detectDumpMode, DumpModeError } from '../../src/core/compare/mode.js';
import { getPrecisionIndex, md5Result, precisionIndexRepr } from '../../src/core/compare/nodeResults.js';
import { formatValue12, pyEquals, pyParseFloat } from '../../src/core/compare/pyNumber.js';
import { summaryCells, summaryValues, str2float } from '../../src/core/compare/summaryMetrics.js';
import { formatValue } from '../../src/core/formats/itemFormat.js';
import { Item } from '../../src/core/model/item.js';
import { sameMetric, type TensorMetrics } from '../../src/core/compare/tensorMetrics.js';
import type { PyValue } from '../../src/core/formats/pyJson.js';
import { addNode, newGraph, type ItemSpec } from './compare-helpers.js';

const opts = { fuzzy: false, layerMapping: null, overflowCheck: false } as const;
const col = (cells: Array<[string, PyValue]>, name: string) => cells.find(([k]) => k === name)?.[1];

describe('summary cells (msprobe get_rela_diff_summary_mode)', () => {
  it('float diffs and relative strings are Python floats printed by str()', () => {
    const cells = summaryCells([1.5, -1.25, 0.125, 3.0], [1.65, -1.25, 0.1375, 3.3]);
    expect(col(cells, 'Max diff')).toBe(-0.1499999999999999);
    expect(col(cells, 'MaxRelativeErr')).toBe('9.090909090909086%');
    expect(col(cells, 'Min diff')).toBe(0);
    expect(col(cells, 'MinRelativeErr')).toBe('0.0%');
    expect(col(cells, 'Mean diff')).toBe(-0.012500000000000011);
    expect(col(cells, 'MeanRelativeErr')).toBe('9.090909090909099%');
    expect(col(cells, 'NormRelativeErr')).toBe('9.090909090909086%');
  });

  it('int - int stays a Python int', () => {
    const cells = summaryCells([423n, 1n, 1n, 1n], [1n, 1n, 1n, 1n]);
    expect(col(cells, 'Max diff')).toBe(422n);
    expect(col(cells, 'MaxRelativeErr')).toBe('42200.0%');
    expect(col(cells, 'Min diff')).toBe(0n);
  });

  it('N/A for a zero bench or non-numbers, Nan for NaN, TAB after inf', () => {
    const cells = summaryCells([1.0, 'True', NaN, Infinity], [0.0, 'True', 1.0, 1.0]);
    expect(col(cells, 'Max diff')).toBe(1);
    expect(col(cells, 'MaxRelativeErr')).toBe('N/A');
    expect(col(cells, 'Min diff')).toBe('N/A');
    expect(col(cells, 'MinRelativeErr')).toBe('N/A');
    expect(col(cells, 'Mean diff')).toBe('Nan');
    expect(col(cells, 'MeanRelativeErr')).toBe('Nan');
    expect(col(cells, 'L2norm diff')).toBe('inf\t');
    expect(col(cells, 'NormRelativeErr')).toBe('inf%');
    const inv = summaryCells([1.0, 1.0, 1.0, 1.0], [Infinity, 1.0, 1.0, 1.0]);
    expect(col(inv, 'Max diff')).toBe('-inf\t');
    expect(col(inv, 'MaxRelativeErr')).toBe('nan%');
  });

  it('str2float parses like Python float() and divides by 100', () => {
    expect(str2float('9.090909090909092%', pyParseFloat)).toBe(0.09090909090909091);
    expect(str2float('inf%', pyParseFloat)).toBe(Infinity);
    expect(Number.isNaN(str2float('Nan', pyParseFloat))).toBe(true);
    expect(str2float('N/A', pyParseFloat)).toBe(0n);
    expect(str2float(' ', pyParseFloat)).toBe(0n);
    expect(str2float('1', pyParseFloat)).toBe(0.01);
    expect(str2float(1.5, pyParseFloat)).toBe(0n);
  });

  it('Python number helpers', () => {
    expect(formatValue12(2 ** -13)).toBe(0.000122070312);
    expect(pyParseFloat(' 1_000.5 ')).toBe(1000.5);
    expect(pyParseFloat('-Infinity')).toBe(-Infinity);
    expect(pyParseFloat('1e')).toBeNull();
    expect(pyEquals([1n, 4096n], [1, 4096.0])).toBe(true);
    expect(pyEquals(new Map([['a', 1n], ['b', 2n]]), new Map([['b', 2n], ['a', 1n]]))).toBe(true);
    expect(pyEquals(NaN, NaN)).toBe(false);
  });

  it('relative cells of the graph are what export formatting makes of the full cells', () => {
    // summaryValues cuts the relative cells itself; the file must still hold formatValue(f"{x}%") of each.
    const stats = (v: PyValue[]) => new Item().setAll(['Max', 'Min', 'Mean', 'Norm'], v);
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const samples: PyValue[] = [0.0, 1.0, 3.3, 1e-300, 5e-5, 1e-4, 0.5, 7.0, 1e8, 123456789.5, 2e9, 1e17, NaN, Infinity, 3n, -2n];
    for (let k = 0; k < 3000; k++) samples.push((random() - 0.5) * 10 ** Math.floor(random() * 24 - 12));
    for (let k = 0; k + 8 <= samples.length; k += 4) {
      const npu = samples.slice(k, k + 4);
      const bench = samples.slice(k + 4, k + 8);
      const values: PyValue[] = new Array(8);
      summaryValues(stats(npu), stats(bench), values, new Array(4));
      const full = summaryCells(npu, bench);
      for (let i = 0; i < 8; i++) expect(formatValue(values[i]), `${npu} / ${bench} #${i}`).toBe(formatValue(full[i][1]));
      for (let i = 4; i < 8; i++) expect(formatValue(values[i])).toBe(values[i]);
    }
    // relative errors that are short decimals (repr of at most 6 places), large ones and tiny ones
    const pairs: Array<[number, number]> = [[2, 1], [1.5, 1], [1.25, 1], [3, 4], [1.000001, 1], [1.1, 1], [7, 8], [2e7, 1], [1e10, 1], [1.0000000001, 1]];
    for (const [n, b] of pairs) {
      const values: PyValue[] = new Array(8);
      summaryValues(stats([n, n, n, n]), stats([b, b, b, b]), values, new Array(4));
      const full = summaryCells([n, n, n, n], [b, b, b, b]);
      for (let i = 4; i < 8; i++) expect(values[i], `${n} / ${b}`).toBe(formatValue(full[i][1]));
    }
    expect(summaryCells([2, 2, 2, 2], [1, 1, 1, 1])[4][1]).toBe('100.0%');
  });
});

function pairGraphs(build: (g: ReturnType<typeof newGraph>, side: 'npu' | 'bench') => void) {
  const npu = newGraph('/npu');
  const bench = newGraph('/bench');
  build(npu, 'npu');
  build(bench, 'bench');
  return { npu, bench };
}

describe('precision_index and compare columns (summary)', () => {
  it('index from outputs only, Python bits of the x100 / 100 round trip', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      const k = s === 'npu' ? 1.3 : 1;
      addNode(g, 'Module.fc.Linear.forward.0', 'DefaultModel', {
        inputs: [['input.0', { stats: [10 * k, 0, 1, 1] }]],
        outputs: [['output.0', { stats: [2.611055 * k, 0, 1, 1] }]],
      });
    });
    compareGraphs(npu, bench, { ...opts, mode: 'summary' });
    const node = npu.nodeMap.get('Module.fc.Linear.forward.0')!;
    // str(abs((0.7833165000000002/2.611055)*100)) = '30.00000000000001%' (the index reads it in full; the item holds
    // it as the file shows it); input's 30% is ignored
    expect(getPrecisionIndex(node)).toBe(30.00000000000001 / 100);
    expect(node.outputData.get('Module.fc.Linear.forward.0.output.0')!.get('MaxRelativeErr')).toBe('30.000000%');
    expect(node.inputData.get('Module.fc.Linear.forward.0.input.0')!.get('Max diff')).toBeCloseTo(3, 12);
    expect(bench.nodeMap.get('Module.fc.Linear.forward.0')!.outputData.get('Module.fc.Linear.forward.0.output.0')!.has('Max diff')).toBe(false);
    expect(node.matchedNodeLink).toEqual(['DefaultModel', 'Module.fc.Linear.forward.0']);
    expect(getPrecisionIndex(npu.root)).toBeUndefined();
  });

  it('all-equal outputs keep the int 0; >100% clips to int 1; NaN/inf Min forces 1', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      addNode(g, 'Module.a.A.forward.0', 'DefaultModel', { outputs: [['output.0']] });
      addNode(g, 'Module.b.B.forward.0', 'DefaultModel', { outputs: [['output.0', { stats: [s === 'npu' ? 5 : 1, 0, 1, 1] }]] });
      addNode(g, 'Module.c.C.forward.0', 'DefaultModel', { outputs: [['output.0', { stats: [1, s === 'npu' ? -Infinity : 0, 1, 1] }]] });
      addNode(g, 'Module.d.D.forward.0', 'DefaultModel', { outputs: [['output.0', { stats: [0, 0, 1, 1] }]], inputs: [['input.0', { stats: [s === 'npu' ? 0 : 2, 0, 1, 1] }]] });
    });
    compareGraphs(npu, bench, { ...opts, mode: 'summary' });
    expect(getPrecisionIndex(npu.nodeMap.get('Module.a.A.forward.0')!)).toBe(0n);
    expect(getPrecisionIndex(npu.nodeMap.get('Module.b.B.forward.0')!)).toBe(1n);
    expect(getPrecisionIndex(npu.nodeMap.get('Module.c.C.forward.0')!)).toBe(1n);
    expect(precisionIndexRepr(npu.nodeMap.get('Module.a.A.forward.0')!)).toBe('0');
  });

  it('exactly 100% is the float 1.0, not the int 1', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      addNode(g, 'Module.a.A.forward.0', 'DefaultModel', { outputs: [['output.0', { stats: [s === 'npu' ? 0 : 5, 0, 1, 1] }]] });
    });
    compareGraphs(npu, bench, { ...opts, mode: 'summary' });
    expect(precisionIndexRepr(npu.nodeMap.get('Module.a.A.forward.0')!)).toBe('1.0');
  });

  it('empty* ops are forced to 0; collections take the max of their APIs (missing = 0)', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      addNode(g, 'Apis_Between_Modules.0', 'DefaultModel');
      addNode(g, 'Torch.empty.0.forward', 'Apis_Between_Modules.0', { outputs: [['output.0', { stats: [s === 'npu' ? 9 : 1, 0, 1, 1] }]] });
      addNode(g, 'Torch.add.0.forward', 'Apis_Between_Modules.0', { outputs: [['output.0', { stats: [s === 'npu' ? 1.5 : 1, 0, 1, 1] }]] });
      if (s === 'npu') addNode(g, 'Torch.only_npu.0.forward', 'Apis_Between_Modules.0', { outputs: [['output.0']] });
    });
    compareGraphs(npu, bench, { ...opts, mode: 'summary' });
    expect(getPrecisionIndex(npu.nodeMap.get('Torch.empty.0.forward')!)).toBe(0n);
    expect(getPrecisionIndex(npu.nodeMap.get('Torch.add.0.forward')!)).toBe(0.5);
    expect(getPrecisionIndex(npu.nodeMap.get('Apis_Between_Modules.0')!)).toBe(0.5);
    expect(npu.nodeMap.get('Torch.only_npu.0.forward')!.matchedNodeLink).toEqual([]);
  });

  it('extra NPU items get msprobe misaligned extra-row cells', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      const outputs: Array<[string, ItemSpec?]> = [['output.0'], ['output.1', { stats: ['1', 7.5, 1, 1], shape: [2, 3] }]];
      addNode(g, 'Module.a.A.forward.0', 'DefaultModel', { outputs: s === 'npu' ? outputs : outputs.slice(0, 1) }, undefined);
    });
    // structure equality fails on the count, so use layer-mapping matching (no checks)
    compareGraphs(npu, bench, { ...opts, layerMapping: new Map(), mode: 'summary' });
    const extra = npu.nodeMap.get('Module.a.A.forward.0')!.outputData.get('Module.a.A.forward.0.output.1')!;
    expect(extra.get('Max diff')).toBe(' ');
    expect(extra.get('MinRelativeErr')).toBe(' ');
    expect(extra.get('MeanRelativeErr')).toBe('1');
    expect(extra.get('NormRelativeErr')).toBe(7.5);
    expect(extra.get('Requires_grad Consistent')).toBe('');
    // str2float('1') = 0.01 wins the max
    expect(getPrecisionIndex(npu.nodeMap.get('Module.a.A.forward.0')!)).toBe(0.01);
  });
});

describe('md5 mode', () => {
  it('pass/Different per item, node index min, and the params window quirk', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      const n = addNode(g, 'Module.fc.Linear.forward.0', 'DefaultModel', {
        inputs: [['input.0', { md5: 'aaaa' }]],
        outputs: [['output.0', { md5: 'cccc' }]],
      });
      // parameters sit in input_data after the inputs, as the build side stores them
      const id = n.id;
      for (const [p, md5] of [['weight', s === 'npu' ? 'w1' : 'w2'], ['bias', 'bb']]) {
        const key = `${id}.parameters.${p}`;
        n.inputData.set(key, new Map<string, PyValue>([
          ['type', 'torch.Tensor'], ['dtype', 'torch.float32'], ['shape', [3]], ['Max', 1.0], ['Min', 0.0], ['Mean', 0.5], ['Norm', 1.0],
          ['requires_grad', 'True'], ['data_name', '-1'], ['full_op_name', key], ['state', 'parameters'], ['md5', md5],
        ]));
      }
    });
    compareGraphs(npu, bench, { ...opts, mode: 'md5' });
    const node = npu.nodeMap.get('Module.fc.Linear.forward.0')!;
    expect(getPrecisionIndex(node)).toBe(0n);
    expect(md5Result(node)).toBe('Different');
    // msprobe pairs names by list position but md5s by per-state index: the weight's mismatch lands on `bias`.
    expect(node.inputData.get('Module.fc.Linear.forward.0.parameters.bias')!.get('Result')).toBe('Different');
    expect(node.inputData.get('Module.fc.Linear.forward.0.parameters.weight')!.get('Result')).toBe('pass');
    expect(node.outputData.get('Module.fc.Linear.forward.0.output.0')!.get('Result')).toBe('pass');
    expect(node.inputData.get('Module.fc.Linear.forward.0.input.0')!.get('Requires_grad Consistent')).toBe(true);
  });
});

describe('real-tensor mode index', () => {
  function realPair(inRatio: number | string, outRatio: number | string, outMax = 1.0) {
    const { npu, bench } = pairGraphs((g) => {
      addNode(g, 'Functional.linear.0.forward', 'DefaultModel', {
        inputs: [['input.0', { dataName: 'Functional.linear.0.forward.input.0.npy' }]],
        outputs: [['output.0', { dataName: 'Functional.linear.0.forward.output.0.npy', stats: [outMax, 0, 1, 1] }]],
      });
    });
    const outcome = compareGraphs(npu, bench, { ...opts, mode: 'all' });
    expect(outcome.tensorJobs).toEqual([
      { npuPath: '/npu/dump_tensor_data/Functional.linear.0.forward.input.0.npy', benchPath: '/bench/dump_tensor_data/Functional.linear.0.forward.input.0.npy' },
      { npuPath: '/npu/dump_tensor_data/Functional.linear.0.forward.output.0.npy', benchPath: '/bench/dump_tensor_data/Functional.linear.0.forward.output.0.npy' },
    ]);
    const m = (ratio: number | string): TensorMetrics => ({ ...sameMetric(1, ''), oneThousandth: ratio });
    outcome.applyTensorMetrics([m(inRatio), m(outRatio)]);
    return npu.nodeMap.get('Functional.linear.0.forward')!;
  }

  it('min input ratio minus min output ratio, clipped to [0, 1]', () => {
    expect(getPrecisionIndex(realPair(0.9, 0.6))).toBeCloseTo(0.3, 15);
    expect(getPrecisionIndex(realPair(0.5, 0.9))).toBe(0n);
    expect(precisionIndexRepr(realPair(1, 1))).toBe('0.0');
  });

  it('NaN/inf output statistics force 1; unparsable ratios are skipped', () => {
    expect(getPrecisionIndex(realPair(0.9, 0.9, NaN))).toBe(1n);
    expect(getPrecisionIndex(realPair('unsupported', 0.5))).toBe(0n);
    const node = realPair(0.9, 0.6);
    expect(node.outputData.get('Functional.linear.0.forward.output.0')!.get('One Thousandth Err Ratio')).toBe(0.6);
    expect(node.outputData.get('Functional.linear.0.forward.output.0')!.get('Cosine')).toBe(1);
  });
});

describe('matching', () => {
  it('exact: same id, structure and ancestors', () => {
    const { npu, bench } = pairGraphs((g, s) => {
      addNode(g, 'Module.a.A.forward.0', 'DefaultModel');
      addNode(g, 'Torch.add.0.forward', 'Module.a.A.forward.0', { outputs: [['output.0', { shape: s === 'npu' ? [2] : [3] }]] });
      addNode(g, 'Torch.mul.0.forward', s === 'npu' ? 'Module.a.A.forward.0' : 'DefaultModel');
      addNode(g, 'Torch.sub.0.forward', 'Module.a.A.forward.0');
    });
    compareGraphs(npu, bench, { ...opts, mode: 'summary' });
    expect(npu.nodeMap.get('Torch.add.0.forward')!.matchedNodeLink).toEqual([]);
    expect(npu.nodeMap.get('Torch.mul.0.forward')!.matchedNodeLink).toEqual([]);
    expect(npu.nodeMap.get('Torch.sub.0.forward')!.matchedNodeLink).toEqual(['DefaultModel', 'Module.a.A.forward.0', 'Torch.sub.0.forward']);
    expect(bench.nodeMap.get('Torch.sub.0.forward')!.matchedNodeLink).toEqual(['DefaultModel', 'Module.a.A.forward.0', 'Torch.sub.0.forward']);
  });

  it('fuzzy: APIs of a matched module re-counted (relu.0 ↔ relu.3)', () => {
    const npu = newGraph();
    const bench = newGraph();
    addNode(npu, 'Module.a.A.forward.0', 'DefaultModel');
    addNode(npu, 'Functional.relu.0.forward', 'Module.a.A.forward.0');
    addNode(bench, 'Module.a.A.forward.0', 'DefaultModel');
    addNode(bench, 'Functional.relu.3.forward', 'Module.a.A.forward.0');
    compareGraphs(npu, bench, { ...opts, fuzzy: true, mode: 'summary' });
    expect(npu.nodeMap.get('Functional.relu.0.forward')!.matchedNodeLink).toEqual(['DefaultModel', 'Module.a.A.forward.0', 'Functional.relu.3.forward']);
    expect(bench.nodeMap.get('Functional.relu.3.forward')!.matchedNodeLink).toEqual(['DefaultModel', 'Module.a.A.forward.0', 'Functional.relu.0.forward']);
  });

  it('layer mapping: mapped names, no checks, cross links', () => {
    const npu = newGraph();
    const bench = newGraph();
    addNode(npu, 'Mint.logical_or.0.forward', 'DefaultModel', { outputs: [['output.0', { shape: [1] }]] });
    addNode(npu, 'Tensor.__bool__.1.forward', 'DefaultModel');
    addNode(bench, 'Module.m.M.forward.0', 'DefaultModel');
    addNode(bench, 'Tensor.__or__.0.forward', 'Module.m.M.forward.0', { outputs: [['output.0', { shape: [9] }]] });
    const mapping = new Map([['Mint.logical_or.0.forward', 'Tensor.__or__.0.forward'], ['Tensor.__bool__.1.forward', 'N/A']]);
    compareGraphs(npu, bench, { ...opts, layerMapping: mapping, mode: 'summary' });
    expect(npu.nodeMap.get('Mint.logical_or.0.forward')!.matchedNodeLink).toEqual(['DefaultModel', 'Module.m.M.forward.0', 'Tensor.__or__.0.forward']);
    expect(bench.nodeMap.get('Tensor.__or__.0.forward')!.matchedNodeLink).toEqual(['DefaultModel', 'Mint.logical_or.0.forward']);
    expect(npu.nodeMap.get('Tensor.__bool__.1.forward')!.matchedNodeLink).toEqual([]);
  });
});

describe('mode detection (§3.1)', () => {
  const dump = (task: PyValue, data: PyValue = new Map()) => new Map<string, PyValue>([['task', task], ['data', data]]);
  const files = { npu: 'npu/dump.json', bench: 'bench/dump.json' };
  const withMd5 = new Map<string, PyValue>([['X', new Map<string, PyValue>([['output', [new Map<string, PyValue>([['md5', 'ab']])]]])]]);

  it('tensor → all, statistics → summary/md5, structure', () => {
    expect(detectDumpMode(dump('tensor'), dump('tensor'), files)).toBe('all');
    expect(detectDumpMode(dump('statistics'), dump('statistics'), files)).toBe('summary');
    expect(detectDumpMode(dump('statistics', withMd5), dump('statistics', withMd5), files)).toBe('md5');
    expect(detectDumpMode(dump('structure'), dump('structure'), files)).toBe('structure');
  });

  it('msprobe error messages, naming the file', () => {
    const err = (a: PyValue, b: PyValue) => {
      try {
        detectDumpMode(a, b, files);
      } catch (e) {
        expect(e).toBeInstanceOf(DumpModeError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err(dump(null), dump('tensor'))).toBe('npu/dump.json: Task for npu is empty, please check.');
    expect(err(dump('tensor'), new Map([['task', 'tensor']]))).toBe("bench/dump.json: Missing 'data' in dump.json, please check dump.json of bench.");
    expect(err(dump('tensor'), dump('statistics'))).toBe('npu/dump.json: Please check the dump task is consistent.');
    expect(err(dump('statistics', withMd5), dump('statistics'))).toContain('should both be statistics or md5');
    expect(err(dump('overflow_check'), dump('overflow_check'))).toBe('npu/dump.json: Compare applies only to task is tensor or statistics');
  });
});

describe('Colors and ToolTip (exact strings)', () => {
  it('summary tooltip is msprobe json.dumps output', () => {
    expect(toolTip('summary')).toBe(
      '{"Max diff": "NPU\\u4e0e\\u6807\\u6746API\\u7edf\\u8ba1\\u4fe1\\u606f\\u6bd4\\u5bf9\\uff0c\\u6700\\u5927\\u503c\\u7684\\u5dee\\u503c", ' +
        '"Min diff": "NPU\\u4e0e\\u6807\\u6746API\\u7edf\\u8ba1\\u4fe1\\u606f\\u6bd4\\u5bf9\\uff0c\\u6700\\u5c0f\\u503c\\u7684\\u5dee\\u503c", ' +
        '"Mean diff": "NPU\\u4e0e\\u6807\\u6746API\\u7edf\\u8ba1\\u4fe1\\u606f\\u6bd4\\u5bf9\\uff0c\\u5e73\\u5747\\u503c\\u7684\\u5dee\\u503c", ' +
        '"L2norm diff": "NPU\\u4e0e\\u6807\\u6746API\\u7edf\\u8ba1\\u4fe1\\u606f\\u6bd4\\u5bf9\\uff0c2\\u8303\\u6570\\uff08\\u5e73\\u65b9\\u6839\\uff09\\u7684\\u5dee\\u503c"}',
    );
    expect(JSON.parse(toolTip('md5'))).toEqual({ md5: '数据MD5信息，用于比较两个数据信息是否完全一致' });
    expect(Object.keys(JSON.parse(toolTip('all')))).toEqual(['One Thousandth Err Ratio', 'Five Thousandths Err Ratio', 'Cosine', 'MaxAbsErr', 'MaxRelativeErr']);
  });

  it('bucket tables per mode', () => {
    expect(Object.entries(nodeColors('summary')).map(([k, v]) => [k, v.value])).toEqual([
      ['#FFFCF3', [0, 0.2]], ['#FFEDBE', [0.2, 0.4]], ['#FFDC7F', [0.4, 0.6]], ['#FFC62E', [0.6, 0.8]], ['#FF704D', [0.8, 1]], ['#C7C7C7', []],
    ]);
    expect(Object.entries(nodeColors('md5')).map(([k, v]) => [k, v.value, v.description])).toEqual([
      ['#FFFCF3', [1, 1], '与标杆相比, 此节点所有输入输出的md5值相同'],
      ['#FF704D', [0, 0], '与标杆相比, 此节点任意输入输出的md5值不同'],
      ['#C7C7C7', [], '比对过程中节点未匹配上'],
    ]);
    expect(nodeColors('all')['#FF704D'].value).toEqual([0.2, 1]);
    expect(Object.keys(nodeColors('structure'))).toEqual(['#C7C7C7']);
  });
});
