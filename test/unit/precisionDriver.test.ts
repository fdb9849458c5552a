import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IoItem } from '../../src/core/api/types.js';
import { bucketOf, cellFraction, driverReason, formatPrecision, precisionDriver } from '../../src/app/panels/precisionDriver.js';
import { repoRoot } from '../helpers/shared.js';
import { nodeDetail } from '../helpers/nodeDetail.js';

const detail = nodeDetail;

const rel = (max: string, min: string, mean: string, norm: string, extra: IoItem = {}): IoItem => ({
  Max: '1.0',
  Min: '-1.0',
  MaxRelativeErr: max,
  MinRelativeErr: min,
  MeanRelativeErr: mean,
  NormRelativeErr: norm,
  ...extra,
});

describe('precisionDriver: summary', () => {
  it('picks the largest relative error over the outputs, ignoring inputs', () => {
    const d = detail('Torch.add.0.forward', 0.3, [rel('1%', '2%', '3%', '4%'), rel('5%', '30%', '7%', '8%')], [rel('90%', '0%', '0%', '0%')]);
    const driver = precisionDriver(d, 'summary');
    expect(driver.rule).toBe('summaryMax');
    expect(driver.cells).toEqual([{ kind: 'output', key: 'Torch.add.0.forward.output.1', column: 'MinRelativeErr' }]);
    expect(driver.computed).toBeCloseTo(0.3, 12);
    expect(driver.agrees).toBe(true);
    expect(driverReason(driver, d)).toEqual({ key: 'info.driver.summaryMax', vars: { item: 'output.1', column: 'MinRelativeErr' } });
  });

  it('caps at 1 and keeps the first of equal values; N/A counts 0 and Nan never wins', () => {
    const d = detail('M', 1, [rel('N/A', 'Nan', '2658.59%', '2658.59%')]);
    const driver = precisionDriver(d, 'summary');
    expect(driver.cells[0].column).toBe('MeanRelativeErr');
    expect(driver.computed).toBe(1);
    expect(driver.agrees).toBe(true);
  });

  it('an output whose Max or Min is NaN/inf scores 1 and that cell drives it', () => {
    const d = detail('Torch.full.0.forward', 1, [rel('0%', '0%', '0%', '0%'), rel('0%', '0%', '0%', '0%', { Min: '-inf' })]);
    const driver = precisionDriver(d, 'summary');
    expect(driver.rule).toBe('summaryNonFinite');
    expect(driver.cells).toEqual([{ kind: 'output', key: 'Torch.full.0.forward.output.1', column: 'Min' }]);
    expect(driver.computed).toBe(1);
  });

  it('says when the file value does not follow from the table', () => {
    const d = detail('Module.layer2.Sequential.forward.0', 0.81, [rel('0.0%', '0.0%', '0.0%', '0.0%')]);
    const driver = precisionDriver(d, 'summary');
    expect(driver.computed).toBe(0);
    expect(driver.agrees).toBe(false);
  });

  it('items without statistics (None outputs) are skipped', () => {
    const d = detail('X', 0.5, [{ Max: null, Min: null, MaxRelativeErr: null }, rel('50%', '1%', '1%', '1%')]);
    expect(precisionDriver(d, 'summary').cells[0].key).toBe('X.output.1');
  });
});

describe('precisionDriver: md5, real, collections, ignored ops', () => {
  it('md5: every item whose Result is not pass, inputs included', () => {
    const d = detail('A', 0, [{ Max: '1', Result: 'Different' }], [{ Max: '1', Result: 'Different' }]);
    const driver = precisionDriver(d, 'md5');
    expect(driver.rule).toBe('md5Diff');
    expect(driver.cells.map((c) => `${c.kind}:${c.column}`)).toEqual(['input:Result', 'output:Result']);
    expect(precisionDriver(detail('A', 1, [{ Max: '1', Result: 'pass' }]), 'md5')).toMatchObject({ rule: 'md5Pass', cells: [], computed: 1 });
  });

  it('real: input minimum − output minimum, both cells marked, output first', () => {
    const item = (r: string) => ({ Max: '1', Min: '0', shape: [2, 2], 'One Thousandth Err Ratio': r });
    const d = detail('B', 0.25, [item('0.9'), item('0.7')], [item('0.95'), item('1.0')]);
    const driver = precisionDriver(d, 'all');
    expect(driver.rule).toBe('realDrop');
    expect(driver.cells).toEqual([
      { kind: 'output', key: 'B.output.1', column: 'One Thousandth Err Ratio' },
      { kind: 'input', key: 'B.input.0', column: 'One Thousandth Err Ratio' },
    ]);
    expect(driver.computed).toBeCloseTo(0.25, 12);
    const nanOut = detail('B', 1, [{ ...item('0.9'), Max: 'nan' }], [item('0.95')]);
    expect(precisionDriver(nanOut, 'all')).toMatchObject({ rule: 'realNonFiniteOut', computed: 1, cells: [{ column: 'Max' }] });
  });

  it('collections and empty* ops mark no cell', () => {
    expect(precisionDriver(detail('Apis_Between_Modules.0', 1, [], [], 9), 'summary')).toMatchObject({ rule: 'collection', cells: [], agrees: true });
    expect(precisionDriver(detail('Torch.empty_like.0.forward', 0, [rel('90%', '0%', '0%', '0%')]), 'summary')).toMatchObject({ rule: 'ignoredOp', cells: [], computed: 0 });
  });
});

describe('helpers', () => {
  it('cellFraction is msprobe str2float', () => {
    expect(cellFraction('28.5%')).toBeCloseTo(0.285, 12);
    expect(cellFraction('N/A')).toBe(0);
    expect(cellFraction(true)).toBe(0);
    expect(cellFraction('inf%')).toBe(Infinity);
    expect(Number.isNaN(cellFraction('Nan'))).toBe(true);
  });

  it('bucketOf uses the colour rule (right-open, 1 in the last bucket) and formatPrecision shortens', () => {
    const colors = [
      { color: '#A', value: [0, 0.2], description: '' },
      { color: '#B', value: [0.2, 0.8], description: '' },
      { color: '#C', value: [0.8, 1], description: '' },
      { color: '#G', value: [], description: '' },
    ];
    expect(bucketOf(colors, 0.2)?.color).toBe('#B');
    expect(bucketOf(colors, 1)?.color).toBe('#C');
    expect(bucketOf(colors, 1.5)).toBeNull();
    expect(formatPrecision(0.9448454380693484)).toBe('0.9448');
    expect(formatPrecision(1)).toBe('1');
  });

  it('agrees with every matched NPU node of the synthetic compare fixture (summary)', () => {
    const doc = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/e2e/compare/synth_2layer.vis'), 'utf8'));
    let checked = 0;
    for (const [id, node] of Object.entries<any>(doc.NPU.node)) {
      const value = node.data?.precision_index;
      if (typeof value !== 'number' || node.node_type === 9) continue;
      const d = detail(id, value, [], [], node.node_type);
      d.outputData = node.output_data;
      d.inputData = node.input_data;
      const driver = precisionDriver(d, 'summary');
      expect(driver.agrees, id).toBe(true);
      if (value > 0) expect(driver.cells.length, id).toBe(1);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });
});
