import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';

/**
 * Issue 14 item 4 (sync-expand and "Expand counterpart") and item 7's first bullet (a located node is shown at a
 * readable zoom), in Chromium against the real server and the bundled synth_2layer compare file.
 */
const FIXTURES = 'test/fixtures/e2e';
const MODULE = 'Module.module.Float16Module.forward.0';
const CHILD = 'Module.module.module.GPTModel.forward.0';
const GRANDCHILD = 'Module.module.module.language_model.TransformerLanguageModel.forward.0';

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);
const paneNodes = (page: Page, side: 'npu' | 'bench') => page.locator(`[data-testid="pane-${side}"] [data-node-id]`).count();

async function openCompareSample(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.locator('[data-testid="run-select"] option[value="compare"]').waitFor({ state: 'attached' });
  await page.selectOption('[data-testid="run-select"]', 'compare');
  await page.selectOption('[data-testid="tag-select"]', 'synth_2layer');
  await node(page, 'npu', MODULE).waitFor();
  await node(page, 'bench', MODULE).waitFor();
}

/** Nothing in flight on either pane (no loading band). */
async function settled(page: Page): Promise<void> {
  await page.waitForTimeout(300);
  await expect.poll(() => page.locator('[data-testid^="loading-"]').count()).toBe(0);
}

describeBrowser('sync-expand and locate zoom in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer([`${FIXTURES}/compare`]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  it('expands and collapses the counterpart with sync on, not with sync off; right click expands the counterpart', async () => {
    const page = await newPage();
    await openCompareSample(page, server.origin);
    await expect(page.locator('[data-testid="sync-npu"]').isChecked()).resolves.toBe(true);
    await settled(page);
    const benchBefore = await paneNodes(page, 'bench');
    expect(await node(page, 'bench', CHILD).count()).toBe(0);

    // Sync on (default): a double click on the NPU module opens its Bench counterpart too.
    await node(page, 'npu', MODULE).dblclick();
    await node(page, 'npu', CHILD).waitFor();
    await node(page, 'bench', CHILD).waitFor();
    await settled(page);
    const benchOpened = await paneNodes(page, 'bench');
    expect(benchOpened).toBeGreaterThan(benchBefore);

    // Sync off: the NPU side opens, the Bench side stays as it was.
    await page.locator('[data-testid="sync-npu"]').uncheck();
    await expect(page.locator('[data-testid="sync-bench"]').isChecked()).resolves.toBe(false);
    await node(page, 'npu', CHILD).dblclick();
    await node(page, 'npu', GRANDCHILD).waitFor();
    await settled(page);
    expect(await paneNodes(page, 'bench')).toBe(benchOpened);
    expect(await node(page, 'bench', GRANDCHILD).count()).toBe(0);

    // Right click → "Expand counterpart" opens it on the Bench side whatever the switch says.
    // On the module's header: its middle is covered by its children now.
    await node(page, 'npu', CHILD).click({ button: 'right', position: { x: 6, y: 4 } });
    const item = page.locator('[data-testid="expand-counterpart-npu"]');
    await expect(item.textContent()).resolves.toBe('Expand counterpart');
    await page.screenshot({ path: screenshotPath('sync-expand-menu') });
    await item.click();
    await node(page, 'bench', GRANDCHILD).waitFor();
    await settled(page);
    expect(await paneNodes(page, 'bench')).toBeGreaterThan(benchOpened);
    await expect(page.locator('[data-testid="node-menu-npu"]').count()).resolves.toBe(0);

    // Sync on again: collapsing the NPU module collapses the Bench one.
    await page.locator('[data-testid="sync-bench"]').check();
    await node(page, 'npu', MODULE).dblclick({ position: { x: 6, y: 4 } });
    await expect.poll(() => node(page, 'bench', CHILD).count()).toBe(0);
    await settled(page);
    expect(await paneNodes(page, 'bench')).toBe(benchBefore);
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });

  it('a search hit after Fit is centred at a readable zoom, on both sides', async () => {
    const page = await newPage();
    await openCompareSample(page, server.origin);
    const TARGET = 'Module.module.module.language_model.encoder.layers.1.mlp.ParallelMLP.forward.0';
    const OTHER = 'Module.module.module.language_model.encoder.layers.0.mlp.ParallelMLP.forward.0';
    const scale = (side: 'npu' | 'bench') => page.locator(`[data-testid="viewport-${side}"]`).getAttribute('data-scale').then(Number);
    // Below the far scale a pane paints on a canvas and draws no node elements: a width of 0 then.
    const width = async (side: 'npu' | 'bench') => {
      const rect = node(page, side, TARGET).locator('rect').first();
      return (await rect.count()) === 0 ? 0 : ((await rect.boundingBox())?.width ?? 0);
    };
    const hit = (id: string) => page.locator(`[data-testid="search-list"] [data-found-id="${id}"]`);
    // A tall graph: both attention blocks opened (a hit reveals its ancestors), so Fit makes the target small.
    await page.fill('[data-testid="search-input"]', 'self_attention.dense.RowParallelLinear.forward');
    await page.press('[data-testid="search-input"]', 'Enter');
    for (const layer of [0, 1]) {
      const dense = `Module.module.module.language_model.encoder.layers.${layer}.self_attention.dense.RowParallelLinear.forward.0`;
      await hit(dense).click();
      await node(page, 'npu', dense).waitFor();
    }
    await page.fill('[data-testid="search-input"]', '.mlp.ParallelMLP.forward');
    await page.press('[data-testid="search-input"]', 'Enter');
    await hit(OTHER).click();
    await hit(TARGET).click();
    await node(page, 'npu', TARGET).waitFor();
    await settled(page);
    // Fit's second press fits the whole (tall) graph.
    for (const side of ['npu', 'npu', 'bench', 'bench']) await page.click(`[data-testid="fit-${side}"]`);
    await settled(page);
    const fitted = await scale('npu');
    expect(await width('npu')).toBeLessThan(100);
    expect(await width('bench')).toBeLessThan(100);

    // Jump to the hit (another one first, so the selection changes): readable, not the Fit zoom.
    await hit(OTHER).click();
    await settled(page);
    await hit(TARGET).click();
    await expect.poll(() => node(page, 'npu', TARGET).getAttribute('data-selected'), { timeout: 10_000 }).toBe('true');
    await expect.poll(() => width('npu'), { timeout: 10_000 }).toBeGreaterThanOrEqual(100);
    expect(await scale('npu')).toBeGreaterThan(fitted);
    // The counterpart on the Bench side is located the same way.
    await expect.poll(() => width('bench'), { timeout: 10_000 }).toBeGreaterThanOrEqual(100);
    // Centred in its pane.
    await settled(page);
    const pane = (await page.locator('[data-testid="pane-npu"]').boundingBox())!;
    const box = (await node(page, 'npu', TARGET).locator('rect').first().boundingBox())!;
    expect(Math.abs(box.x + box.width / 2 - (pane.x + pane.width / 2))).toBeLessThan(30);
    await page.screenshot({ path: screenshotPath('locate-readable') });

    // A click in the pane is no locate: the zoom the user chose stays.
    await page.click('[data-testid="fit-npu"]');
    await settled(page);
    const before = await scale('npu');
    await node(page, 'npu', MODULE).click({ position: { x: 3, y: 3 } });
    await expect.poll(() => node(page, 'npu', MODULE).getAttribute('data-selected')).toBe('true');
    await settled(page);
    expect(await scale('npu')).toBe(before);
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });
});
