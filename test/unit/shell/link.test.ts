import { describe, expect, it } from 'vitest';
import { counterpartFromLink } from '../../../src/app/state/actions.js';
import { loadVis } from './visNode.js';

type Nodes = Record<string, { matched_node_link: string[] }>;

describe('counterpart from matched_node_link', () => {
  it('takes the last element as the counterpart and the rest as its ancestors (real compare file)', () => {
    const nodes = (loadVis('compare/lm_pt_vs_pt.vis').NPU as { node: Nodes }).node;
    expect(counterpartFromLink(nodes['Tensor.__add__.0.forward'].matched_node_link)).toEqual({
      id: 'Tensor.__add__.0.forward',
      path: ['DefaultModel', 'Apis_Between_Modules.0'],
    });
  });

  it('strips the N___/B___ prefixes of old viewer files and reports unmatched nodes', () => {
    const nodes = (loadVis('compare/mock_compare.vis').NPU as { node: Nodes }).node;
    expect(counterpartFromLink(nodes['AddThree_0'].matched_node_link)).toEqual({ id: 'AddThree_0', path: [] });
    expect(counterpartFromLink(nodes['AddOne_0'].matched_node_link)).toEqual({ id: null, path: [] });
    expect(counterpartFromLink(['N___A', 'B___B', 'B___C'])).toEqual({ id: 'C', path: ['A', 'B'] });
  });
});
