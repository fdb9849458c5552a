import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14's worst-nodes table in Chromium: open a compare file, open the panel, the first row is the worst node the
 * test computes from the file itself (highest precision_index, ties in output order: post-order over subnodes), a
 * click selects it with its ancestors expanded; the next page and execution order work.
 */
const FILE = path.join(repoRoot, 'test/fixtures/e2e/compare/synth_2layer.vis');

interface RawNode {
  subnodes?: string[];
  data?: { precision_index?: unknown };
}

/** NPU nodes with a precision value, in output order (post-order from the root). */
function ratedInOutputOrder(): Array<{ id: string; v: number }> {
  const doc = JSON.parse(readFileSync(FILE, 'utf8'));
  const nodes = doc.NPU.node as Record<string, RawNode>;
  const out: Array<{ id: string; v: number }> = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id) || !nodes[id]) return;
    seen.add(id);
    for (const c of nodes[id].subnodes ?? []) visit(c);
    const v = nodes[id].data?.precision_index;
    if (typeof v === 'number' && Number.isFinite(v)) out.push({ id, v });
  };
  visit(doc.NPU.root);
  return out;
}

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);
const rows = (page: Page) => page.locator('[data-testid="worst-table"] tbody tr');

describeBrowser('worst-nodes table in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/compare']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lists the worst node first and locates it on click', async () => {
    const rated = ratedInOutputOrder();
    const max = Math.max(...rated.map((r) => r.v));
    const worst = rated.find((r) => r.v === max)!;
    // Not the first node in the pre-order (the enclosing module): the table must sort, not just list.
    expect(rated.filter((r) => r.v === max).length).toBeGreaterThan(1);

    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer`);
    await page.locator('[data-testid="worst-toggle"]').waitFor();
    await expect(node(page, 'npu', worst.id).count()).resolves.toBe(0);

    await page.locator('[data-testid="worst-toggle"]').click();
    await rows(page).first().waitFor();
    await expect(page.locator('[data-testid="worst-count"]').getAttribute('data-total')).resolves.toBe(String(rated.length));
    const first = rows(page).first();
    await expect(first.getAttribute('data-worst-id')).resolves.toBe(worst.id);
    await expect(first.locator('.pb-worst__name').getAttribute('title')).resolves.toBe(worst.id);
    await expect(first.locator('.pb-worst__value').textContent()).resolves.toBe('1');
    // The swatch is the file's red bucket.
    const swatch = await first.locator('.pb-swatch').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(swatch).toBe('rgb(255, 112, 77)');
    // Values never rise down the page.
    const values = await rows(page).evaluateAll((trs) => trs.map((tr) => Number(tr.querySelector('.pb-worst__value')!.getAttribute('data-value'))));
    expect(values).toEqual([...values].sort((a, b) => b - a));

    await first.click();
    await node(page, 'npu', worst.id).waitFor({ timeout: 20_000 });
    await expect.poll(() => node(page, 'npu', worst.id).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    await expect(first.getAttribute('aria-current')).resolves.toBe('true');
    await page.screenshot({ path: screenshotPath('worst-nodes') });

    // Execution order: the first row is the first rated node in output order.
    await page.selectOption('[data-testid="worst-order"]', 'execution');
    await expect.poll(() => rows(page).first().getAttribute('data-worst-id')).toBe(rated[0].id);
    // The panel title is a translated string.
    await expect(page.locator('[data-testid="worst-toggle"]').textContent()).resolves.toBe('Worst nodes');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
