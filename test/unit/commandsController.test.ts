import { describe, expect, it } from 'vitest';
import type { NodeSummary, Side } from '../../src/core/api/types.js';
import { fit, initialView, viewportRect } from '../../src/app/commands/viewport.js';
import { PaneController } from '../../src/app/pane/paneController.js';
import { createPaneStore } from '../../src/app/pane/paneStore.js';
import { contains, locate, sceneBounds } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';
import { recordingRunner } from '../helpers/layoutRunner.js';
import { sceneProblems } from './layoutInvariants.js';

/** A root with 30 modules of 12 leaves each; module 29 holds a nested module, so a deep reveal has 3 levels. */
function fakeServer() {
  const kids = new Map<string, NodeSummary[]>();
  const node = (id: string, childCount: number, link: string[] = []): NodeSummary => ({
    id,
    nodeType: childCount ? 0 : 1,
    precisionIndex: 0.1,
    overflowLevel: null,
    matchedNodeLink: link,
    childCount,
    microStepId: null,
  });
  kids.set('root', Array.from({ length: 30 }, (_, i) => node(`Module.m${i}.M.forward.0`, i === 29 ? 13 : 12)));
  for (let i = 0; i < 30; i++) {
    const leaves = Array.from({ length: 12 }, (_, j) => node(`Tensor.op.${i * 100 + j}.forward`, 0, ['root', `x${j}`]));
    if (i === 29) leaves.push(node('Module.m29.inner.In.forward.0', 2));
    kids.set(`Module.m${i}.M.forward.0`, leaves);
  }
  kids.set('Module.m29.inner.In.forward.0', [node('Tensor.deep.0.forward', 0), node('Tensor.deep.1.forward', 0)]);
  const calls: string[] = [];
  const fetcher = async (_side: Side, id: string) => {
    calls.push(id);
    const answer = kids.get(id);
    if (!answer) throw new Error(`HTTP 404: no node ${id}`);
    return answer;
  };
  return { fetcher, calls };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

async function openPane() {
  const server = fakeServer();
  const runner = recordingRunner();
  const controller = new PaneController(createPaneStore('npu'), server.fetcher, runner, approximateTextMeasurer);
  controller.resized(800, 600);
  controller.reset('root');
  await settle();
  return { controller, server, runner, store: controller.store };
}

describe('PaneController: fetch, layout scheduling, viewport', () => {
  it('opens the root: one fetch, one layout, the opening view', async () => {
    const { store, server, runner } = await openPane();
    expect(server.calls).toEqual(['root']);
    expect(runner.batches).toEqual([['root']]);
    const s = store.getState();
    expect(s.tree.expanded.has('root')).toBe(true);
    expect(s.layoutBusy).toBe(false);
    expect(s.viewReady).toBe(true);
    expect(s.view).toEqual(initialView(sceneBounds(s.layouts, 'root')!, { width: 800, height: 600 }));
    // The cull window covers the viewport.
    expect(contains(s.cullWindow, viewportRect(s.view, s.size))).toBe(true);
  });

  it('double click path: toggle fetches lazily and re-lays out only the group and its ancestors', async () => {
    const { controller, store, server, runner } = await openPane();
    controller.toggle('Module.m3.M.forward.0');
    expect(store.getState().tree.loading.has('Module.m3.M.forward.0')).toBe(true);
    await settle();
    controller.toggle('Module.m7.M.forward.0');
    await settle();
    expect(server.calls).toEqual(['root', 'Module.m3.M.forward.0', 'Module.m7.M.forward.0']);
    expect(runner.batches.slice(1)).toEqual([
      ['Module.m3.M.forward.0', 'root'],
      ['Module.m7.M.forward.0', 'root'],
    ]);
    const m3 = store.getState().layouts.get('Module.m3.M.forward.0');
    // Collapse: only the root is laid out again, m3's layout is dropped, no fetch.
    controller.toggle('Module.m3.M.forward.0');
    await settle();
    expect(runner.batches.at(-1)).toEqual(['root']);
    expect(store.getState().layouts.has('Module.m3.M.forward.0')).toBe(false);
    expect(m3).toBeDefined();
    controller.toggle('Module.m3.M.forward.0');
    await settle();
    expect(server.calls).toHaveLength(3);
    expect(sceneProblems(store.getState().layouts, 'root')).toEqual([]);
  });

  it('reveal opens a deep path and scrolls the target into view', async () => {
    const { controller, store } = await openPane();
    const before = store.getState().view;
    controller.reveal(['root', 'Module.m29.M.forward.0', 'Module.m29.inner.In.forward.0'], 'Tensor.deep.1.forward');
    await settle();
    await settle();
    const s = store.getState();
    expect([...s.tree.expanded].sort()).toEqual(['Module.m29.M.forward.0', 'Module.m29.inner.In.forward.0', 'root']);
    expect(s.scrollTarget).toBeNull();
    const box = locate(s.layouts, s.tree.parentOf, 'root', 'Tensor.deep.1.forward')!;
    expect(box).not.toBeNull();
    expect(s.view).not.toEqual(before);
    expect(contains(viewportRect(s.view, s.size), box)).toBe(true);
  });

  it('reveal of something already visible does not move the view', async () => {
    const { controller, store } = await openPane();
    const before = store.getState().view;
    controller.reveal(['root'], 'Module.m0.M.forward.0');
    await settle();
    expect(store.getState().view).toBe(before);
    expect(store.getState().scrollTarget).toBeNull();
  });

  it('drops a reveal target that never appears, and reports the failed fetch', async () => {
    const { controller, store } = await openPane();
    controller.reveal(['root', 'Module.gone.forward.0'], 'Tensor.x.0.forward');
    await settle();
    await settle();
    const s = store.getState();
    expect(s.scrollTarget).toBeNull();
    expect(s.error).toBe('Module.gone.forward.0: HTTP 404: no node Module.gone.forward.0');
    expect(s.tree.failed.has('Module.gone.forward.0')).toBe(true);
  });

  it('ignores answers for a file that was closed meanwhile', async () => {
    const { controller, store } = await openPane();
    controller.toggle('Module.m1.M.forward.0');
    controller.reset('other-root');
    await settle();
    const s = store.getState();
    expect(s.tree.rootId).toBe('other-root');
    expect(s.tree.nodes.has('Tensor.op.100.forward')).toBe(false);
    expect(s.error).toBe('other-root: HTTP 404: no node other-root');
  });

  it('zoom, pan and fit commands land in the store (no zoom behaviour attached)', async () => {
    const { controller, store } = await openPane();
    const v0 = store.getState().view;
    controller.zoomBy(1.2);
    expect(store.getState().view.k).toBeCloseTo(v0.k * 1.2, 10);
    controller.panBy(40, 0);
    expect(store.getState().view.x).toBeCloseTo(400 - (400 - v0.x) * 1.2 + 40, 9);
    // A tall graph: the first press fits the width at a readable scale, the second the whole graph.
    controller.fit();
    const s = store.getState();
    expect(s.view).toEqual(initialView(sceneBounds(s.layouts, 'root')!, s.size));
    controller.fit();
    expect(store.getState().view).toEqual(fit(sceneBounds(s.layouts, 'root')!, s.size));
    expect(store.getState().view.k).toBeLessThan(s.view.k);
  });

  it('routes views through an attached zoom behaviour', async () => {
    const { controller, store } = await openPane();
    const applied: unknown[] = [];
    controller.attachViewport((view) => {
      applied.push(view);
      controller.viewChanged(view);
    });
    controller.panBy(0, -40);
    expect(applied).toHaveLength(1);
    expect(store.getState().view).toBe(applied[0]);
  });
});
