import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { divergentOracle } from '../helpers/divergentOracle.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14's first divergent node in Chromium: on a compare the graph command made (test/fixtures/e2e/divergent), the
 * button selects the node this test computes from the file, on both sides, with the rule as its tooltip; a causal
 * mask scored 1 by the NaN rule on identical statistics says so in the info header instead of being the answer.
 */
const FILE = path.join(repoRoot, 'test/fixtures/e2e/divergent/divergent.vis');

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);

describeBrowser('first divergent node in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/divergent']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const format of ['vis', 'db'] as const) {
    it(`selects the source node on both sides, not the mask, the module or a later node (.${format === 'db' ? 'vis.db' : 'vis'})`, async () => {
      const { verdicts, expected } = divergentOracle(FILE);
      const mask = verdicts.find((v) => v.identical)!;
      const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
      const page = await context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`${server.origin}/#graphs?run=divergent&tag=divergent&format=${format}`);
      await page.locator('[data-testid="worst-toggle"]').click();
      const button = page.locator('[data-testid="first-divergent"]');
      await expect(button.getAttribute('title')).resolves.toMatch(/order outputs are produced/);
      await expect(node(page, 'npu', expected.id).count()).resolves.toBe(0);

      await button.click();
      const status = page.locator('[data-testid="first-divergent-status"]');
      await expect.poll(() => status.getAttribute('data-node'), { timeout: 20_000 }).toBe(expected.id);
      await expect(status.getAttribute('title')).resolves.toContain(mask.id);
      // Located on both sides: the NPU node selected, its Bench counterpart (same name in this compare) revealed and marked.
      await expect.poll(() => node(page, 'npu', expected.id).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
      await expect.poll(() => node(page, 'bench', expected.id).getAttribute('data-counterpart'), { timeout: 20_000 }).toBe('true');
      await expect(page.locator('[data-testid="info-npu-node"]').getAttribute('title')).resolves.toBe(expected.id);
      await expect(page.locator('[data-testid="info-nan-identical"]').count()).resolves.toBe(0);
      await page.screenshot({ path: screenshotPath(`first-divergent-${format}`) });

      // The mask, drawn beside it once its module is open, is red but says why it is not divergent.
      await node(page, 'npu', mask.id).click();
      await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(mask.id);
      await expect.poll(() => page.locator('[data-testid="info-nan-identical"]').count(), { timeout: 20_000 }).toBe(1);
      await expect(page.locator('[data-testid="info-precision-value"]').textContent()).resolves.toBe('1');
      expect(pageErrors).toEqual([]);
      await context.close();
    });
  }
});
