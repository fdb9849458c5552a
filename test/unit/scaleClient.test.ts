import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NodeSummary, Side } from '../../src/core/api/types.js';
import { client, INDEXING_POLL_MS, setIndexingListener, type IndexingProgress } from '../../src/app/api/client.js';
import { inlineLayoutRunner, type LayoutRunner } from '../../src/app/pane/layoutRunner.js';
import { PaneController } from '../../src/app/pane/paneController.js';
import { createPaneStore } from '../../src/app/pane/paneStore.js';
import { hitTest, locate, visibleNodes } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';

const node = (id: string, childCount = 0, precisionIndex: number | null = 0.1): NodeSummary => ({
  id,
  nodeType: childCount ? 0 : 1,
  precisionIndex,
  overflowLevel: null,
  matchedNodeLink: [id],
  childCount,
  microStepId: null,
});

function countingRunner(): LayoutRunner & { runs: number } {
  const runner = {
    runs: 0,
    run: (groups: Parameters<LayoutRunner['run']>[0], params: Parameters<LayoutRunner['run']>[1]) => {
      runner.runs++;
      return inlineLayoutRunner.run(groups, params);
    },
    dispose: () => {},
  };
  return runner;
}

const settle = async () => {
  for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

async function pane() {
  const kids: Record<string, NodeSummary[]> = {
    root: [node('M.a', 3), node('M.b', 2)],
    'M.a': [node('a.0'), node('a.1'), node('a.2')],
    'M.b': [node('b.0'), node('b.1')],
  };
  const runner = countingRunner();
  const controller = new PaneController(
    createPaneStore('npu'),
    async (_s: Side, id: string) => kids[id],
    runner,
    approximateTextMeasurer,
  );
  controller.resized(800, 600);
  controller.reset('root');
  await settle();
  controller.toggle('M.a');
  await settle();
  return { controller, runner };
}

describe('hit testing the far-zoom canvas', () => {
  it('finds the deepest drawn node under a point, nothing outside the graph', async () => {
    const { controller } = await pane();
    const { layouts, tree } = controller.store.getState();
    for (const id of ['a.1', 'a.2', 'M.b']) {
      const box = locate(layouts, tree.parentOf, 'root', id)!;
      expect(hitTest(layouts, 'root', { x: box.x + box.width / 2, y: box.y + box.height / 2 })).toBe(id);
    }
    // The frame of the open group, above its children: the group itself; the root's padding: the root.
    const a = locate(layouts, tree.parentOf, 'root', 'M.a')!;
    expect(hitTest(layouts, 'root', { x: a.x + 2, y: a.y + 2 })).toBe('M.a');
    expect(hitTest(layouts, 'root', { x: 1, y: 1 })).toBe('root');
    expect(hitTest(layouts, 'root', { x: -5, y: 10 })).toBeNull();
    // Every closed node is found at its own centre.
    for (const n of visibleNodes(layouts, 'root').filter((v) => !v.container)) {
      expect(hitTest(layouts, 'root', { x: n.x + n.width / 2, y: n.y + n.height / 2 })).toBe(n.id);
    }
  });
});

describe('recolouring', () => {
  it('new precision values or colours change no layout and start no layout run', async () => {
    const { controller, runner } = await pane();
    const before = controller.store.getState();
    const runs = runner.runs;
    // What a recolour is for the pane: the same nodes with other values (the fill is computed when drawing).
    const nodes = new Map([...before.tree.nodes].map(([id, n]) => [id, { ...n, precisionIndex: 0.9 }]));
    controller.updateTree((tree) => ({ ...tree, nodes }));
    await settle();
    const after = controller.store.getState();
    expect(after.tree.nodes.get('a.1')?.precisionIndex).toBe(0.9);
    expect(runner.runs).toBe(runs);
    expect(after.layouts).toBe(before.layouts);
  });
});

describe('API client', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
    setIndexingListener(null);
  });

  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  it('polls while the server answers 202 and reports the indexing progress until the answer is ready', async () => {
    const progress = (percent: number): IndexingProgress => ({ file: 'big.vis', bytesRead: percent * 10, bytesTotal: 1000, percent });
    const answers = [json(202, { indexing: progress(10) }), json(202, { indexing: progress(60) }), json(200, { node: 'root', children: [], total: 0 })];
    const urls: string[] = [];
    globalThis.fetch = vi.fn(async (url: string | URL | Request) => {
      urls.push(String(url));
      return answers.shift()!;
    }) as typeof fetch;
    const seen: Array<number | null> = [];
    setIndexingListener((p) => seen.push(p ? p.percent : null));
    const started = Date.now();
    const answer = await client.children({ run: 'r', tag: 't', step: 2, rank: null }, 'npu', 'M', { micro: -1, offset: 400, limit: 400 });
    expect(answer).toEqual({ node: 'root', children: [], total: 0 });
    expect(seen).toEqual([10, 60, null]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * INDEXING_POLL_MS - 20);
    expect(urls).toHaveLength(3);
    expect(urls[0]).toBe('api/graph/children?run=r&tag=t&step=2&side=npu&node=M&micro=-1&offset=400&limit=400');
  });

  it('sends filter buckets as lo-hi lists and flags as 1, and turns errors into one line', async () => {
    const urls: string[] = [];
    globalThis.fetch = vi.fn(async (url: string | URL | Request) => {
      urls.push(String(url));
      return urls.length === 1 ? json(200, { total: 0, results: [] }) : json(404, { error: 'big.vis: no node X on the npu side' });
    }) as typeof fetch;
    await client.filter({ run: '.', tag: 'big' }, { side: 'npu', precision: [[0, 0.2], [0.8, 1]], unmatched: true, overflow: [], leaves: true, limit: 500 });
    expect(decodeURIComponent(urls[0])).toBe('api/graph/filter?run=.&tag=big&side=npu&precision=0-0.2,0.8-1&unmatched=1&leaves=1&limit=500');
    await expect(client.search({ run: '.', tag: 'big' }, 'npu', 'X')).rejects.toThrow('big.vis: no node X on the npu side');
  });
});
