import { describe, expect, it } from 'vitest';
import type { NodeSummary } from '../../src/core/api/types.js';
import { childrenLoaded, collapse, expand, fetchFailed, fetchStarted, reveal, toggle } from '../../src/app/commands/expansion.js';
import { ancestorsOf, childrenToFetch, treeForRoot, type TreeState } from '../../src/app/commands/treeState.js';

/**
 * root ─ A ─ A1 ─ a
 *      │    └ A2 (leaf)
 *      └ B (leaf)
 */
const data: Record<string, NodeSummary[]> = {
  root: [summary('A', 2), summary('B', 0)],
  A: [summary('A1', 1), summary('A2', 0)],
  A1: [summary('a', 0)],
};

function summary(id: string, childCount: number): NodeSummary {
  return { id, nodeType: childCount ? 0 : 1, precisionIndex: null, overflowLevel: null, matchedNodeLink: [], childCount, microStepId: null };
}

/** Answers every outstanding fetch, like the pane's loader does, in the given order. */
function load(tree: TreeState, order?: string[]): TreeState {
  let t = tree;
  const ids = order ?? childrenToFetch(t);
  t = fetchStarted(t, ids);
  for (const id of ids) t = childrenLoaded(t, id, data[id]);
  return t;
}

describe('expansion commands', () => {
  it('opens the root once its children arrive and marks it for layout', () => {
    let t = treeForRoot('root');
    expect(childrenToFetch(t)).toEqual(['root']);
    expect(t.expanded.has('root')).toBe(false);
    t = fetchStarted(t, ['root']);
    expect(childrenToFetch(t)).toEqual([]);
    expect(t.loading.has('root')).toBe(true);
    t = childrenLoaded(t, 'root', data.root);
    expect([...t.expanded]).toEqual(['root']);
    expect([...t.dirty]).toEqual(['root']);
    expect(t.loading.size).toBe(0);
    expect(t.children.get('root')).toEqual(['A', 'B']);
    expect(t.parentOf.get('A')).toBe('root');
  });

  it('expand of an unloaded group waits for its children; a loaded one opens at once', () => {
    let t = load(treeForRoot('root'));
    t = { ...t, dirty: new Set() };
    t = expand(t, 'A');
    expect(t.pending.has('A')).toBe(true);
    expect(t.expanded.has('A')).toBe(false);
    expect(childrenToFetch(t)).toEqual(['A']);
    t = load(t);
    expect(t.expanded.has('A')).toBe(true);
    expect([...t.dirty]).toEqual(['A']);
    // Close and reopen: the children are cached, no fetch.
    t = collapse(t, 'A');
    t = expand(t, 'A');
    expect(t.expanded.has('A')).toBe(true);
    expect(childrenToFetch(t)).toEqual([]);
  });

  it('ignores leaves and never collapses the root', () => {
    const t = load(treeForRoot('root'));
    expect(expand(t, 'B')).toBe(t);
    expect(collapse(t, 'root')).toBe(t);
    expect(toggle(t, 'root')).toBe(t);
  });

  it('collapse closes the subtree and dirties only the parent', () => {
    let t = load(treeForRoot('root'));
    t = load(expand(t, 'A'));
    t = load(expand(t, 'A1'));
    expect([...t.expanded].sort()).toEqual(['A', 'A1', 'root']);
    t = { ...t, dirty: new Set() };
    t = collapse(t, 'A');
    expect([...t.expanded]).toEqual(['root']);
    expect([...t.dirty]).toEqual(['root']);
    // Reopening A does not reopen A1.
    t = expand(t, 'A');
    expect(t.expanded.has('A1')).toBe(false);
  });

  it('toggle opens then closes', () => {
    let t = load(treeForRoot('root'));
    t = load(toggle(t, 'A'));
    expect(t.expanded.has('A')).toBe(true);
    t = toggle(t, 'A');
    expect(t.expanded.has('A')).toBe(false);
  });

  it('collapse of a group still loading cancels the wish', () => {
    let t = load(treeForRoot('root'));
    t = expand(t, 'A');
    t = fetchStarted(t, ['A']);
    t = collapse(t, 'A');
    t = childrenLoaded(t, 'A', data.A);
    expect(t.expanded.has('A')).toBe(false);
    expect(t.children.get('A')).toEqual(['A1', 'A2']);
  });

  it('reveal fetches a whole unloaded path at once and opens it whatever order the answers come in', () => {
    let t = treeForRoot('root');
    t = reveal(t, ['root', 'A', 'A1']);
    expect(childrenToFetch(t).sort()).toEqual(['A', 'A1', 'root']);
    // Deepest answer first: nothing opens until its parent is open.
    t = fetchStarted(t, ['root', 'A', 'A1']);
    t = childrenLoaded(t, 'A1', data.A1);
    expect(t.expanded.size).toBe(0);
    t = childrenLoaded(t, 'A', data.A);
    expect(t.expanded.size).toBe(0);
    t = childrenLoaded(t, 'root', data.root);
    expect([...t.expanded].sort()).toEqual(['A', 'A1', 'root']);
    expect(ancestorsOf(t, 'a')).toEqual(['root', 'A', 'A1']);
  });

  it('a failed fetch drops the wish and is retried by the next expand', () => {
    let t = load(treeForRoot('root'));
    t = fetchStarted(expand(t, 'A'), ['A']);
    t = fetchFailed(t, 'A', 'HTTP 500');
    expect(t.failed.get('A')).toBe('HTTP 500');
    expect(t.pending.has('A')).toBe(false);
    expect(childrenToFetch(t)).toEqual([]);
    t = expand(t, 'A');
    expect(t.failed.has('A')).toBe(false);
    expect(childrenToFetch(t)).toEqual(['A']);
  });

  it('returns the same object when nothing changes (cheap selector checks)', () => {
    const t = load(treeForRoot('root'));
    expect(expand(t, 'root')).toBe(t);
    expect(collapse(t, 'A')).toBe(t);
    expect(reveal(t, [])).toBe(t);
    expect(fetchStarted(t, [])).toBe(t);
  });
});
