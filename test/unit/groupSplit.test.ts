import { describe, expect, it } from 'vitest';
import {
  isSplitId,
  itemSpan,
  parseSplitId,
  planSplit,
  rangeChain,
  SPLIT_THRESHOLD,
  splitId,
  splitLabel,
  subRanges,
} from '../../src/core/layout/groupSplit.js';
import { nodeLabel } from '../../src/core/layout/nodeLabel.js';

/** Every level of a plan holds at most `threshold` items and the leaf ranges tile [0, total) in order. */
function checkPlan(parentId: string, total: number, threshold: number) {
  const plan = planSplit(parentId, total, threshold);
  const byId = new Map(plan.groups.map((g) => [g.id, g]));
  expect(plan.top.length).toBeLessThanOrEqual(threshold);
  const leaves: Array<[number, number]> = [];
  const walk = (ids: string[], lo: number, hi: number) => {
    let cursor = lo;
    for (const id of ids) {
      const g = byId.get(id)!;
      expect(g.lo).toBe(cursor);
      cursor = g.hi;
      if (g.groups) {
        expect(g.groups.length).toBeLessThanOrEqual(threshold);
        walk(g.groups, g.lo, g.hi);
      } else {
        expect(g.hi - g.lo).toBeLessThanOrEqual(threshold);
        leaves.push([g.lo, g.hi]);
      }
    }
    expect(cursor).toBe(hi);
  };
  walk(plan.top, 0, total);
  return { plan, leaves };
}

describe('group splitting', () => {
  it('leaves a group of up to 400 children alone', () => {
    expect(SPLIT_THRESHOLD).toBe(400);
    expect(subRanges(0, 400)).toEqual([]);
    expect(planSplit('M', 400).top).toEqual([]);
    expect(rangeChain(400, 399)).toEqual([]);
  });

  it('splits 2,000 children into 5 consecutive sub-groups labelled by index range', () => {
    const { plan, leaves } = checkPlan('M', 2000, 400);
    expect(leaves).toEqual([
      [0, 400],
      [400, 800],
      [800, 1200],
      [1200, 1600],
      [1600, 2000],
    ]);
    expect(plan.top.map((id) => nodeLabel(id, 0, 3))).toEqual(['[0–399]', '[400–799]', '[800–1199]', '[1200–1599]', '[1600–1999]']);
    expect(plan.groups.every((g) => g.parent === 'M' && g.groups === null)).toBe(true);
  });

  it('keeps a short last group', () => {
    const { leaves } = checkPlan('M', 1001, 400);
    expect(leaves).toEqual([
      [0, 400],
      [400, 800],
      [800, 1001],
    ]);
    expect(splitLabel(800, 1001)).toBe('[800–1000]');
  });

  it('100,000 children: 250 groups of 400, one level', () => {
    const { plan, leaves } = checkPlan('M', 100_000, 400);
    expect(plan.top).toHaveLength(250);
    expect(leaves).toHaveLength(250);
  });

  it('nests when the sub-groups would be too many: 1,000,000 children → 7 groups of up to 400 groups of 400', () => {
    expect(itemSpan(1_000_000, 400)).toBe(160_000);
    const { plan, leaves } = checkPlan('M', 1_000_000, 400);
    expect(plan.top).toHaveLength(7);
    expect(leaves).toHaveLength(2500);
    expect(plan.top.map((id) => nodeLabel(id, 0, 1))[6]).toBe('[960000–999999]');
    // The last top group holds the 40,000 remaining children as 100 slices.
    const last = plan.groups.find((g) => g.id === plan.top[6])!;
    expect(last.groups).toHaveLength(100);
  });

  it('a small threshold nests several levels, still tiling the children', () => {
    const { leaves } = checkPlan('M', 1000, 3);
    expect(leaves.flatMap(([lo, hi]) => Array.from({ length: hi - lo }, (_, i) => lo + i))).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
  });

  it('rangeChain finds the ranges holding a child, top to bottom', () => {
    expect(rangeChain(2000, 1234, 400)).toEqual([[1200, 1600]]);
    expect(rangeChain(1_000_000, 500_000, 400)).toEqual([
      [480_000, 640_000],
      [500_000, 500_400],
    ]);
    // Consistent with the plan: every chain ends in a leaf range of the plan.
    const { leaves } = checkPlan('M', 50_000, 20);
    for (const index of [0, 19, 20, 399, 400, 12_345, 49_999]) {
      const chain = rangeChain(50_000, index, 20);
      const [lo, hi] = chain[chain.length - 1];
      expect(leaves).toContainEqual([lo, hi]);
      expect(index >= lo && index < hi).toBe(true);
    }
  });

  it('pseudo ids round-trip and cannot be mistaken for node ids', () => {
    const parent = 'Module.layers.0:1:2.forward.0';
    const id = splitId(parent, 400, 800);
    expect(isSplitId(id)).toBe(true);
    expect(parseSplitId(id)).toEqual({ parentId: parent, lo: 400, hi: 800 });
    for (const real of [parent, 'split:0:400:M', '400:800:M', '[400–799]']) {
      expect(isSplitId(real)).toBe(false);
      expect(parseSplitId(real)).toBeNull();
    }
    expect(() => itemSpan(10, 1)).toThrow(/threshold 1/);
  });
});
