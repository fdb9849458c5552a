import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, startTestServer, type TestServer } from '../helpers/browser.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14, search and locate: `/regex/` finds what RegExp finds in the file's ids, the count says "k of N", Enter
 * steps forward and Shift+Enter back (wrapping), each step selects and draws the hit and its counterpart; an invalid
 * pattern answers with the server's one-line error. Real server, Chromium, the bundled synth_2layer compare file.
 */
const FILE = path.join(repoRoot, 'test/fixtures/e2e/compare/synth_2layer.vis');
const PATTERN = '/^Module\\..*forward\\.0$/';

const npuIds = (): string[] => Object.keys(JSON.parse(readFileSync(FILE, 'utf8')).NPU.node);
const selected = (page: Page, side: 'npu' | 'bench') =>
  page.locator(`[data-testid="pane-${side}"] [data-selected="true"], [data-testid="pane-${side}"] [data-counterpart="true"]`);

async function openSynth(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/`);
  await page.locator('[data-testid="run-select"] option[value="compare"]').waitFor({ state: 'attached' });
  await page.selectOption('[data-testid="run-select"]', 'compare');
  await page.selectOption('[data-testid="tag-select"]', 'synth_2layer');
  await page.locator('[data-testid="pane-npu"] [data-node-id="Module.module.Float16Module.forward.0"]').waitFor();
}

describeBrowser('search by /regex/ and locate in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/compare']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('counts the regex hits, steps with Enter / Shift+Enter (wrapping) and locates each on both sides', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    await openSynth(page, server.origin);
    const [, body] = /^\/(.+)\/$/.exec(PATTERN)!;
    const expected = npuIds().filter((id) => new RegExp(body).test(id));
    expect(expected.length).toBeGreaterThan(2);

    const input = page.locator('[data-testid="search-input"]');
    await input.fill(PATTERN);
    await input.press('Enter');
    await expect.poll(() => page.locator('[data-testid="search-count"]').getAttribute('data-total')).toBe(String(expected.length));
    const listed = await page.locator('[data-testid="search-list"] [data-found-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-found-id')));
    expect([...listed].sort()).toEqual([...expected].sort());

    const at = (k: number) => `${k} of ${expected.length}`;
    const expectLocated = async (k: number) => {
      await expect.poll(() => page.locator('[data-testid="search-position"]').textContent()).toBe(at(k));
      const id = listed[k - 1]!;
      // Selected and drawn on NPU; every hit here is matched, so its counterpart is drawn on Bench too.
      await expect.poll(() => selected(page, 'npu').getAttribute('data-node-id'), { timeout: 10_000 }).toBe(id);
      await expect.poll(() => selected(page, 'bench').count(), { timeout: 10_000 }).toBe(1);
    };
    await input.press('Enter');
    await expectLocated(1);
    await input.press('Enter');
    await expectLocated(2);
    await input.press('Shift+Enter');
    await expectLocated(1);
    await input.press('Shift+Enter');
    await expectLocated(expected.length);
    await page.locator('[data-testid="search-next"]').click();
    await expectLocated(1);
  });

  it('an invalid pattern shows the server’s one-line error', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    await openSynth(page, server.origin);
    await page.locator('[data-testid="search-input"]').fill('/(unclosed/');
    await page.locator('[data-testid="search-input"]').press('Enter');
    await expect.poll(() => page.locator('[data-testid="error-banner"]').textContent()).toMatch(/search text not usable: .*Unterminated group/);
  });
});
