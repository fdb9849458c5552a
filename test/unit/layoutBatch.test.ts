import { describe, expect, it } from 'vitest';
import type { NodeSummary } from '../../src/core/api/types.js';
import { childrenLoaded, collapse, expand } from '../../src/app/commands/expansion.js';
import { treeForRoot, type TreeState } from '../../src/app/commands/treeState.js';
import { buildLayoutBatch } from '../../src/app/pane/layoutBatch.js';
import { layoutGroups } from '../../src/core/layout/groupLayout.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';
import { DEFAULT_LAYOUT_PARAMS as P, type GroupLayout } from '../../src/core/layout/types.js';
import { sceneProblems } from './layoutInvariants.js';

const kids: Record<string, NodeSummary[]> = {
  root: [mod('Module.m1.M1.forward.0', 2), mod('Module.m2.M2.forward.0', 1), leaf('Torch.add.0.forward')],
  'Module.m1.M1.forward.0': [leaf('Tensor.mul.0.forward'), mod('Module.m1.sub.Sub.forward.0', 1)],
  'Module.m1.sub.Sub.forward.0': [leaf('Tensor.mul.1.forward')],
  'Module.m2.M2.forward.0': [leaf('Tensor.mul.2.forward')],
};
function mod(id: string, childCount: number): NodeSummary {
  return { id, nodeType: 0, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount, microStepId: null };
}
function leaf(id: string): NodeSummary {
  return { ...mod(id, 0), nodeType: 1 };
}
function open(tree: TreeState, id: string): TreeState {
  return childrenLoaded(expand(tree, id), id, kids[id]);
}

/** Lays out what the batch asks, merges it into the cache, clears dirt: one scheduler round. */
function round(tree: TreeState, cache: Map<string, GroupLayout>) {
  const batch = buildLayoutBatch(tree, cache, approximateTextMeasurer, P);
  for (const layout of layoutGroups(batch, P)) cache.set(layout.id, layout);
  for (const id of cache.keys()) if (!tree.expanded.has(id)) cache.delete(id);
  return { batch: batch.map((g) => g.id), tree: { ...tree, dirty: new Set<string>() } };
}

describe('buildLayoutBatch', () => {
  const M1 = 'Module.m1.M1.forward.0';
  const M2 = 'Module.m2.M2.forward.0';
  const SUB = 'Module.m1.sub.Sub.forward.0';

  it('lays out the root first, then only the expanded group and its ancestors, deepest first', () => {
    const cache = new Map<string, GroupLayout>();
    let tree = childrenLoaded(treeForRoot('root'), 'root', kids.root);
    let r = round(tree, cache);
    expect(r.batch).toEqual(['root']);
    tree = open(r.tree, M2);
    r = round(tree, cache);
    expect(r.batch).toEqual([M2, 'root']);
    const m2Before = cache.get(M2);
    tree = open(open(r.tree, M1), SUB);
    r = round(tree, cache);
    expect(r.batch).toEqual([SUB, M1, 'root']);
    // The sibling group kept its cached layout object: it was not laid out again.
    expect(cache.get(M2)).toBe(m2Before);
    expect(sceneProblems(cache, 'root')).toEqual([]);
  });

  it('sizes closed children from their labels and open ones from the cache', () => {
    const cache = new Map<string, GroupLayout>();
    let tree = childrenLoaded(treeForRoot('root'), 'root', kids.root);
    tree = round(tree, cache).tree;
    tree = round(open(tree, M1), cache).tree;
    tree = expand(tree, M2);
    tree = childrenLoaded(tree, M2, kids[M2]);
    const batch = buildLayoutBatch(tree, cache, approximateTextMeasurer, P);
    expect(batch.map((g) => g.id)).toEqual([M2, 'root']);
    const rootInput = batch[1];
    const m1 = rootInput.children[0];
    expect(m1).toMatchObject({ expanded: true, width: cache.get(M1)!.width, height: cache.get(M1)!.height });
    // First-level label is the full id: 22 chars × 4.8 + 10.
    const closedSub = buildLayoutBatch({ ...tree, dirty: new Set([M1]) }, cache, approximateTextMeasurer, P)[0].children[1];
    expect(closedSub).toMatchObject({ id: SUB, shape: 'module', expanded: false, height: P.moduleHeight });
    // Depth 2 module: last 4 segments "sub.Sub.forward.0" = 17 chars → 17 × 4.8 + 10 = 91.6 → 92.
    expect(closedSub.width).toBe(92);
    expect(rootInput.children[2]).toMatchObject({ shape: 'leaf', width: P.leafWidth, height: P.leafHeight });
    expect(rootInput.titleWidth).toBe(Math.ceil(4 * 8 * 0.6 + 10));
  });

  it('after a collapse re-lays out the parent and drops the closed subtree', () => {
    const cache = new Map<string, GroupLayout>();
    let tree = childrenLoaded(treeForRoot('root'), 'root', kids.root);
    tree = round(tree, cache).tree;
    tree = round(open(open(tree, M1), SUB), cache).tree;
    const openHeight = cache.get('root')!.height;
    tree = collapse(tree, M1);
    const r = round(tree, cache);
    expect(r.batch).toEqual(['root']);
    expect(cache.has(M1)).toBe(false);
    expect(cache.has(SUB)).toBe(false);
    expect(cache.get('root')!.height).toBeLessThan(openHeight);
    expect(sceneProblems(cache, 'root')).toEqual([]);
  });

  it('skips dirty groups under a closed ancestor', () => {
    let tree = childrenLoaded(treeForRoot('root'), 'root', kids.root);
    tree = childrenLoaded(tree, M1, kids[M1]);
    tree = childrenLoaded(tree, SUB, kids[SUB]);
    // SUB marked open while its parent M1 is closed: it is not drawn, so it is not laid out either.
    const hidden: TreeState = { ...tree, expanded: new Set(['root', SUB]), dirty: new Set([SUB]) };
    expect(buildLayoutBatch(hidden, new Map(), approximateTextMeasurer, P)).toEqual([]);
    expect(buildLayoutBatch({ ...hidden, dirty: new Set(['nowhere']) }, new Map(), approximateTextMeasurer, P)).toEqual([]);
    expect(buildLayoutBatch({ ...hidden, expanded: new Set(['root', M1, SUB]) }, new Map(), approximateTextMeasurer, P).map((g) => g.id)).toEqual([
      SUB,
      M1,
      'root',
    ]);
  });
});
