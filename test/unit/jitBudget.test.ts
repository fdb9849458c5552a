import { describe, expect, it } from 'vitest';
import { budgetGiven } from '../../server/jitBudget.js';

describe('the batch commands’ inlining budget', () => {
  it('keeps a budget the user gave node, in either spelling and either place', () => {
    expect(budgetGiven([], '')).toBe(false);
    expect(budgetGiven(['--max-old-space-size=4096'], '--enable-source-maps')).toBe(false);
    expect(budgetGiven(['--max-inlined-bytecode-size-cumulative=500'])).toBe(true);
    expect(budgetGiven([], '--trace-gc --max_inlined_bytecode_size_cumulative=10')).toBe(true);
    // the per-function budget is another flag
    expect(budgetGiven(['--max-inlined-bytecode-size=100'])).toBe(false);
  });
});
