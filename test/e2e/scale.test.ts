import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath } from '../helpers/browser.js';
import { bundleIndexWorker } from '../helpers/workerBundles.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { writeWideVis, type WideVis } from '../helpers/wideVis.js';

/**
 * Issue 4 in real Chromium against the real server: a generated compare `.vis` with a 2,000-child module (split into
 * sub-groups, opened on demand, culled while scrolling), links into split groups, search and filter, step / rank of
 * a golden `.vis.db`, and the indexing progress bar.
 */
const CHILDREN = 2000;

/** Indexes stay in memory unless `stores` says otherwise: a test run neither reuses nor fills ~/.cache/probeboard. */
function serve(logdir: string, stores?: StoreCache): Promise<ServedApp> {
  return serveApp(createApp({ logdir, appDir, stores: stores ?? createStoreCache({ cacheDir: null }) }));
}

const npu = (page: Page, id: string) => page.locator(`[data-testid="pane-npu"] [data-node-id="${id}"]`);
const split = (page: Page, parent: string, range: string) =>
  page.locator(`[data-testid="pane-npu"] [data-split-of="${parent}"][data-split="${range}"]`);
const drawnNodes = (page: Page) => page.locator('[data-testid="pane-npu"] [data-node-id]').count();
const RANGES = ['0-399', '400-799', '800-1199', '1200-1599', '1600-1999'];

/** NPU children requests the page made, as `node@offset+limit`. */
function recordChildren(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (!url.pathname.endsWith('/api/graph/children')) return;
    const q = url.searchParams;
    if (q.get('side') === 'npu') calls.push(`${q.get('node') ?? ''}@${q.get('offset') ?? ''}+${q.get('limit') ?? ''}`);
  });
  return calls;
}

describeBrowser('viewer at scale in Chromium', () => {
  let browser: Browser;
  let logdir: string;
  let server: ServedApp;
  let wide: WideVis;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-scale-'));
    mkdirSync(path.join(logdir, 'wide'));
    wide = writeWideVis(path.join(logdir, 'wide', 'wide2000.vis'), { children: CHILDREN, needleAt: 1234 });
    cpSync(path.join(repoRoot, 'test/fixtures/scale'), path.join(logdir, 'db'), { recursive: true });
    server = await serve(logdir);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (logdir) rmSync(logdir, { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    await context.addInitScript(() => {
      const w = window as unknown as { longTasks: number[] };
      w.longTasks = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => w.longTasks.push(e.duration))).observe({ type: 'longtask', buffered: true });
    });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  it('opens a 2,000-child module as 5 sub-groups, opens them on demand and scrolls through them with a bounded DOM', async () => {
    const page = await newPage();
    const calls = recordChildren(page);
    await page.goto(`${server.origin}/#graphs?run=wide&tag=wide2000`);
    await npu(page, wide.wideId).waitFor();
    await npu(page, wide.wideId).dblclick();
    await split(page, wide.wideId, '0-399').waitFor();

    // Five sub-groups labelled by index range, none of the 2,000 children drawn, learnt from one page of 400.
    const ranges = await page.locator(`[data-testid="pane-npu"] [data-split-of="${wide.wideId}"]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-split')));
    expect(ranges).toEqual(RANGES);
    expect(await split(page, wide.wideId, '400-799').locator('text').first().textContent()).toBe('[400–799]');
    expect(await npu(page, wide.leafId(0)).count()).toBe(0);
    // One page of 400 first; the other slices follow in the background, once each, so sub-groups can be shaded by
    // their worst child (issue 14 item 8).
    const sliceCalls = RANGES.map((r) => `${wide.wideId}@${r.split('-')[0]}+400`);
    expect(calls.filter((c) => c.startsWith(wide.wideId))[0]).toBe(`${wide.wideId}@0+400`);
    await expect.poll(() => calls.filter((c) => c.startsWith(wide.wideId)).sort()).toEqual([...sliceCalls].sort());

    // Opening a sub-group then needs no request.
    await split(page, wide.wideId, '1600-1999').dblclick();
    await npu(page, wide.leafId(1600)).waitFor();
    expect(calls.filter((c) => c.startsWith(wide.wideId))).toHaveLength(5);
    expect(await npu(page, wide.leafId(1599)).count()).toBe(0);

    // Open the others upwards, so the closed ones stay where they are; the first needs no request (the first page held it).
    for (const range of [...RANGES].reverse().slice(1)) {
      await split(page, wide.wideId, range).dblclick();
      await expect.poll(() => split(page, wide.wideId, range).getAttribute('data-expanded')).toBe('true');
    }
    expect(calls.filter((c) => c.startsWith(wide.wideId))).toHaveLength(5);

    // Scroll down with the wheel through all 2,000 leaves: the DOM holds a window of them, never all.
    const box = (await page.locator('[data-testid="pane-npu"]').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    let most = 0;
    const seen = new Set<number>();
    for (let step = 0; step < 120 && !seen.has(CHILDREN - 1); step++) {
      await page.mouse.wheel(0, 400);
      await page.waitForTimeout(30);
      const leaves = await page
        .locator('[data-testid="pane-npu"] [data-node-id^="Torch.matmul."], [data-testid="pane-npu"] [data-node-id^="Torch.needle_op."]')
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-node-id')!.split('.')[2])));
      leaves.forEach((i) => seen.add(i));
      most = Math.max(most, await drawnNodes(page));
    }
    expect(seen.has(CHILDREN - 1)).toBe(true);
    expect(seen.size).toBe(CHILDREN);
    expect(most).toBeGreaterThan(50);
    expect(most).toBeLessThan(CHILDREN / 2);
    // The top of the module scrolled out of the cull window.
    expect(await npu(page, wide.leafId(0)).count()).toBe(0);
    await page.screenshot({ path: screenshotPath('scale-split-scrolled') });

    // Zoomed far out the canvas draws every node and the DOM holds none (Fit's second press fits the whole graph).
    await page.click('[data-testid="fit-npu"]');
    await page.click('[data-testid="fit-npu"]');
    await expect.poll(() => page.locator('[data-testid="canvas-npu"]').getAttribute('data-active')).toBe('true');
    await expect.poll(async () => Number(await page.locator('[data-testid="canvas-npu"]').getAttribute('data-drawn'))).toBeGreaterThan(CHILDREN);
    expect(await drawnNodes(page)).toBe(0);
    await page.screenshot({ path: screenshotPath('scale-far-canvas') });

    const longTasks = await page.evaluate(() => (window as unknown as { longTasks: number[] }).longTasks);
    // The 50 ms target is the benchmark's (bench/viewer-client.mjs); here only a freeze fails, on a shared machine.
    expect(Math.max(0, ...longTasks)).toBeLessThan(250);
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });

  it('follows links into split groups: pos= opens the right sub-group at once, without it the group is searched', async () => {
    const target = wide.leafId(1500);
    const page = await newPage();
    const calls = recordChildren(page);
    await page.goto(`${server.origin}/#graphs?run=wide&tag=wide2000&side=npu&node=${target}&pos=1500`);
    await expect.poll(() => npu(page, target).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    expect(await split(page, wide.wideId, '1200-1599').getAttribute('data-expanded')).toBe('true');
    // The link's position is checked with one read of one child; whole slices are only the pages and the background
    // shading reads (no scan).
    const linkCalls = calls.filter((c) => c.startsWith(wide.wideId));
    expect(linkCalls.filter((c) => !c.endsWith('+400'))).toEqual([`${wide.wideId}@1500+1`]);
    expect(linkCalls).toContain(`${wide.wideId}@1200+400`);
    expect(linkCalls.filter((c) => c.endsWith('+400')).every((c) => /@(0|400|800|1200|1600)\+400$/.test(c))).toBe(true);
    // The counterpart on the Bench side is found by reading the group (no position for the other side).
    await expect.poll(() => page.locator(`[data-testid="pane-bench"] [data-node-id="${target}"]`).getAttribute('data-counterpart')).toBe('true');

    const plain = await newPage();
    await plain.goto(`${server.origin}/#graphs?run=wide&tag=wide2000&side=npu&node=${target}`);
    await expect.poll(() => npu(plain, target).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    // Once found, the link carries the position.
    await expect.poll(() => plain.url()).toContain(`node=${target}&pos=1500`);
    await page.context().close();
    await plain.context().close();
  });

  it('searches by name and reveals a result inside a closed sub-group; filters by colour and steps through the list', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=wide&tag=wide2000`);
    await npu(page, wide.wideId).waitFor();

    await page.fill('[data-testid="search-input"]', 'NEEDLE_op');
    await page.press('[data-testid="search-input"]', 'Enter');
    await expect.poll(() => page.locator('[data-testid="search-count"]').getAttribute('data-total')).toBe('1');
    await page.locator(`[data-testid="search-list"] [data-found-id="${wide.needleId}"]`).click();
    await expect.poll(() => npu(page, wide.needleId).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    expect(await split(page, wide.wideId, '1200-1599').getAttribute('data-expanded')).toBe('true');
    await expect.poll(() => page.url()).toContain('pos=1234');
    await expect(page.locator('[data-testid="info-panel"]').textContent()).resolves.toContain(wide.needleId);

    // The Bench side is searched on request.
    await page.selectOption('[data-testid="search-side"]', 'bench');
    await page.fill('[data-testid="search-input"]', 'matmul.17.');
    await page.press('[data-testid="search-input"]', 'Enter');
    await expect.poll(() => page.locator('[data-testid="search-count"]').getAttribute('data-total')).toBe('1');
    await page.click('[data-testid="search-next"]');
    await expect.poll(() => page.locator(`[data-testid="pane-bench"] [data-node-id="${wide.leafId(17)}"]`).getAttribute('data-selected')).toBe('true');

    // Precision filter: "no matching node" lists the unmatched leaves; ↓ and ↑ step through them.
    await page.check('[data-testid="filter-unmatched"]');
    await expect.poll(() => page.locator('[data-testid="filter-count"]').getAttribute('data-total')).toBe(String(wide.unmatched.length));
    const listed = await page.locator('[data-testid="filter-list"] [data-found-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-found-id')));
    expect(listed).toEqual(wide.unmatched.map((i) => wide.leafId(i)));
    await page.click('[data-testid="filter-next"]');
    await page.click('[data-testid="filter-next"]');
    const second = wide.leafId(wide.unmatched[1]);
    await expect.poll(() => npu(page, second).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    await page.click('[data-testid="filter-prev"]');
    await expect.poll(() => npu(page, wide.leafId(wide.unmatched[0])).getAttribute('data-selected')).toBe('true');
    // A colour bucket narrows it to other nodes: 0.8 ≤ v ≤ 1 holds the leaves with i % 10 ∈ {8, 9} that are matched.
    await page.uncheck('[data-testid="filter-unmatched"]');
    await page.check('[data-testid="filter-bucket-4"]');
    const inBucket = Array.from({ length: CHILDREN }, (_, i) => i).filter((i) => i % 10 >= 8 && !wide.unmatched.includes(i));
    await expect.poll(() => page.locator('[data-testid="filter-count"]').getAttribute('data-total')).toBe(String(inBucket.length + 2));
    await page.screenshot({ path: screenshotPath('scale-search-filter') });
    await page.context().close();
  });

  it('selects the step and rank of a .vis.db, keeps them in the URL and sends them with every graph request', async () => {
    const page = await newPage();
    const graphRequests: URL[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname.includes('/api/graph/')) graphRequests.push(url);
    });
    await page.goto(`${server.origin}/#graphs?run=db&tag=multistep_compare`);
    await npu(page, 'Module1').waitFor();
    const options = (sel: string) => page.locator(`${sel} option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(await options('[data-testid="step-select"]')).toEqual(['0', '1', '2']);
    expect(await options('[data-testid="rank-select"]')).toEqual(['0', '1']);

    await page.selectOption('[data-testid="step-select"]', '2');
    await expect.poll(() => page.url()).toContain('step=2');
    graphRequests.length = 0;
    await npu(page, 'Module1').dblclick();
    await npu(page, 'Tensor1').waitFor();
    const children = graphRequests.filter((u) => u.pathname.endsWith('/children'));
    expect(children.length).toBeGreaterThan(0);
    for (const u of children) expect([u.searchParams.get('step'), u.searchParams.get('rank')]).toEqual(['2', null]);
    await npu(page, 'Tensor1').click();
    await expect.poll(() => graphRequests.some((u) => u.pathname.endsWith('/node') && u.searchParams.get('step') === '2')).toBe(true);

    await page.selectOption('[data-testid="step-select"]', '0');
    await page.selectOption('[data-testid="rank-select"]', '1');
    await expect.poll(() => page.url()).toContain('step=0&rank=1');
    await npu(page, 'Module1').waitFor();

    // A link restores both.
    const fresh = await newPage();
    await fresh.goto(`${server.origin}/#graphs?run=db&tag=multistep_compare&step=1&rank=0&side=npu&node=Tensor1`);
    await expect.poll(() => npu(fresh, 'Tensor1').getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    expect(await fresh.locator('[data-testid="step-select"]').inputValue()).toBe('1');
    // Only rank 0 holds a graph at step 1 (meta.graphs): nothing to choose, so no rank picker.
    expect(await fresh.locator('[data-testid="rank-select"]').count()).toBe(0);
    await page.context().close();
    await fresh.context().close();
  });

  it('shows the indexing progress of a large .vis, then the graph', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-indexing-'));
    writeWideVis(path.join(dir, 'big.vis'), { children: 20_000 });
    // The index job runs in a worker thread only from a bundle (from TypeScript sources it runs before answering).
    const indexWorkerScript = await bundleIndexWorker(path.join(dir, 'worker'));
    // Tiny reads make indexing slow enough to watch; every file goes through the indexing job.
    const slow = await serve(dir, createStoreCache({ cacheDir: null, inThreadBytes: 0, chunkSize: 512, indexWorkerScript }));
    try {
      const page = await newPage();
      await page.goto(`${slow.origin}/#graphs?run=.&tag=big`);
      const bar = page.locator('[data-testid="indexing-progress"]');
      await bar.waitFor({ timeout: 20_000 });
      expect(await bar.textContent()).toContain('big.vis');
      expect(Number(await bar.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(0);
      await npu(page, WIDE_MODULE).waitFor({ timeout: 60_000 });
      await expect.poll(() => bar.count()).toBe(0);
      await page.context().close();
    } finally {
      await slow.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const WIDE_MODULE = 'Module.wide.WideBlock.forward.0';
