import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateVis } from '../../bench/visgen/index.mjs';
import { createApp } from '../../server/http/app.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath } from '../helpers/browser.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';

/**
 * Issue 14 item 9 and item 5 in Chromium against the real server: a link carries the whole view (file, both
 * selections, each side's open groups, each side's viewport) into a new browser context, and wins over another tab
 * of the viewer, and reproduces itself exactly in the tab already showing its file (address bar, back / forward);
 * switching rank, step or file keeps open groups, selection and filter ticks, across a step × rank pair without a
 * graph too. The files are generated (bench/visgen): a multi-level compare `.vis`, a `.vis.db` with two ranks of the
 * same model, and one with two steps × two ranks whose step 1 × rank 1 holds no graph although its lists name it.
 */
type Side = 'npu' | 'bench';
const OPENED = 14;

interface RawNode {
  subnodes?: string[];
}

/** The file's NPU groups in pre-order (every group after its parent, root left out) and each node's children. */
function readTree(file: string): { groups: string[]; kids: (id: string) => string[] } {
  const doc = JSON.parse(readFileSync(file, 'utf8').replace(/\bNaN\b/g, 'null'));
  const nodes = doc.NPU.node as Record<string, RawNode>;
  const kids = (id: string) => nodes[id]?.subnodes ?? [];
  const groups: string[] = [];
  const visit = (id: string) => {
    if (kids(id).length === 0) return;
    if (id !== doc.NPU.root) groups.push(id);
    kids(id).forEach(visit);
  };
  visit(doc.NPU.root);
  return { groups, kids };
}

const node = (page: Page, side: Side, id: string) => page.locator(`[data-testid="pane-${side}"] [data-node-id="${id}"]`);
/** Real groups drawn open (pseudo-groups of split groups left out). */
const openIds = (page: Page, side: Side) =>
  page
    .locator(`[data-testid="pane-${side}"] [data-expanded="true"]:not([data-split])`)
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id') ?? '').sort());
const viewOf = (page: Page, side: Side) =>
  page.locator(`[data-testid="viewport-${side}"]`).evaluate((g) => ({
    x: Number(g.getAttribute('data-tx')),
    y: Number(g.getAttribute('data-ty')),
    k: Number(g.getAttribute('data-scale')),
  }));

/** Nothing loading on either pane and the address written (it follows pans after a short pause). */
async function settled(page: Page): Promise<void> {
  await page.waitForTimeout(400);
  await expect.poll(() => page.locator('[data-testid^="loading-"]').count(), { timeout: 15_000 }).toBe(0);
  await page.waitForTimeout(400);
}

describeBrowser('links carry the whole view; switches keep it (issue 14 items 9 and 5)', () => {
  let browser: Browser;
  let server: ServedApp;
  let logdir: string;
  let groups: string[];
  let kids: (id: string) => string[];
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-links-'));
    const vis = await generateVis({ nodes: 300, out: path.join(logdir, 'gen', 'model.vis'), seed: 3 });
    await generateVis({ nodes: 300, out: path.join(logdir, 'ranks', 'model.vis.db'), seed: 3, ranks: [0, 1] });
    const gap = await generateVis({ nodes: 300, out: path.join(logdir, 'gap', 'model.vis.db'), seed: 3, steps: [0, 1], ranks: [0, 1] });
    const db = new Database(gap.out);
    db.prepare('DELETE FROM tb_nodes WHERE step = 1 AND rank = 1').run();
    db.close();
    ({ groups, kids } = readTree(vis.out));
    server = await serveApp(createApp({ logdir, appDir }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    if (logdir) rmSync(logdir, { recursive: true, force: true });
  });

  async function newContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    contexts.push(context);
    return context;
  }

  async function newPage(context?: BrowserContext): Promise<Page> {
    const page = await (context ?? (await newContext())).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  /**
   * Opens each group by hand: found by search (which centres it), then double-clicked on its title (sync on: the
   * Bench counterpart opens too).
   */
  async function openByHand(page: Page, ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await page.fill('[data-testid="search-input"]', id);
      await page.press('[data-testid="search-input"]', 'Enter');
      await page.locator(`[data-testid="search-list"] [data-found-id="${id}"]`).click();
      await expect.poll(() => node(page, 'npu', id).getAttribute('data-selected'), { timeout: 10_000 }).toBe('true');
      await settled(page);
      await node(page, 'npu', id).dblclick({ position: { x: 4, y: 3 } });
      await expect.poll(() => node(page, 'npu', id).getAttribute('data-expanded'), { timeout: 10_000 }).toBe('true');
    }
    await settled(page);
  }

  it('a copied link reproduces 14 open groups per side, both selections and both viewports in a new context, beside another tab', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=gen&tag=model`);
    const wanted = groups.slice(0, OPENED);
    await node(page, 'npu', wanted[0]).waitFor();
    await openByHand(page, wanted);

    // Select a leaf inside the last opened group from the search (a locate, which a restore must not redo over the
    // link's viewport), then zoom and pan away from where the locate left the view.
    const target = kids(wanted[OPENED - 1]).find((id) => kids(id).length === 0)!;
    await page.fill('[data-testid="search-input"]', target);
    await page.press('[data-testid="search-input"]', 'Enter');
    await page.locator(`[data-testid="search-list"] [data-found-id="${target}"]`).click();
    await expect.poll(() => node(page, 'npu', target).getAttribute('data-selected')).toBe('true');
    await expect.poll(() => node(page, 'bench', target).getAttribute('data-counterpart')).toBe('true');
    const pane = (await page.locator('[data-testid="pane-npu"]').boundingBox())!;
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 3);
    for (const key of ['w', 'w', 'd', 'd', 'd']) await page.keyboard.press(key);
    const bench = (await page.locator('[data-testid="pane-bench"]').boundingBox())!;
    await page.mouse.move(bench.x + bench.width / 3, bench.y + bench.height / 2);
    for (const key of ['w', 'a']) await page.keyboard.press(key);
    await settled(page);
    const link = page.url();
    const views = { npu: await viewOf(page, 'npu'), bench: await viewOf(page, 'bench') };
    expect(link).toContain('open.npu=');
    expect(link).toContain('view.bench=');
    expect(link.length).toBeLessThan(4096);
    const boxBefore = (await node(page, 'npu', target).locator('rect, ellipse').first().boundingBox())!;

    // Another context where the viewer is already open on another run; the link opens in a second tab there.
    const context = await newContext();
    const other = await newPage(context);
    await other.goto(`${server.origin}/#graphs?run=ranks&tag=model`);
    await node(other, 'npu', groups[0]).waitFor();
    const fresh = await newPage(context);
    await fresh.goto(link);
    await expect.poll(() => fresh.locator('[data-testid="run-select"]').inputValue()).toBe('gen');
    await expect.poll(() => node(fresh, 'npu', target).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    await settled(fresh);
    expect(await node(fresh, 'bench', target).getAttribute('data-counterpart')).toBe('true');
    for (const side of ['npu', 'bench'] as const) {
      const view = await viewOf(fresh, side);
      expect(Math.abs(view.x - views[side].x)).toBeLessThanOrEqual(2);
      expect(Math.abs(view.y - views[side].y)).toBeLessThanOrEqual(2);
      expect(Math.abs(view.k - views[side].k) / views[side].k).toBeLessThan(1e-3);
    }
    const boxAfter = (await node(fresh, 'npu', target).locator('rect, ellipse').first().boundingBox())!;
    expect(Math.abs(boxAfter.x - boxBefore.x)).toBeLessThanOrEqual(2);
    expect(Math.abs(boxAfter.y - boxBefore.y)).toBeLessThanOrEqual(2);
    await fresh.screenshot({ path: screenshotPath('view-link-restored') });
    // The restored page writes the same link back.
    expect(fresh.url()).toBe(link);
    // Count what is open once the whole graph is in view (the panes draw only what is near the viewport).
    for (const p of [page, fresh]) {
      await p.click('[data-testid="fit-npu"]');
      await p.click('[data-testid="fit-bench"]');
      await settled(p);
    }
    for (const side of ['npu', 'bench'] as const) {
      const restored = await openIds(fresh, side);
      expect(restored).toEqual(await openIds(page, side));
      expect(restored.filter((id) => wanted.includes(id))).toHaveLength(OPENED);
    }
    // The other tab kept its own run.
    expect(await other.locator('[data-testid="run-select"]').inputValue()).toBe('ranks');
    expect(pageErrors).toEqual([]);
  });

  it('switching rank, then file, keeps the open groups, the selection and the filter ticks', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=ranks&tag=model`);
    await page.locator('[data-testid="rank-select"]').waitFor();
    const wanted = groups.slice(0, 5);
    await openByHand(page, wanted);
    const selected = wanted[wanted.length - 1];
    await node(page, 'npu', selected).click({ position: { x: 4, y: 3 } });
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected')).toBe('true');
    const tick = page.locator('[data-testid="filter-panel"] input[data-testid^="filter-bucket-"]').first();
    await tick.check();
    await page.locator('[data-testid="filter-count"]').waitFor();
    await page.click('[data-testid="fit-npu"]');
    await settled(page);
    const before = await openIds(page, 'npu');
    expect(before).toEqual(expect.arrayContaining(wanted));

    await page.selectOption('[data-testid="rank-select"]', '1');
    await expect.poll(() => page.url()).toContain('rank=1');
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    await settled(page);
    await page.click('[data-testid="fit-npu"]');
    await settled(page);
    expect(await openIds(page, 'npu')).toEqual(before);
    expect(await openIds(page, 'bench')).toEqual(expect.arrayContaining(wanted));
    expect(await tick.isChecked()).toBe(true);
    await expect.poll(() => page.locator('[data-testid="filter-count"]').count()).toBe(1);
    await page.screenshot({ path: screenshotPath('view-link-rank-switch') });

    // Another file (the same model as a .vis): open groups and selection are kept there too.
    await page.selectOption('[data-testid="run-select"]', 'gen');
    await expect.poll(() => page.url()).toContain('run=gen');
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    await settled(page);
    await page.click('[data-testid="fit-npu"]');
    await settled(page);
    expect(await openIds(page, 'npu')).toEqual(before);
    expect(await tick.isChecked()).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  /** Selects `id` from the search list (a locate) and moves both views away from where the locate left them. */
  async function selectAndPan(page: Page, id: string, keys: { npu: string[]; bench: string[] }): Promise<void> {
    await page.fill('[data-testid="search-input"]', id);
    await page.press('[data-testid="search-input"]', 'Enter');
    await page.locator(`[data-testid="search-list"] [data-found-id="${id}"]`).click();
    await expect.poll(() => node(page, 'npu', id).getAttribute('data-selected'), { timeout: 10_000 }).toBe('true');
    await settled(page);
    for (const side of ['npu', 'bench'] as const) {
      const box = (await page.locator(`[data-testid="pane-${side}"]`).boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
      for (const key of keys[side]) await page.keyboard.press(key);
    }
    await settled(page);
  }

  it('a link applied to the tab already showing its file reproduces it exactly: pasted in the address bar, then back and forward', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=gen&tag=model`);
    await node(page, 'npu', groups[0]).waitFor();
    const linked = groups.slice(0, 3);
    await openByHand(page, linked);
    const target = kids(linked[2]).find((id) => kids(id).length === 0)!;
    await selectAndPan(page, target, { npu: ['s', 'd', 'd'], bench: ['s', 'a'] });
    const link = page.url();
    const linkViews = { npu: await viewOf(page, 'npu'), bench: await viewOf(page, 'bench') };

    // The tab moves on: more groups open, another node selected, other views.
    const more = groups.slice(3, 8).filter((id) => !linked.includes(id));
    await openByHand(page, more);
    const later = more[more.length - 1];
    await selectAndPan(page, later, { npu: ['a', 'a'], bench: ['d', 's'] });
    const laterLink = page.url();
    const laterViews = { npu: await viewOf(page, 'npu'), bench: await viewOf(page, 'bench') };
    expect(laterLink).not.toBe(link);
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));

    /**
     * The tab shows `url`'s view: its selection and viewports, the address written back unchanged, and (counted
     * once the whole graph is in view, as the panes draw only what is near the viewport) exactly `open` open.
     */
    async function shows(url: string, selected: string, other: string, views: typeof linkViews, open: string[]): Promise<void> {
      await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
      await settled(page);
      await expect.poll(() => page.url(), { timeout: 5_000 }).toBe(url);
      expect(await page.locator(`[data-node-id="${other}"][data-selected="true"]`).count()).toBe(0);
      for (const side of ['npu', 'bench'] as const) {
        const view = await viewOf(page, side);
        expect(Math.abs(view.x - views[side].x)).toBeLessThanOrEqual(2);
        expect(Math.abs(view.y - views[side].y)).toBeLessThanOrEqual(2);
        expect(Math.abs(view.k - views[side].k) / views[side].k).toBeLessThan(1e-3);
      }
      // No reload: the link was applied to the page as it was.
      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
      await page.click('[data-testid="fit-npu"]');
      await page.click('[data-testid="fit-bench"]');
      await settled(page);
      // `groups` leaves the root out (always open).
      for (const side of ['npu', 'bench'] as const) expect((await openIds(page, side)).filter((id) => groups.includes(id))).toEqual([...open].sort());
    }

    // Pasted into the address bar of this tab (a hashchange): the groups the link does not list close.
    await page.goto(link);
    await shows(link, target, later, linkViews, linked);
    // Back to the view the tab had (its groups open again), forward to what the tab last showed there (the fitted
    // views: history entries follow the tab), its groups closed again.
    const left = page.url();
    const leftViews = { npu: await viewOf(page, 'npu'), bench: await viewOf(page, 'bench') };
    await page.goBack();
    await shows(laterLink, later, target, laterViews, [...linked, ...more]);
    await page.goForward();
    await shows(left, target, later, leftViews, linked);
    expect(pageErrors).toEqual([]);
  });

  it('an address typed while a pan is still to be written wins over the pan', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=gen&tag=model`);
    await node(page, 'npu', groups[0]).waitFor();
    await settled(page);
    const box = (await page.locator('[data-testid="pane-npu"]').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 3);
    // The address changes and its hashchange is still queued (replaceState, then the event sent by hand) while a pan
    // writes the view it had: the pan must not replace the typed address.
    const typed = `#graphs?run=gen&tag=model&node=${encodeURIComponent(groups[1])}&lang=zh-CN`;
    await page.evaluate((hash) => window.history.replaceState(null, '', hash), typed);
    const before = await viewOf(page, 'npu');
    await page.keyboard.press('d');
    await expect.poll(async () => (await viewOf(page, 'npu')).x).not.toBe(before.x);
    await page.waitForTimeout(600);
    await page.evaluate(() => window.dispatchEvent(new HashChangeEvent('hashchange')));
    await expect.poll(() => page.evaluate(() => document.documentElement.lang), { timeout: 10_000 }).toBe('zh-CN');
    await expect.poll(() => node(page, 'npu', groups[1]).getAttribute('data-selected'), { timeout: 10_000 }).toBe('true');
    const params = new URLSearchParams(page.url().split('?')[1]);
    expect(params.get('lang')).toBe('zh-CN');
    expect(params.get('node')).toBe(groups[1]);
    expect(pageErrors).toEqual([]);
  });

  it('open groups, selection and filter ticks survive a step whose rank list lacks the shown rank', async () => {
    const page = await newPage();
    // Step 1 × rank 1 has no graph: the pickers do not offer it, so a link takes the tab there.
    await page.goto(`${server.origin}/#graphs?run=gap&tag=model`);
    await page.locator('[data-testid="step-select"]').waitFor();
    await page.selectOption('[data-testid="step-select"]', '1');
    await expect.poll(() => page.url()).toContain('step=1');
    expect(await page.locator('[data-testid="rank-select"]').count()).toBe(0);
    await page.goto(`${server.origin}/#graphs?run=gap&tag=model&step=0&rank=0`);
    await page.locator('[data-testid="step-select"]').waitFor();
    const wanted = groups.slice(0, 4);
    await openByHand(page, wanted);
    const selected = wanted[wanted.length - 1];
    await node(page, 'npu', selected).click({ position: { x: 4, y: 3 } });
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected')).toBe('true');
    const tick = page.locator('[data-testid="filter-panel"] input[data-testid^="filter-bucket-"]').first();
    await tick.check();
    await page.click('[data-testid="fit-npu"]');
    await settled(page);
    const before = await openIds(page, 'npu');
    expect(before).toEqual(expect.arrayContaining(wanted));

    // Step 0 × rank 1 has a graph; step 1 × rank 1 has none, so choosing step 1 there shows step 1's first rank
    // (rank 0) with the view carried; back at step 0 the rank stays 0, and rank 1 is offered again.
    await page.selectOption('[data-testid="rank-select"]', '1');
    await expect.poll(() => page.url()).toContain('rank=1');
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    await settled(page);
    await page.selectOption('[data-testid="step-select"]', '1');
    await expect.poll(() => page.url()).toContain('rank=0');
    expect(await page.locator('[data-empty-graph="true"]').count()).toBe(0);
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    await settled(page);
    await page.selectOption('[data-testid="step-select"]', '0');
    await expect.poll(() => page.url()).toContain('step=0');
    await expect.poll(() => node(page, 'npu', selected).getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    expect(new URLSearchParams(page.url().split('?')[1]).get('node')).toBe(selected);
    await settled(page);
    await page.click('[data-testid="fit-npu"]');
    await settled(page);
    expect(await openIds(page, 'npu')).toEqual(before);
    expect(await openIds(page, 'bench')).toEqual(expect.arrayContaining(wanted));
    expect(await tick.isChecked()).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
