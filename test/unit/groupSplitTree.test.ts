import { describe, expect, it } from 'vitest';
import type { NodeSummary, Side } from '../../src/core/api/types.js';
import { pageLoaded, placeChild, realAncestors, splitPath, splitPositions } from '../../src/app/commands/splitTree.js';
import { expand } from '../../src/app/commands/expansion.js';
import { treeForRoot } from '../../src/app/commands/treeState.js';
import { viewportRect } from '../../src/app/commands/viewport.js';
import { PaneController, type PageRequest } from '../../src/app/pane/paneController.js';
import { createPaneStore } from '../../src/app/pane/paneStore.js';
import { splitId } from '../../src/core/layout/groupSplit.js';
import { contains, locate, visibleNodes } from '../../src/core/layout/scene.js';
import { approximateTextMeasurer } from '../../src/core/layout/textMeasure.js';
import { recordingRunner } from '../helpers/layoutRunner.js';
import { sceneProblems } from './layoutInvariants.js';

const node = (id: string, childCount = 0): NodeSummary => ({
  id,
  nodeType: childCount ? 0 : 1,
  precisionIndex: 0.5,
  overflowLevel: null,
  matchedNodeLink: [],
  childCount,
  microStepId: null,
});

const WIDE = 'Module.wide.Wide.forward.0';
const INNER = 'Module.wide.inner.Inner.forward.0';
const leafId = (i: number) => `Torch.op.${i}.forward`;

/** root → [WIDE (2,000 children; child 1,500 is INNER with 3 leaves), SMALL (3 leaves)]. */
function wideGraph(): Record<string, NodeSummary[]> {
  const wide = Array.from({ length: 2000 }, (_, i) => (i === 1500 ? node(INNER, 3) : node(leafId(i))));
  return {
    root: [node(WIDE, 2000), node('Module.small.S.forward.0', 3)],
    [WIDE]: wide,
    [INNER]: [node('Torch.deep.0.forward'), node('Torch.deep.1.forward'), node('Torch.deep.2.forward')],
    'Module.small.S.forward.0': [node('Torch.s.0.forward'), node('Torch.s.1.forward'), node('Torch.s.2.forward')],
  };
}

/** A children route that honours offset/limit and reports `total` (or, `paged: false`, an old server). */
function server(paged = true) {
  const groups = wideGraph();
  const calls: string[] = [];
  const fetcher = async (_side: Side, id: string, page?: PageRequest) => {
    calls.push(page ? `${id}@${page.offset}+${page.limit}` : id);
    const all = groups[id];
    if (!all) throw new Error(`HTTP 404: no node ${id}`);
    if (!paged || !page) return all;
    return { node: id, children: all.slice(page.offset, page.offset + page.limit), total: all.length };
  };
  return { fetcher, calls };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

async function openPane(paged = true, scanPage = 300) {
  const fake = server(paged);
  const runner = recordingRunner();
  const controller = new PaneController(createPaneStore('npu'), fake.fetcher, runner, approximateTextMeasurer, undefined, { scanPage });
  controller.resized(800, 600);
  controller.reset('root');
  await settle();
  return { controller, fake, runner, store: controller.store };
}

const slice = (lo: number, hi: number) => splitId(WIDE, lo, hi);

describe('split tree commands', () => {
  it('a first page with a large total becomes pseudo-groups; the covered slice is loaded', () => {
    let tree = pageLoaded(treeForRoot('root'), 'root', { offset: 0, children: wideGraph().root, total: 2 });
    tree = expand(tree, WIDE);
    const first = wideGraph()[WIDE].slice(0, 400);
    tree = pageLoaded(tree, WIDE, { offset: 0, children: first, total: 2000 });
    expect(tree.expanded.has(WIDE)).toBe(true);
    expect(tree.totals.get(WIDE)).toBe(2000);
    expect(tree.children.get(WIDE)).toEqual([slice(0, 400), slice(400, 800), slice(800, 1200), slice(1200, 1600), slice(1600, 2000)]);
    expect(tree.children.get(slice(0, 400))).toHaveLength(400);
    expect(tree.children.has(slice(400, 800))).toBe(false);
    expect(tree.parentOf.get(leafId(7))).toBe(slice(0, 400));
    expect(tree.nodes.get(slice(400, 800))?.childCount).toBe(400);
    expect(realAncestors(tree, leafId(7))).toEqual(['root', WIDE]);
    expect(splitPositions(tree, leafId(7))).toEqual([7]);

    // The real path maps onto the drawn path once the child is placed.
    expect(splitPath(tree, ['root', WIDE, leafId(7)])).toEqual({ full: ['root', WIDE, slice(0, 400), leafId(7)], unresolved: null });
    expect(splitPath(tree, ['root', WIDE, INNER, 'Torch.deep.1.forward'])).toEqual({
      full: ['root', WIDE],
      unresolved: { parent: WIDE, child: INNER, ordinal: 0 },
    });
    tree = placeChild(tree, WIDE, INNER, 1500);
    expect(splitPath(tree, ['root', WIDE, INNER, 'Torch.deep.1.forward']).full).toEqual([
      'root',
      WIDE,
      slice(1200, 1600),
      INNER,
      'Torch.deep.1.forward',
    ]);
  });
});

describe('PaneController with split groups', () => {
  it('expands a 2,000-child module as 5 sub-groups from one small request, then fetches only the slice opened', async () => {
    const { controller, store, fake, runner } = await openPane();
    expect(fake.calls).toEqual(['root@0+400']);
    controller.toggle(WIDE);
    await settle();
    expect(fake.calls.at(-1)).toBe(`${WIDE}@0+400`);
    const s1 = store.getState();
    const drawn = visibleNodes(s1.layouts, 'root').map((n) => n.id);
    expect(drawn.filter((id) => id.startsWith('\u0000'))).toHaveLength(5);
    // Closed sub-groups: none of the 2,000 children is drawn.
    expect(drawn.filter((id) => id.startsWith('Torch.op.'))).toEqual([]);

    controller.toggle(slice(800, 1200));
    await settle();
    expect(fake.calls.at(-1)).toBe(`${WIDE}@800+400`);
    // Only the opened slice and its ancestor chain were laid out again.
    expect(runner.batches.at(-1)).toEqual([slice(800, 1200), WIDE, 'root']);
    const s2 = store.getState();
    const leaves = visibleNodes(s2.layouts, 'root').filter((n) => n.id.startsWith('Torch.op.'));
    expect(leaves.map((n) => n.id)).toEqual(Array.from({ length: 400 }, (_, i) => leafId(800 + i)));
    // Labels of a split group's children keep their first-level form: pseudo-groups do not count as depth.
    expect(leaves[0].depth).toBe(2);
    expect(sceneProblems(s2.layouts, 'root')).toEqual([]);

    // Opening the first slice needs no request: the first page already held it.
    const before = fake.calls.length;
    controller.toggle(slice(0, 400));
    await settle();
    expect(fake.calls).toHaveLength(before);
    expect(store.getState().tree.expanded.has(slice(0, 400))).toBe(true);
  });

  it('reveals a node inside a split group from a link position: one check, one slice', async () => {
    const { controller, store, fake } = await openPane();
    const ok = await controller.reveal(['root', WIDE, INNER], 'Torch.deep.2.forward', [1500]);
    await settle();
    expect(ok).toBe(true);
    // INNER's children are asked for at once (its parent's split is not known yet), the slice after the check.
    expect([...fake.calls.slice(1)].sort()).toEqual([`${WIDE}@0+400`, `${WIDE}@1200+400`, `${WIDE}@1500+1`, `${INNER}@0+400`].sort());
    expect(fake.calls.indexOf(`${WIDE}@1500+1`)).toBeLessThan(fake.calls.indexOf(`${WIDE}@1200+400`));
    const s = store.getState();
    expect([...s.tree.expanded]).toEqual(expect.arrayContaining(['root', WIDE, slice(1200, 1600), INNER]));
    const box = locate(s.layouts, s.tree.parentOf, 'root', 'Torch.deep.2.forward');
    expect(box).not.toBeNull();
    expect(contains(viewportRect(s.view, s.size), box!)).toBe(true);
    expect(splitPositions(s.tree, 'Torch.deep.2.forward')).toEqual([1500]);
    expect(splitPositions(s.tree, INNER)).toEqual([1500]);
  });

  it('without a position (search result, counterpart) it scans the group page by page, once', async () => {
    const { controller, store, fake } = await openPane(true, 300);
    expect(await controller.reveal(['root', WIDE], leafId(1234))).toBe(true);
    await settle();
    const scans = fake.calls.filter((c) => c.startsWith(`${WIDE}@`) && c.endsWith('+300'));
    expect(scans).toEqual([`${WIDE}@0+300`, `${WIDE}@300+300`, `${WIDE}@600+300`, `${WIDE}@900+300`, `${WIDE}@1200+300`]);
    expect(store.getState().tree.parentOf.get(leafId(1234))).toBe(slice(1200, 1600));
    expect(store.getState().tree.expanded.has(slice(1200, 1600))).toBe(true);
    // Ids already read are not searched again, whatever position a link claims.
    const count = fake.calls.length;
    expect(await controller.reveal(['root', WIDE], leafId(1100), [5])).toBe(true);
    await settle();
    expect(fake.calls.slice(count)).toEqual([`${WIDE}@800+400`]);
    // An id that is not there: the reveal gives up and drops the scroll target.
    expect(await controller.reveal(['root', WIDE], 'Torch.nowhere.forward')).toBe(false);
    expect(store.getState().scrollTarget).toBeNull();
  });

  it('a wrong link position is checked, then the group is scanned', async () => {
    const { controller, fake } = await openPane(true, 1000);
    expect(await controller.reveal(['root', WIDE], leafId(1100), [5])).toBe(true);
    await settle();
    expect(fake.calls.filter((c) => c.startsWith(`${WIDE}@`))).toEqual([
      `${WIDE}@0+400`,
      `${WIDE}@5+1`,
      `${WIDE}@0+1000`,
      `${WIDE}@1000+1000`,
      `${WIDE}@800+400`,
    ]);
  });

  it('against a server without paging, slices the full list itself and never asks for a slice', async () => {
    const { controller, store, fake } = await openPane(false);
    controller.toggle(WIDE);
    await settle();
    controller.toggle(slice(1600, 2000));
    await settle();
    expect(fake.calls).toEqual(['root@0+400', `${WIDE}@0+400`]);
    const leaves = visibleNodes(store.getState().layouts, 'root').filter((n) => n.id.startsWith('Torch.op.'));
    expect(leaves).toHaveLength(400);
    expect(leaves[0].id).toBe(leafId(1600));
    expect(await controller.reveal(['root', WIDE], leafId(3))).toBe(true);
    expect(fake.calls).toHaveLength(2);
  });
});
