import { describe, expect, it } from 'vitest';
import { buildIoTable, isNumberText, MIN_COLUMN_WIDTH, numericColumns, resizeColumn } from '../../../src/app/panels/ioRows.js';
import { visNode } from './visNode.js';

describe('numeric columns of the info table (issue 14 item 12)', () => {
  it('reads msprobe number spellings as numbers and shapes, dtypes, names as text', () => {
    for (const text of ['1', '-3.5', '0.0', '2.233126%', '1e-05', '-3.2E+10', '.5', 'nan', 'NaN', 'inf', '-inf', ' 7 '])
      expect(isNumberText(text), text).toBe(true);
    for (const text of ['[1, 4096]', 'torch.float32', 'output', 'N/A', '', '1.2.3', '12abc', '%', 'None'])
      expect(isNumberText(text), text).toBe(false);
  });

  it('marks the statistic and diff columns of a real compare node numeric, and type/dtype/shape/state text', () => {
    const id = 'Module.module.module.GPTModel.forward.0';
    const table = buildIoTable(visNode('compare/synth_2layer.vis', 'npu', id), visNode('compare/synth_2layer.vis', 'bench', id), true);
    const numeric = numericColumns(table);
    for (const col of ['Max', 'Min', 'Mean', 'Norm', 'Max diff', 'MaxRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'])
      expect(numeric.has(col), col).toBe(true);
    for (const col of ['type', 'dtype', 'shape', 'state']) expect(numeric.has(col), col).toBe(false);
    // A column holding only placeholders (MinRelativeErr is N/A here) is not numeric: nothing to align.
    expect(numeric.has('MinRelativeErr')).toBe(false);
  });

  it('a column with one textual value is text, placeholders among numbers keep it numeric', () => {
    const item = (v: string) => ({ side: 'npu' as const, kind: 'output' as const, name: 'o', key: 'o', matched: null, item: { c: v }, flagged: new Set<string>() });
    expect(numericColumns({ columns: ['c'], rows: [item('1.5'), item('N/A'), item('-')] }).has('c')).toBe(true);
    expect(numericColumns({ columns: ['c'], rows: [item('1.5'), item('oops')] }).has('c')).toBe(false);
  });
});

describe('resizeColumn', () => {
  const start = { '#side': 50, '#name': 120, Max: 80 };

  it('widens or narrows only the dragged column by the drag distance, keeping the others', () => {
    expect(resizeColumn(start, 'Max', 40)).toEqual({ '#side': 50, '#name': 120, Max: 120 });
    expect(resizeColumn(start, '#name', -30)).toEqual({ '#side': 50, '#name': 90, Max: 80 });
    expect(start).toEqual({ '#side': 50, '#name': 120, Max: 80 });
  });

  it('never goes below the minimum width and rounds to whole pixels', () => {
    expect(resizeColumn(start, 'Max', -500).Max).toBe(MIN_COLUMN_WIDTH);
    expect(resizeColumn(start, 'Max', 10.6).Max).toBe(91);
    expect(resizeColumn({ a: 80.4 }, 'a', 0).a).toBe(80);
  });

  it('ignores an unknown column or a non-finite distance', () => {
    expect(resizeColumn(start, 'nope', 20)).toEqual(start);
    expect(resizeColumn(start, 'Max', Number.NaN)).toEqual(start);
  });
});
