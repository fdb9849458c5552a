import { describe, expect, it } from 'vitest';
import { childGroupKey, partnerName, planMatch, planUnmatch, type MatchGraph, type MatchNode } from '../../src/core/match/index.js';

/** The name rules of reference-viewer.md §4.4: forward↔backward partners and the keys children are paired by. */

describe('partnerName', () => {
  it('swaps the direction of APIs (last segment) and modules (before the call count)', () => {
    expect(partnerName('Functional.linear.0.forward')).toBe('Functional.linear.0.backward');
    expect(partnerName('Functional.linear.0.backward')).toBe('Functional.linear.0.forward');
    expect(partnerName('Module.layer.Linear.forward.0')).toBe('Module.layer.Linear.backward.0');
    expect(partnerName('Cell.network.layers.0.Block.backward.12')).toBe('Cell.network.layers.0.Block.forward.12');
    expect(partnerName('Primitive.norm.RmsNorm.0.forward')).toBe('Primitive.norm.RmsNorm.0.backward');
  });

  it('leaves "forward" inside a name alone (the original rewrote every occurrence)', () => {
    expect(partnerName('Module.feed_forward.FeedForward.forward.0')).toBe('Module.feed_forward.FeedForward.backward.0');
    expect(partnerName('Module.forward_net.Linear.backward.0')).toBe('Module.forward_net.Linear.forward.0');
    expect(partnerName('Functional.forward_fn.3.forward')).toBe('Functional.forward_fn.3.backward');
    expect(partnerName('Module.backward.Linear.forward.0')).toBe('Module.backward.Linear.backward.0');
  });

  it('gives no partner where the id names no direction', () => {
    for (const id of ['DefaultModel', 'Apis_Between_Modules.0', 'Module.fc.Linear.parameters_grad', 'Module.fc.Linear.parameters_grad.0', 'Tensor1', 'forwarder.x', 'Module.x.forward.a', 'forward']) {
      expect(partnerName(id), id).toBeNull();
    }
  });
});

describe('childGroupKey', () => {
  it('groups modules by their attribute name, or the container of a numbered one', () => {
    expect(childGroupKey('Module.layer1.0.relu.ReLU.forward.0', 0)).toBe('relu.0');
    expect(childGroupKey('Module.layer1.0.relu.ReLU.forward.1', 0)).toBe('relu.0');
    expect(childGroupKey('Module.layer1.0.BasicBlock.forward.0', 0)).toBe('layer1.0');
    expect(childGroupKey('Module.module.module.language_model.encoder.layers.3.ParallelTransformerLayer.forward.0', 0)).toBe('layers.0');
    expect(childGroupKey('Module.0.Linear.forward.0', 0)).toBe('.0'); // numbered, but nothing further out
    expect(childGroupKey('Module.fc.Linear.parameters_grad', 0)).toBe('Module.0');
    expect(childGroupKey('DefaultModel', 0)).toBe('.0');
  });

  it('groups APIs and collections by API name', () => {
    expect(childGroupKey('Functional.linear.0.forward', 1)).toBe('linear.1');
    expect(childGroupKey('Tensor.__add__.12.backward', 1)).toBe('__add__.1');
    expect(childGroupKey('Primitive.norm.RmsNorm.0.forward', 1)).toBe('RmsNorm.1');
    expect(childGroupKey('Apis_Between_Modules.0', 9)).toBe('Apis_Between_Modules.9');
    expect(childGroupKey('Tensor1', 1)).toBe('.1');
    expect(childGroupKey('0.1', 1)).toBe('.1');
  });

  it('keeps node types apart', () => {
    expect(childGroupKey('Module.a.linear.Linear.forward.0', 0)).not.toBe(childGroupKey('Functional.linear.0.forward', 1));
  });
});

/** A hand-made graph where ids differ between the sides, to see children paired by key and order. */
function graph(npu: Record<string, Partial<MatchNode>>, bench: Record<string, Partial<MatchNode>>): MatchGraph {
  const item = (max: string) => ({ Max: max, Min: '1', Mean: '1', Norm: '1' });
  const build = (nodes: Record<string, Partial<MatchNode>>, max: string) =>
    new Map(
      Object.entries(nodes).map(([id, n]) => [
        id,
        {
          id,
          nodeType: 1,
          upnode: null,
          subnodes: [],
          inputData: { [`${id}.input.0`]: item(max) },
          outputData: { [`${id}.output.0`]: item(max) },
          matchedNodeLink: [],
          precisionIndex: null,
          ...n,
        } as MatchNode,
      ]),
    );
  const sides = { npu: build(npu, '2'), bench: build(bench, '4') };
  return { node: (side, id) => sides[side].get(id) };
}

describe('children pairing', () => {
  const g = graph(
    {
      Root: { nodeType: 0, subnodes: ['Module.m.a.A.forward.0', 'Functional.relu.0.forward', 'Functional.relu.1.forward', 'Functional.gelu.0.forward', 'Functional.relu.2.forward'], matchedNodeLink: ['Root'] },
      'Module.m.a.A.forward.0': { nodeType: 0, upnode: 'Root', subnodes: ['Functional.mul.0.forward'] },
      'Functional.mul.0.forward': { upnode: 'Module.m.a.A.forward.0' },
      'Functional.relu.0.forward': { upnode: 'Root' },
      'Functional.relu.1.forward': { upnode: 'Root' },
      'Functional.relu.2.forward': { upnode: 'Root', matchedNodeLink: ['Root', 'Functional.relu.9.forward'] },
      'Functional.gelu.0.forward': { upnode: 'Root' },
    },
    {
      Root: { nodeType: 0, subnodes: ['Functional.relu.5.forward', 'Module.m.a.A.forward.3', 'Functional.gelu.7.forward', 'Functional.relu.6.forward', 'Functional.relu.8.forward', 'Functional.relu.9.forward'], matchedNodeLink: ['Root'] },
      'Module.m.a.A.forward.3': { nodeType: 0, upnode: 'Root', subnodes: ['Functional.mul.4.forward'] },
      'Functional.mul.4.forward': { upnode: 'Module.m.a.A.forward.3' },
      'Functional.relu.5.forward': { upnode: 'Root' },
      'Functional.relu.6.forward': { upnode: 'Root' },
      'Functional.relu.8.forward': { upnode: 'Root' },
      'Functional.relu.9.forward': { upnode: 'Root', matchedNodeLink: ['Root', 'Functional.relu.2.forward'] },
      'Functional.gelu.7.forward': { upnode: 'Root' },
      'Functional.relu.5.backward': { upnode: 'Root' },
    },
  );

  it('zips same-key groups in order, skips matched children, recurses into modules', () => {
    // the roots are matched already: pair their children through a fresh parent pair on a copy without links
    const fresh: MatchGraph = {
      node: (side, id) => {
        const n = g.node(side, id);
        return n && id === 'Root' ? { ...n, matchedNodeLink: [] } : n;
      },
    };
    const plan = planMatch(fresh, 'summary', 'Root', 'Root', { withChildren: true });
    expect(plan.ops.map((o) => `${o.depth} ${o.npu}→${o.bench} ${o.ok ? 'ok' : o.reason}`)).toEqual([
      '0 Root→Root ok',
      '1 Module.m.a.A.forward.0→Module.m.a.A.forward.3 ok',
      '2 Functional.mul.0.forward→Functional.mul.4.forward ok',
      '1 Functional.relu.0.forward→Functional.relu.5.forward ok',
      '1 Functional.relu.1.forward→Functional.relu.6.forward ok',
      '1 Functional.gelu.0.forward→Functional.gelu.7.forward ok',
    ]);
    // relu.8 stays unmatched: NPU has no third unmatched relu; the backward twin of relu.5 has none on NPU
    expect(plan.ops.find((o) => o.bench === 'Functional.relu.8.forward')).toBeUndefined();
    const relu = plan.ops[3];
    if (!relu.ok) throw new Error('expected ok');
    expect(relu.npuChange.matchedNodeLink).toEqual(['Root', 'Functional.relu.5.forward']);
    expect(relu.benchChange.matchedNodeLink).toEqual(['Root', 'Functional.relu.0.forward']);
    expect(relu.npuChange.precisionIndex).toBe(0.5);
  });

  it('refuses a node already matched, a missing one and a node_type mismatch before touching the partner', () => {
    expect(planMatch(g, 'summary', 'Functional.relu.2.forward', 'Functional.relu.8.forward').ops.map((o) => !o.ok && o.reason)).toEqual(['alreadyMatched']);
    expect(planMatch(g, 'summary', 'Functional.relu.0.forward', 'Nope').ops.map((o) => !o.ok && o.reason)).toEqual(['notFound']);
    expect(planMatch(g, 'summary', 'Module.m.a.A.forward.0', 'Functional.relu.5.forward').ops.map((o) => !o.ok && o.reason)).toEqual(['typeMismatch']);
  });

  it('unmatches only a pair matched to each other', () => {
    expect(planUnmatch(g, 'summary', 'Functional.relu.2.forward', 'Functional.relu.9.forward').done).toBe(1);
    expect(planUnmatch(g, 'summary', 'Functional.relu.2.forward', 'Functional.relu.8.forward').ops.map((o) => !o.ok && o.reason)).toEqual(['notMatched']);
    expect(planUnmatch(g, 'summary', 'Root', 'Root').ops.map((o) => o.ok)).toEqual([true]);
    // md5 keeps the items: only the link and the index go
    const md5 = planUnmatch(g, 'md5', 'Functional.relu.2.forward', 'Functional.relu.9.forward').ops[0];
    expect(md5).toMatchObject({ ok: true, npuChange: { matchedNodeLink: [], precisionIndex: null } });
    expect(md5.ok && 'inputData' in md5.npuChange).toBe(false);
  });
});
