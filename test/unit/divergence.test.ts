import { describe, expect, it } from 'vitest';
import type { ColorBucket, DivergentResponse, IoItem, NodeDetail, Task } from '../../src/core/api/types.js';
import { bucketColor } from '../../src/core/colors/buckets.js';
import { divergentBuckets, identicalStatistics, itemsValue, judgeCandidate, nanRuleOnIdentical } from '../../src/core/compare/divergence.js';
import { precisionDriver } from '../../src/core/compare/precisionDriver.js';
import { checkDivergent } from '../../src/app/api/divergent.js';
import { summarizeDivergent } from '../../src/app/commands/firstDivergent.js';
import { sortWorstFirst, WorstFirst } from '../../server/store/worstQuery.js';
import { nodeDetail } from '../helpers/nodeDetail.js';

/** The first-divergent rule (src/core/compare/divergence.ts) per task, and the viewer's reading of the answer. */

const detail = (id: string, outputs: IoItem[], inputs: IoItem[] = [], nodeType = 1): NodeDetail =>
  nodeDetail(id, null, outputs, inputs, nodeType);

const stats = (max: string, min: string, rel = '0.0%'): IoItem => ({
  Max: max,
  Min: min,
  Mean: '0.5',
  Norm: '4.0',
  MaxRelativeErr: rel,
  MinRelativeErr: rel,
  MeanRelativeErr: rel,
  NormRelativeErr: rel,
});
const SUMMARY: ColorBucket[] = [
  { color: '#FFFCF3', value: [0, 0.2], description: '' },
  { color: '#FFEDBE', value: [0.2, 0.4], description: '' },
  { color: '#FF704D', value: [0.8, 1], description: '' },
  { color: '#C7C7C7', value: [], description: '' },
];
const MD5: ColorBucket[] = [
  { color: '#FFFCF3', value: [1, 1], description: '' },
  { color: '#FF704D', value: [0, 0], description: '' },
];
const red = (colors: ColorBucket[]) => (v: number) => bucketColor(colors, v) === '#FF704D';
const judge = (npu: NodeDetail, bench: NodeDetail | null, task: Task, colors = SUMMARY) => judgeCandidate(npu, bench, task, red(colors)).verdict;

describe('divergence rule', () => {
  it('identical statistics: every one of Max, Min, Mean, Norm, NaN and −inf included', () => {
    expect(identicalStatistics(stats('-inf', '-inf'), stats('-inf', '-inf'))).toBe(true);
    expect(identicalStatistics({ ...stats('nan', '1'), Mean: 'nan' }, { ...stats('nan', '1'), Mean: 'nan' })).toBe(true);
    expect(identicalStatistics(stats('8', '-inf'), stats('4', '-inf'))).toBe(false);
    expect(identicalStatistics(stats('1', '1'), undefined)).toBe(false);
    expect(identicalStatistics({ Max: '1', Min: '1' }, { Max: '1', Min: '1' })).toBe(false);
  });

  it('summary: a causal mask scored 1 on identical −inf is passed over only with its counterpart read', () => {
    const mask = detail('Torch.triu.0.forward', [stats('0', '-inf')], [stats('-inf', '-inf')]);
    expect(precisionDriver(mask, 'summary').rule).toBe('summaryNonFinite');
    expect(judge(mask, mask, 'summary')).toBe('identical');
    expect(nanRuleOnIdentical(precisionDriver(mask, 'summary'), mask, mask)).toBe(true);
    // Without the Bench record nothing says the −inf is shared: it counts (and its −inf input makes it inherited).
    expect(judge(mask, null, 'summary')).toBe('inherited');
    // One output that differs keeps the node divergent.
    const other = detail('Torch.triu.0.forward', [stats('0', '-inf'), stats('-inf', '1')], [stats('-inf', '-inf')]);
    const otherBench = detail('Torch.triu.0.forward', [stats('0', '-inf'), stats('1', '1')], [stats('-inf', '-inf')]);
    expect(judge(other, otherBench, 'summary')).toBe('source');
  });

  it('summary: source when the inputs score below the bucket, inherited when they are in it', () => {
    const source = detail('Torch.matmul.0.forward', [stats('8', '-8', '100.0%')], [stats('2', '-2', '0.1%')]);
    expect(judge(source, null, 'summary')).toBe('source');
    expect(judgeCandidate(source, null, 'summary', red(SUMMARY)).inputValue).toBeCloseTo(0.001);
    const later = detail('Functional.softmax.0.forward', [stats('1', '0', '100.0%')], [stats('8', '-8', '85.0%')]);
    expect(judge(later, null, 'summary')).toBe('inherited');
    // Inputs in a lower bucket do not make it inherited.
    const orange = detail('Functional.gelu.0.forward', [stats('1', '0', '90.0%')], [stats('8', '-8', '30.0%')]);
    expect(judge(orange, null, 'summary')).toBe('source');
  });

  it('an API collection is an aggregate, never the source', () => {
    const collection = detail('Apis_Between_Modules.0', [], [], 9);
    expect(judge(collection, null, 'summary')).toBe('aggregate');
  });

  it('md5: the worst bucket is 0; inputs whose md5 differ make it inherited', () => {
    const pass = { Result: 'pass' };
    const diff = { Result: 'Different' };
    expect(judge(detail('Torch.add.0.forward', [diff], [pass]), null, 'md5', MD5)).toBe('source');
    expect(judge(detail('Torch.add.1.forward', [diff], [diff]), null, 'md5', MD5)).toBe('inherited');
    expect(itemsValue([[pass, undefined]], 'md5')).toBe(1);
  });

  it('real tensors: the inputs score 1 − their lowest One Thousandth ratio', () => {
    const t = (ratio: string): IoItem => ({ Max: '1', Min: '0', shape: '[2]', 'One Thousandth Err Ratio': ratio });
    expect(itemsValue([[t('0.9'), undefined], [t('0.6'), undefined]], 'all')).toBeCloseTo(0.4);
    const buckets: ColorBucket[] = [
      { color: '#FFFCF3', value: [0, 0.05], description: '' },
      { color: '#FF704D', value: [0.2, 1], description: '' },
    ];
    expect(judge(detail('Torch.matmul.0.forward', [t('0.1')], [t('1.0')]), null, 'all', buckets)).toBe('source');
    expect(judge(detail('Torch.matmul.1.forward', [t('0.1')], [t('0.5')]), null, 'all', buckets)).toBe('inherited');
  });

  it('divergent buckets: worst first, without the good one, for both ends of the scale', () => {
    expect(divergentBuckets(SUMMARY, 'high').map((b) => b.value)).toEqual([[0.8, 1], [0.2, 0.4]]);
    expect(divergentBuckets(MD5, 'low').map((b) => b.value)).toEqual([[0, 0]]);
  });
});

describe('first-divergent answer in the viewer', () => {
  const answer: DivergentResponse = {
    worst: 'high',
    bucket: SUMMARY[2],
    node: {
      id: 'Torch.matmul.0.forward',
      nodeType: 1,
      precisionIndex: 1,
      overflowLevel: null,
      matchedNodeLink: ['DefaultModel', 'Torch.matmul.0.forward'],
      childCount: 0,
      microStepId: null,
      path: ['DefaultModel'],
      rule: 'summaryMax',
      cells: [{ kind: 'output', key: 'Torch.matmul.0.forward.output.0', column: 'MaxRelativeErr' }],
      inputValue: 0.001,
      inputsDiffer: false,
    },
    examined: 4,
    inherited: 0,
    skipped: [{ id: 'Torch.full.0.forward', path: ['DefaultModel'], precisionIndex: 1, rule: 'summaryNonFinite' }],
    skippedTotal: 1,
  };

  it('checks the answer and names the node, the bucket and what was passed over', () => {
    const checked = checkDivergent(JSON.parse(JSON.stringify(answer)), 'f');
    expect(checked).toEqual(answer);
    const s = summarizeDivergent(checked);
    expect(s.target?.id).toBe('Torch.matmul.0.forward');
    expect(s.line).toEqual({ key: 'divergent.found', vars: { id: 'Torch.matmul.0.forward', value: '1', input: '0.001' } });
    expect(s.detail?.vars).toMatchObject({ bucket: '[0.8, 1]', skipped: 1, list: ': Torch.full.0.forward' });
  });

  it('no node, and a damaged answer', () => {
    expect(summarizeDivergent({ ...answer, node: null }).line.key).toBe('divergent.none');
    expect(summarizeDivergent({ ...answer, node: { ...answer.node!, inputsDiffer: true } }).line.key).toBe('divergent.inputsDiffer');
    expect(() => checkDivergent({ node: { path: [] } }, 'f')).toThrow(/without an id/);
    expect(checkDivergent({ skipped: [null, { id: 3 }], examined: -1 }, 'f')).toMatchObject({ node: null, skipped: [], examined: 0 });
  });
});

describe('worst-first pages of a rated list', () => {
  it('a page from the bounded heap is the full sort\'s, ties in execution order, for both ends', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // Few distinct values: many ties, which must keep execution order.
    const values = Float64Array.from({ length: 20_000 }, () => Math.floor(next() * 50) / 49);
    for (const end of ['high', 'low'] as const) {
      const full = sortWorstFirst(values, end);
      const pages = new WorstFirst(values, end);
      for (const [from, to] of [[0, 100], [100, 200], [9_900, 10_000], [0, 1]]) expect(Array.from(pages.range(from, to))).toEqual(Array.from(full.subarray(from, to)));
      // Past the heap's reach the full sort is used (and kept).
      expect(Array.from(pages.range(15_000, 15_100))).toEqual(Array.from(full.subarray(15_000, 15_100)));
      expect(values[full[0]]).toBe(end === 'high' ? 1 : 0);
    }
    expect(Array.from(new WorstFirst(new Float64Array(0), 'high').range(0, 100))).toEqual([]);
  });
});
