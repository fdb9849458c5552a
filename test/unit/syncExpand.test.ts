import { describe, expect, it } from 'vitest';
import type { NodeSummary } from '../../src/core/api/types.js';
import { childrenLoaded, fetchStarted, toggle } from '../../src/app/commands/expansion.js';
import { applyCounterpart, counterpartAction, isOpenOrOpening } from '../../src/app/commands/syncExpand.js';
import { childrenToFetch, treeForRoot, type TreeState } from '../../src/app/commands/treeState.js';

/** NPU: rootN ─ A ─ A1 ; Bench: rootB ─ a ─ a1 (A ↔ a, A1 ↔ a1; U unmatched). */
function summary(id: string, childCount: number, link: string[] = []): NodeSummary {
  return { id, nodeType: childCount ? 0 : 1, precisionIndex: null, overflowLevel: null, matchedNodeLink: link, childCount, microStepId: null };
}
const npuData: Record<string, NodeSummary[]> = {
  rootN: [summary('A', 1, ['rootB', 'a']), summary('U', 1)],
  A: [summary('A1', 1, ['rootB', 'a', 'a1'])],
  A1: [],
  U: [],
};
const benchData: Record<string, NodeSummary[]> = {
  rootB: [summary('a', 1, ['rootN', 'A'])],
  a: [summary('a1', 1, ['rootN', 'A', 'A1'])],
  a1: [summary('leaf', 0)],
};
const meta = { graphType: 'compare' as const, roots: { npu: 'rootN', bench: 'rootB' } };

function settle(tree: TreeState, data: Record<string, NodeSummary[]>): TreeState {
  let t = tree;
  for (let ids = childrenToFetch(t); ids.length > 0; ids = childrenToFetch(t)) {
    t = fetchStarted(t, ids);
    for (const id of ids) t = childrenLoaded(t, id, data[id] ?? []);
  }
  return t;
}

describe('sync-expand commands', () => {
  const npu = settle(treeForRoot('rootN'), npuData);
  const bench = settle(treeForRoot('rootB'), benchData);

  it('names the counterpart (last element of matched_node_link) and its ancestors on the other side', () => {
    const opened = toggle(npu, 'A');
    expect(isOpenOrOpening(opened, 'A')).toBe(true);
    expect(counterpartAction(opened, 'npu', 'A', true, meta)).toEqual({ side: 'bench', open: true, id: 'a', path: ['rootB'] });
    expect(counterpartAction(settle(opened, npuData), 'npu', 'A1', false, meta)).toEqual({ side: 'bench', open: false, id: 'a1', path: ['rootB', 'a'] });
    // Old viewers' N___/B___ prefixes are stripped, as for the selection's counterpart.
    const prefixed = { ...npu, nodes: new Map(npu.nodes).set('A', summary('A', 1, ['B___rootB', 'B___a'])) };
    expect(counterpartAction(prefixed, 'npu', 'A', true, meta)?.id).toBe('a');
    // The root's counterpart is the other root.
    expect(counterpartAction(npu, 'npu', 'rootN', true, meta)).toEqual({ side: 'bench', open: true, id: 'rootB', path: [] });
  });

  it('has nothing to do for unmatched nodes, pseudo-groups and single graphs', () => {
    expect(counterpartAction(npu, 'npu', 'U', true, meta)).toBeNull();
    expect(counterpartAction(npu, 'npu', 'A', true, { ...meta, graphType: 'build' } as never)).toBeNull();
    expect(counterpartAction(npu, 'npu', 'A', true, null)).toBeNull();
    expect(counterpartAction(npu, 'npu', 'rootN#split:0-400', true, meta)).toBeNull();
  });

  it('opens the counterpart and its ancestors on the other tree, then closes it with everything below', () => {
    expect(bench.expanded.has('a')).toBe(false);
    const deep = counterpartAction(settle(toggle(npu, 'A'), npuData), 'npu', 'A1', true, meta)!;
    let t = settle(applyCounterpart(bench, deep), benchData);
    expect([...t.expanded].sort()).toEqual(['a', 'a1', 'rootB']);
    t = settle(applyCounterpart(t, counterpartAction(npu, 'npu', 'A', false, meta)!), benchData);
    expect([...t.expanded]).toEqual(['rootB']);
    // Closing a counterpart that is not open changes nothing.
    expect(applyCounterpart(t, { open: false, id: 'a1', path: ['rootB', 'a'] })).toBe(t);
  });
});
