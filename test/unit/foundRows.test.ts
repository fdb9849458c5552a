import { describe, expect, it } from 'vitest';
import type { FoundNode } from '../../src/core/api/types.js';
import { hiddenModules, middleSplit, sortFound } from '../../src/app/controls/foundRows.js';

const found = (id: string, precisionIndex: number | null): FoundNode => ({
  id,
  nodeType: 1,
  precisionIndex,
  overflowLevel: null,
  matchedNodeLink: [],
  childCount: 0,
  microStepId: null,
  path: [],
});

describe('foundRows', () => {
  const list = [found('a', 0.5), found('b', null), found('c', 0.9), found('d', 0.5), found('e', 1)];

  it('exec order is the server order; severity is worst first, ties in execution order, no value last', () => {
    expect(sortFound(list, 'exec').map((f) => f.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(sortFound(list, 'severity').map((f) => f.id)).toEqual(['e', 'c', 'a', 'd', 'b']);
    expect(sortFound(list, 'severity', true).map((f) => f.id)).toEqual(['a', 'd', 'c', 'e', 'b']);
    expect(list.map((f) => f.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('middleSplit keeps the distinctive end of long names and loses nothing', () => {
    const id = 'Cell.network_with_loss.module.language_model.encoder.layers.11.mlp.Linear.forward.0';
    const { head, tail } = middleSplit(id);
    expect(head + tail).toBe(id);
    expect(tail).toBe(id.slice(-20));
    expect(middleSplit('Torch.add.0.forward')).toEqual({ head: 'Torch.add.0.forward', tail: '' });
  });

  it('hiddenModules counts what "Leaf nodes only" hides', () => {
    expect(hiddenModules(true, 0, 10)).toBe(10);
    expect(hiddenModules(true, 3, 10)).toBe(7);
    expect(hiddenModules(true, 3, 3)).toBeNull();
    expect(hiddenModules(false, 0, 10)).toBeNull();
    expect(hiddenModules(true, 0, null)).toBeNull();
  });
});
