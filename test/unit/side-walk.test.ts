import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NodeSummary, Side } from '../../src/core/api/types.js';
import { SideWalk } from '../../server/overlay/sideWalk.js';
import type { GraphSelector } from '../../server/store/findQuery.js';
import type { GraphStore } from '../../server/store/graphStore.js';
import { VisDbStore } from '../../server/store/visDb/visDbStore.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { WorkInProgress } from '../../server/store/workBudget.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * The side walk (server/overlay/sideWalk.ts) keeps its list compact — ids in one buffer, a parent index, typed
 * arrays — and must give back exactly what the store's `/children` answers said: every node in pre-order with its
 * summary and ancestors. Checked against a plain walk that keeps the answers as they came.
 */

const golden = (p: string) => path.join(repoRoot, 'test/fixtures', p);

/** The plain walk: every node reached from the root in pre-order, its summary as answered and its ancestors. */
function plainWalk(store: GraphStore, side: Side, selector: GraphSelector): Array<{ node: NodeSummary; path: string[]; listed: boolean }> {
  const meta = store.meta(selector);
  const out: Array<{ node: NodeSummary; path: string[]; listed: boolean }> = [];
  const root = store.node({ side, nodeId: meta.roots[side]!, ...selector })!;
  const stack = [{ node: root as NodeSummary, path: [] as string[] }];
  while (stack.length) {
    const { node, path: p } = stack.pop()!;
    out.push({ node, path: p, listed: !node.synthetic });
    if (node.childCount === 0) continue;
    const kids = store.children({ side, nodeId: node.id, ...selector })!.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i], path: [...p, node.id] });
  }
  return out;
}

/**
 * The store with some answers changed as an overlay or another file may have them: links to other names, overflow
 * levels, no micro step. Deterministic per id, so both walks see the same.
 */
function varied(store: GraphStore): GraphStore {
  const vary = (c: NodeSummary): NodeSummary => {
    if (c.synthetic) return c;
    const h = [...c.id].reduce((n, ch) => (n * 31 + ch.charCodeAt(0)) >>> 0, 7);
    const out = { ...c };
    if (h % 3 === 0) out.matchedNodeLink = ['Other.root', `${c.id}.other`];
    // The same counterpart under another root: only the first element tells it from the node's own path.
    if (h % 3 === 1 && c.matchedNodeLink.length > 1) out.matchedNodeLink = ['Other.root', ...c.matchedNodeLink.slice(1)];
    if (h % 5 === 0) out.overflowLevel = h % 2 ? 'critical' : 'medium';
    if (h % 7 === 0) out.microStepId = null;
    return out;
  };
  return Object.assign(Object.create(store) as GraphStore, {
    children: (q: Parameters<GraphStore['children']>[0]) => {
      const answer = store.children(q);
      return answer && { ...answer, children: answer.children.map(vary) };
    },
  });
}

const summaryFields = ({ id, nodeType, precisionIndex, overflowLevel, matchedNodeLink, childCount, microStepId }: NodeSummary) => ({
  id,
  nodeType,
  precisionIndex,
  overflowLevel,
  matchedNodeLink,
  childCount,
  microStepId,
});

function expectSame(walk: SideWalk, plain: ReturnType<typeof plainWalk>): void {
  expect(walk.length).toBe(plain.length);
  for (let k = 0; k < plain.length; k++) {
    const want = plain[k];
    expect(walk.listed(k), want.node.id).toBe(want.listed);
    expect(walk.id(k)).toBe(want.node.id);
    expect(walk.path(k), want.node.id).toEqual(want.path);
    expect(walk.pathLength(k)).toBe(want.path.length);
    if (!want.listed) continue;
    expect(walk.summary(k), want.node.id).toEqual(summaryFields(want.node));
    expect(walk.linkLength(k)).toBe(want.node.matchedNodeLink.length);
    expect(walk.counterpart(k)).toBe(want.node.matchedNodeLink.at(-1));
    expect(walk.precisionIndex(k)).toBe(want.node.precisionIndex);
    expect(walk.overflowLevel(k)).toBe(want.node.overflowLevel);
    expect(walk.childCount(k)).toBe(want.node.childCount);
  }
}

describe('SideWalk', () => {
  it('a layer-mapping .vis: links to other names, unmatched nodes and the unreachable group, both sides', () => {
    const rel = 'graph/golden/lm_ms_vs_pt_compare/vis-202507/compare_20261125220627.vis';
    const store = new VisJsonStore(readFileSync(golden(rel), 'utf8'), { file: rel, run: '.', tag: 'lm' });
    const selector = { step: 0, rank: 0 };
    for (const side of ['npu', 'bench'] as const) {
      const plain = plainWalk(store, side, selector);
      // The file exercises every kind of entry the walk keeps apart.
      expect(plain.some((e) => !e.listed)).toBe(true);
      expect(plain.some((e) => e.listed && e.node.matchedNodeLink.length === 0)).toBe(true);
      expectSame(new SideWalk(side, selector, rel).list(store, 60_000), plain);
      const other = varied(store);
      const changed = plainWalk(other, side, selector);
      expect(changed.some((e) => e.listed && e.node.matchedNodeLink[0] === 'Other.root')).toBe(true);
      expectSame(new SideWalk(side, selector, rel).list(other, 60_000), changed);
    }
  });

  it('a multi-rank .vis.db, walked a slice at a time (202 between slices) as across requests', () => {
    const file = golden('e2e/ranks/db/compare_20261126174453.vis.db');
    const db = new VisDbStore(file, { file: 'r.vis.db', run: '.', tag: 'r' });
    try {
      const store = varied(db);
      const selector = { step: 0, rank: 1 };
      const meta = store.meta(selector);
      const plain = plainWalk(store, 'npu', selector);
      expect(plain.length).toBe(meta.nodeCounts.npu);
      expect(plain.some((e) => e.node.overflowLevel !== null)).toBe(true);
      expect(plain.some((e) => e.node.precisionIndex !== null)).toBe(true);
      const walk = new SideWalk('npu', selector, 'r.vis.db');
      let slices = 0;
      for (; slices < 100_000; ) {
        try {
          walk.list(store, 0);
          break;
        } catch (e) {
          if (!(e instanceof WorkInProgress)) throw e;
          expect(e.total).toBe(meta.nodeCounts.npu);
          slices++;
        }
      }
      expect(slices).toBeGreaterThan(1);
      expectSame(walk, plain);
      // The file's own links are its nodes' paths: a few typed arrays and the ids' bytes, under half the ~300 bytes a
      // node that the kept summaries and paths took.
      const own = new SideWalk('npu', selector, 'r.vis.db').list(db, 60_000);
      expect(own.bytes).toBeLessThan(1024 + own.length * 150);
    } finally {
      db.close();
    }
  });
});
