import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GraphMeta } from '../../../src/core/api/types.js';
import { BadAnswerError, checkChildren, checkFind, checkMeta, checkNode, checkRuns } from '../../../src/app/api/answers.js';
import { client } from '../../../src/app/api/client.js';
import { translate } from '../../../src/app/i18n/i18n.js';

/** Issue 12 item 10: answers outside the API types must not leave the viewer on an empty canvas without a word. */

const goodMeta: GraphMeta = {
  run: '.',
  tag: 'cmp',
  format: 'vis',
  graphType: 'compare',
  task: 'summary',
  microSteps: 1,
  overflowCheck: false,
  colors: [{ color: '#FFFCF3', value: [0, 0.2], description: 'relative error' }],
  toolTips: { MaxRelativeErr: 'max relative error' },
  steps: [0],
  ranks: [0],
  roots: { npu: 'DefaultModel', bench: 'DefaultModel' },
  nodeCounts: { npu: 3, bench: 3 },
};

const child = (id: unknown, extra: Record<string, unknown> = {}) => ({
  id,
  nodeType: 1,
  precisionIndex: 0.1,
  overflowLevel: null,
  matchedNodeLink: ['DefaultModel', id],
  childCount: 0,
  microStepId: 0,
  ...extra,
});

describe('checkMeta', () => {
  it('passes a well-formed meta through unchanged', () => {
    expect(checkMeta(goodMeta, 'cmp')).toEqual(goodMeta);
  });

  it('drops non-integer steps and ranks (the viewer then lets the server pick its default)', () => {
    const meta = checkMeta({ ...goodMeta, steps: [0.5, 1, '2', null, -1, 3], ranks: 'all' }, 'cmp');
    expect(meta.steps).toEqual([1, 3]);
    expect(meta.ranks).toEqual([]);
    expect(checkMeta({ ...goodMeta, steps: 1.5 }, 'cmp').steps).toEqual([]);
  });

  it('roots: {npu: null} is unusable: BadAnswerError naming the file and the missing root', () => {
    const bad = () => checkMeta({ ...goodMeta, roots: { npu: null, bench: 'DefaultModel' } }, 'runs/a/cmp');
    expect(bad).toThrow(BadAnswerError);
    expect(bad).toThrow('runs/a/cmp: no root node id for the NPU side');
    expect(() => checkMeta({ ...goodMeta, graphType: 'build', roots: { npu: null } }, 'b')).toThrow('b: no root node id for the NPU side');
    expect(() => checkMeta({ ...goodMeta, roots: null }, 'c')).toThrow(BadAnswerError);
    // Only the NPU root is required; a bad Bench root is dropped.
    expect(checkMeta({ ...goodMeta, roots: { npu: 'R', bench: 7 } }, 'b').roots).toEqual({ npu: 'R' });
  });

  it('coerces the other fields and refuses what is not a meta at all', () => {
    const meta = checkMeta(
      { ...goodMeta, microSteps: 2.5, task: '<img>', colors: [null, { color: 1 }, goodMeta.colors[0]], toolTips: { a: 'x', b: 3 }, nodeCounts: { npu: -1 } },
      'cmp',
    );
    expect(meta).toMatchObject({ microSteps: 0, task: '', colors: goodMeta.colors, toolTips: { a: 'x' }, nodeCounts: {} });
    expect(() => checkMeta(null, 'cmp')).toThrow('cmp: graph meta is not an object');
    expect(() => checkMeta([], 'cmp')).toThrow(BadAnswerError);
    expect(() => checkMeta({ ...goodMeta, graphType: 'other' }, 'cmp')).toThrow(/cmp: graph type "other"/);
  });
});

describe('checkChildren / checkFind / checkNode / checkRuns', () => {
  it('children with id: null (or no id) are dropped, the rest coerced; total stays the server’s', () => {
    const answer = checkChildren(
      {
        node: 'DefaultModel',
        total: 4,
        children: [child('A'), child(null), child(7), child('B', { childCount: 'many', precisionIndex: 'NaN', matchedNodeLink: [null, 'X'], nodeType: null })],
      },
      'cmp',
    );
    expect(answer.children.map((c) => c.id)).toEqual(['A', 'B']);
    expect(answer.children[1]).toEqual({ id: 'B', nodeType: 1, precisionIndex: null, overflowLevel: null, matchedNodeLink: ['X'], childCount: 0, microStepId: 0 });
    expect(answer.total).toBe(4);
    expect(checkChildren({ node: 'R', children: [] }, 'cmp')).toEqual({ node: 'R', children: [] });
    expect(() => checkChildren({ node: 'R', children: null }, 'cmp')).toThrow('cmp: children answer has no children list');
  });

  it('search results without an id are dropped and paths filtered', () => {
    const found = checkFind({ total: 3, results: [{ ...child(null), path: [] }, { ...child('A'), path: ['R', null] }] }, 'cmp');
    expect(found).toEqual({ total: 3, results: [{ ...checkChildren({ children: [child('A')] }, 'cmp').children[0], path: ['R'] }] });
    expect(checkFind({ results: 'x' }, 'cmp')).toEqual({ total: 0, results: [] });
  });

  it('a node record without an id is an error; its other fields are coerced', () => {
    expect(() => checkNode({ ...child(null), side: 'npu' }, 'cmp')).toThrow('cmp: node record without an id');
    const node = checkNode({ ...child('A'), side: 'npu', path: 'R', inputData: { 'A.input.0': { Max: '1' }, bad: null }, stackInfo: [1, 'at x'] }, 'cmp');
    expect(node).toMatchObject({ id: 'A', side: 'npu', upnode: null, path: [], inputData: { 'A.input.0': { Max: '1' } }, outputData: {}, stackInfo: ['at x'] });
  });

  it('runs: entries without a name are dropped', () => {
    const runs = checkRuns({ logdir: '/l', runs: [{ run: null, tags: [] }, { run: '.', tags: [{ tag: 'a', format: 'db', graphType: 'x', sizeBytes: 5, error: null }, { tag: 3 }] }] });
    expect(runs).toEqual({ logdir: '/l', runs: [{ run: '.', tags: [{ tag: 'a', format: 'db', graphType: null, sizeBytes: 5, error: null }] }] });
  });
});

describe('at the client’s fetch boundary', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });
  const answer = (body: unknown) => {
    globalThis.fetch = vi.fn(async () => new Response(JSON.stringify(body), { status: 200 })) as typeof fetch;
  };

  it('meta with roots: {npu: null} rejects with the file named; the banner text exists in en and zh-CN', async () => {
    answer({ ...goodMeta, roots: { npu: null } });
    const err = await client.meta({ run: 'exp1', tag: 'compare_rank0' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadAnswerError);
    expect((err as BadAnswerError).file).toBe('exp1/compare_rank0');
    const params = { file: 'exp1/compare_rank0', problem: (err as BadAnswerError).problem };
    expect(translate('en', 'error.badAnswer', params)).toBe(
      'Cannot show exp1/compare_rank0: the server’s answer does not fit the viewer (no root node id for the NPU side).',
    );
    expect(translate('zh-CN', 'error.badAnswer', params)).toContain('exp1/compare_rank0');
  });

  it('children with id: null and non-integer steps are cleaned before the app sees them', async () => {
    answer({ node: 'R', total: 2, children: [child(null), child('A')] });
    expect((await client.children({ run: '.', tag: 't' }, 'npu', undefined)).children.map((c) => c.id)).toEqual(['A']);
    answer({ ...goodMeta, steps: [0.25, 2] });
    expect((await client.meta({ run: '.', tag: 't' })).steps).toEqual([2]);
  });
});
