import { describe, expect, it } from 'vitest';
import type { NodeSummary } from '../../src/core/api/types.js';
import { bucketColor } from '../../src/core/colors/buckets.js';
import { splitId } from '../../src/core/layout/groupSplit.js';
import { approximateTextMeasurer, ELLIPSIS } from '../../src/core/layout/textMeasure.js';
import { NodeOp } from '../../src/core/model/graph.js';
import { pageLoaded, splitShade, unloadedSlices } from '../../src/app/commands/splitTree.js';
import { treeForRoot } from '../../src/app/commands/treeState.js';
import { centreOn, overviewFrame } from '../../src/app/commands/viewport.js';
import { fitLabel } from '../../src/app/pane/labelFit.js';

/** Issue 14 items 7-8, the pure parts: label shortening, split-group shades, the minimap's geometry. */
const measure = approximateTextMeasurer;
const width = (chars: number) => measure('x'.repeat(chars), 8);

describe('fitLabel', () => {
  it('keeps a label that fits', () => {
    expect(fitLabel('Module.fc.Linear.forward.0', width(40), 8, measure)).toBe('Module.fc.Linear.forward.0');
  });
  it('drops leading segments, so forward and backward stay apart', () => {
    const f = fitLabel('Module.fc.Linear.forward.0', width(20), 8, measure);
    const b = fitLabel('Module.fc.Linear.backward.0', width(20), 8, measure);
    expect(f).toBe(`${ELLIPSIS}fc.Linear.forward.0`);
    expect(b).toBe(`${ELLIPSIS}Linear.backward.0`);
  });
  it('never starts with a bare call count: cuts the middle and keeps the direction', () => {
    const label = fitLabel('Tensor.__truediv__.24.forward', width(16), 8, measure);
    expect(label.endsWith('24.forward')).toBe(true);
    expect(label.startsWith('__tr')).toBe(true);
    expect(measure(label, 8)).toBeLessThanOrEqual(width(16));
  });
  it('always fits, down to nothing', () => {
    for (const chars of [1, 3, 6, 9, 12]) {
      const label = fitLabel('Module.module.module.decoder.layers.17.TransformerLayer.backward.0', width(chars), 8, measure);
      expect(measure(label, 8)).toBeLessThanOrEqual(width(chars));
    }
    // A name without dots is cut at the end, as before.
    const plain = fitLabel('DefaultModelWithALongName', width(8), 8, measure);
    expect(plain.startsWith('Default')).toBe(true);
    expect(plain.endsWith(ELLIPSIS)).toBe(true);
  });
});

const COLORS = [
  { color: '#FFFCF3', value: [0, 0.2], description: '' },
  { color: '#FF704D', value: [0.8, 1], description: '' },
];
const bucketOf = (v: number) => bucketColor(COLORS, v);
const leaf = (i: number, precisionIndex: number | null): NodeSummary => ({
  id: `Torch.op.${i}.forward`,
  nodeType: NodeOp.functionApi,
  precisionIndex,
  overflowLevel: null,
  matchedNodeLink: ['x'],
  childCount: 0,
  microStepId: null,
});

describe('split-group shades', () => {
  // 10 children split by 4: [0,4) [4,8) [8,10); the first page (offset 0, 4 children) covers only the first slice.
  const precision = (i: number) => (i === 6 || i === 7 ? 0.9 : i === 9 ? null : 0.1);
  const all = Array.from({ length: 10 }, (_, i) => leaf(i, precision(i)));
  const first = pageLoaded(treeForRoot('g'), 'g', { offset: 0, children: all.slice(0, 4), total: 10 }, 4);

  it('shades a loaded slice by its worst child and marks unloaded ones unknown', () => {
    expect(splitShade(first, splitId('g', 0, 4), bucketOf)).toEqual({ worst: 0.1, worstCount: 4, unknown: 0 });
    expect(splitShade(first, splitId('g', 4, 8), bucketOf)).toEqual({ worst: null, worstCount: 0, unknown: 4 });
    expect(unloadedSlices(first, 'g')).toEqual([splitId('g', 4, 8), splitId('g', 8, 10)]);
  });

  it('counts the children in the worst bucket once a slice arrives', () => {
    const slice = splitId('g', 4, 8);
    const next = pageLoaded(first, slice, { offset: 4, children: all.slice(4, 8), total: 10 }, 4);
    const shade = splitShade(next, slice, bucketOf);
    expect(shade).toEqual({ worst: 0.9, worstCount: 2, unknown: 0 });
    expect(bucketOf(shade.worst!)).toBe('#FF704D');
    expect(unloadedSlices(next, 'g')).toEqual([splitId('g', 8, 10)]);
    // A child without an index does not count; the slice has one valued child left.
    const last = pageLoaded(next, splitId('g', 8, 10), { offset: 8, children: all.slice(8), total: 10 }, 4);
    expect(splitShade(last, splitId('g', 8, 10), bucketOf)).toEqual({ worst: 0.1, worstCount: 1, unknown: 0 });
  });

  it('sums nested pseudo-groups', () => {
    // 20 children by 4 → 2 levels: the outer ranges hold inner ones.
    const many = Array.from({ length: 20 }, (_, i) => leaf(i, i === 17 ? 1 : 0));
    let tree = pageLoaded(treeForRoot('g'), 'g', { offset: 0, children: many.slice(0, 4), total: 20 }, 4);
    for (const slice of unloadedSlices(tree, 'g')) {
      const [lo, hi] = slice.split(':').slice(1, 3).map(Number);
      tree = pageLoaded(tree, slice, { offset: lo, children: many.slice(lo, hi), total: 20 }, 4);
    }
    const outer = splitShade(tree, splitId('g', 16, 20), bucketOf);
    expect(outer).toEqual({ worst: 1, worstCount: 1, unknown: 0 });
  });
});

describe('minimap geometry', () => {
  it('fits a tall graph into a narrow map, top aligned, at least minWidth wide', () => {
    const frame = overviewFrame({ x: 10, y: 20, width: 400, height: 8000 }, { width: 160, height: 200 });
    expect(frame.k).toBeCloseTo(200 / 8000, 12);
    expect(frame.height).toBe(200);
    expect(frame.width).toBe(40);
    expect(frame.y + 20 * frame.k).toBeCloseTo(0, 12);
    expect(frame.x + (10 + 200) * frame.k).toBeCloseTo(20, 12);
  });
  it('centreOn puts a graph point in the middle of the pane at the same scale', () => {
    const view = centreOn({ x: 0, y: 0, k: 2 }, { x: 100, y: 300 }, { width: 800, height: 600 });
    expect(view).toEqual({ k: 2, x: 400 - 200, y: 300 - 600 });
  });
});
