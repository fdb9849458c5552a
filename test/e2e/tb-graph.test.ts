import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, startTestServer, type TestServer } from '../helpers/browser.js';

/**
 * Issue 16 in Chromium: a GraphDef and an event file's graph listed in the run/tag picker next to msprobe files open
 * in the viewer, and their name scopes expand like msprobe modules (edges are drawn in a later step).
 */
const node = (page: Page, id: string) => page.locator(`[data-node-id="${id}"][data-side="npu"]`);

describeBrowser('TensorBoard graphs in the viewer', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/tb', 'test/fixtures/e2e/build']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function newPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    return page;
  }

  it('opens a GraphDef from the picker, lists it by its file name and expands a name scope', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/`);
    await page.locator('[data-testid="run-select"] option[value="tb"]').waitFor({ state: 'attached' });
    await page.selectOption('[data-testid="run-select"]', 'tb');
    const options = await page.locator('[data-testid="tag-select"] option').evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
    // One entry per graph of the three-graph event file; file names shown as they are, not as `.vis`.
    expect(options.filter((o) => o.startsWith('events.out.tfevents.1795697749.vm.13893.0.tbdata#graph_def')).length).toBe(3);
    expect(options.some((o) => o.startsWith('tf_graph_app_demo_graph.pbtxt') && !o.includes('.vis'))).toBe(true);
    const value = await page
      .locator('[data-testid="tag-select"] option')
      .evaluateAll((els) => els.find((e) => (e.textContent ?? '').startsWith('tf_graph_app_demo_graph.pbtxt'))?.getAttribute('value') ?? '');
    await page.selectOption('[data-testid="tag-select"]', value);
    for (const id of ['life', 'universe', 'everything', '0', '1', 'answer']) await node(page, id).waitFor();
    await expect.poll(() => node(page, '1/Add').count()).toBe(0);
    await node(page, '1').dblclick();
    await node(page, '1/Add').waitFor();
    await node(page, '1/Weird').waitFor();
    // An op's details: its inputs by source node (answer reads 0/0/Add, 0/1/Add, 1/Add, 1/Weird, everything).
    await node(page, 'answer').click();
    await expect
      .poll(() => page.locator('[data-testid="info-table"]').textContent(), { timeout: 10_000 })
      .toMatch(/0\/0\/Add[\s\S]*1\/Weird[\s\S]*everything/);
    expect(pageErrors).toEqual([]);
  });

  it('opens an event file graph from a link and an msprobe file of the same log dir still opens', async () => {
    const page = await newPage();
    const tag = encodeURIComponent('events.out.tfevents.1795697749.vm.13893.0.tbdata#graph_def_1');
    await page.goto(`${server.origin}/#graphs?run=tb&tag=${tag}`);
    await expect.poll(() => page.locator('[data-node-id][data-side="npu"]').count(), { timeout: 10_000 }).toBeGreaterThan(1);
    await page.goto(`${server.origin}/#graphs?run=build`);
    await page.reload();
    await expect.poll(() => page.locator('[data-node-id][data-side="npu"]').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  });
});
