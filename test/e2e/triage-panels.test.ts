import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14 items 3, 10 and 1 in Chromium against the real server: the precision index in the info header with the
 * cell that drives it, the overflow level, and the precision filter's hint, placement, rows and sorting. Expected
 * values are read from the fixture files themselves.
 */
const FIXTURES = 'test/fixtures/e2e';
const SYNTH = path.join(repoRoot, FIXTURES, 'compare/synth_2layer.vis');

type VisNode = { node_type: number; subnodes: string[]; data?: Record<string, unknown>; output_data: Record<string, Record<string, unknown>> };
const synth = JSON.parse(readFileSync(SYNTH, 'utf8')) as { NPU: { node: Record<string, VisNode> }; Colors: Record<string, { value: number[] }> };

const RELATIVE = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr'];
const pct = (cell: unknown) => (typeof cell === 'string' && /^[\d.]+%$/.test(cell) ? Number(cell.slice(0, -1)) / 100 : 0);

/** The test's own reading of §3.8: the output item and column holding the largest relative error. */
function largestOutputCell(node: VisNode): { item: string; column: string; text: string } {
  let best = { item: '', column: '', text: '', v: -1 };
  for (const [key, item] of Object.entries(node.output_data))
    for (const column of RELATIVE) if (pct(item[column]) > best.v) best = { item: key, column, text: String(item[column]), v: pct(item[column]) };
  return best;
}

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);

describeBrowser('issue 14 triage panels in Chromium', () => {
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

  async function newPage(height = 900): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return page;
  }

  it('item 3: a red node shows its precision index, bucket and swatch in the header, and the driving cell is marked', async () => {
    // A red module whose index is below 1, so the value shown is not a coincidence.
    const [id, red] = Object.entries(synth.NPU.node).find(([, n]) => {
      const v = n.data?.precision_index;
      return typeof v === 'number' && v >= 0.8 && v < 1;
    })!;
    const value = red.data!.precision_index as number;
    const drive = largestOutputCell(red);
    expect(pct(drive.text)).toBeCloseTo(value, 6);
    const redColor = Object.entries(synth.Colors).find(([, b]) => b.value.length === 2 && b.value[0] <= value && value <= b.value[1])![0];

    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer&side=npu&node=${id}`);
    const badge = page.locator('[data-testid="info-precision"]');
    await badge.waitFor({ timeout: 20_000 });
    await expect(page.locator('[data-testid="info-precision-value"]').textContent()).resolves.toBe(value.toFixed(4));
    expect(Number(await badge.getAttribute('data-value'))).toBe(value);
    await expect(page.locator('[data-testid="info-precision-swatch"]').getAttribute('data-color')).resolves.toBe(redColor);
    await expect(page.locator('[data-testid="info-precision-bucket"]').textContent()).resolves.toMatch(/0\.8.*1/);
    // The tooltip says why, naming the column.
    await expect(badge.getAttribute('title')).resolves.toContain(drive.column);

    // Exactly one marked cell: the NPU row of that output, in that column, with the file's text and the reason.
    const marked = page.locator('[data-testid="info-table"] td[data-drives="true"]');
    await expect(marked.count()).resolves.toBe(1);
    await expect(marked.textContent()).resolves.toBe(drive.text);
    await expect(marked.getAttribute('data-column')).resolves.toBe(drive.column);
    const row = page.locator('[data-testid="info-row"]:has(td[data-drives="true"])');
    await expect(row.getAttribute('data-side')).resolves.toBe('npu');
    await expect(row.locator('th').textContent()).resolves.toContain(drive.item.slice(id.length + 1));
    await expect(marked.getAttribute('title')).resolves.toContain('sets the precision index');
    await page.screenshot({ path: screenshotPath('triage-precision-header') });

    // Chinese: the header label is translated.
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer&side=npu&node=${id}&lang=zh-CN`);
    await page.reload();
    await expect.poll(() => badge.textContent(), { timeout: 20_000 }).toContain('精度指标');
    await page.context().close();
  });

  it('item 10: the overflow level of a node is shown in the header, translated', async () => {
    const mock = JSON.parse(readFileSync(path.join(repoRoot, FIXTURES, 'compare/mock_compare.vis'), 'utf8'));
    const [id, n] = Object.entries<any>(mock.NPU.node).find(([, v]) => v.data?.overflow_level)!;
    expect(n.data.overflow_level).toBe('medium');
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=compare&tag=mock_compare&side=npu&node=${encodeURIComponent(id)}&lang=en`);
    const overflow = page.locator('[data-testid="info-overflow"]');
    await overflow.waitFor({ timeout: 20_000 });
    await expect(overflow.textContent()).resolves.toBe('Overflow: medium');
    // Another node without a level shows none.
    const other = Object.keys(mock.NPU.node).find((k) => !mock.NPU.node[k].data?.overflow_level && k !== id)!;
    await page.goto(`${server.origin}/#graphs?run=compare&tag=mock_compare&side=npu&node=${encodeURIComponent(other)}&lang=en`);
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').textContent(), { timeout: 20_000 }).toContain(other);
    await expect.poll(() => overflow.count()).toBe(0);
    const zh = await newPage();
    await zh.goto(`${server.origin}/#graphs?run=compare&tag=mock_compare&side=npu&node=${encodeURIComponent(id)}&lang=zh-CN`);
    await zh.locator('[data-testid="info-overflow"]').waitFor({ timeout: 20_000 });
    await expect(zh.locator('[data-testid="info-overflow"]').textContent()).resolves.toBe('溢出: 中');
    await zh.context().close();
    await page.context().close();
  });

  it('item 1: leaf-only hint, results in view at 1600×900, full names with value and swatch, sort by severity', async () => {
    const ranges = Object.entries(synth.Colors).filter(([, b]) => b.value.length === 2);
    const redIndex = ranges.findIndex(([, b]) => b.value[1] === 1);
    const redColor = ranges[redIndex][0];
    const inRed = (v: unknown) => typeof v === 'number' && v >= ranges[redIndex][1].value[0];
    const red = Object.entries(synth.NPU.node).filter(([, n]) => inRed(n.data?.precision_index));
    const redLeaves = red.filter(([, n]) => n.subnodes.length === 0);
    // The fixture's point: every red node is a module, so "Leaf nodes only" finds nothing.
    expect(redLeaves.length).toBe(0);
    expect(red.length).toBeGreaterThan(3);

    const page = await newPage(900);
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer&lang=en`);
    await node(page, 'npu', 'Module.module.Float16Module.forward.0').waitFor({ timeout: 20_000 });
    await expect(page.locator('[data-testid="filter-leaves"]').isChecked()).resolves.toBe(true);
    await page.locator(`[data-testid="filter-bucket-${redIndex}"]`).check();

    const inView = (testId: string) =>
      page.locator(`[data-testid="${testId}"]`).evaluate((el) => {
        const r = el.getBoundingClientRect();
        const side = el.closest('.pb-sidebar__body')!.getBoundingClientRect();
        return r.height > 0 && r.top >= side.top - 1 && r.top + Math.min(r.height, 60) <= Math.min(side.bottom, window.innerHeight) + 1;
      });

    const hint = page.locator('[data-testid="filter-modules-hint"]');
    await hint.waitFor({ timeout: 20_000 });
    await expect(page.locator('[data-testid="filter-count"]').getAttribute('data-total')).resolves.toBe('0');
    await expect(hint.getAttribute('data-count')).resolves.toBe(String(red.length));
    await expect(hint.textContent()).resolves.toBe(`${red.length} modules match — untick “Leaf nodes only” to list them.`);
    await expect.poll(() => inView('filter-modules-hint')).toBe(true);
    await page.screenshot({ path: screenshotPath('triage-filter-hint') });

    // Untick: the modules are listed, in execution order (the API's), in view without touching the sidebar's scroll.
    await page.locator('[data-testid="filter-leaves"]').uncheck();
    const rows = page.locator('[data-testid="filter-list"] .pb-found__item');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(red.length);
    await expect(hint.count()).resolves.toBe(0);
    await expect.poll(() => inView('filter-list')).toBe(true);
    const lo = ranges[redIndex][1].value[0];
    const api = (await (await page.request.get(`${server.origin}/api/graph/filter?run=compare&tag=synth_2layer&side=npu&precision=${lo}-1`)).json()) as {
      results: Array<{ id: string; precisionIndex: number }>;
    };
    const ids = () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-found-id')));
    expect(await ids()).toEqual(api.results.map((r) => r.id));

    // Each row: the whole name (title and text), its value and the bucket's swatch; the name's end is not cut.
    const first = rows.first();
    const firstId = api.results[0].id;
    await expect(first.getAttribute('title')).resolves.toContain(firstId);
    await expect(first.locator('.pb-found__name').textContent()).resolves.toBe(firstId);
    await expect(first.locator('.pb-found__value').textContent()).resolves.toBe(String(Number(api.results[0].precisionIndex.toFixed(4))));
    await expect(first.locator('.pb-found__swatch').getAttribute('data-color')).resolves.toBe(redColor);
    const tailVisible = await first.evaluate((el) => {
      const tail = el.querySelector('.pb-found__tail');
      if (!tail) return true;
      const t = tail.getBoundingClientRect();
      const b = el.querySelector('.pb-found__name')!.getBoundingClientRect();
      const h = el.querySelector('.pb-found__head')!.getBoundingClientRect();
      return t.width > 0 && t.right <= b.right + 1 && t.left >= b.left && h.width > 10;
    });
    expect(tailVisible).toBe(true);

    // Sort by severity: worst first, ties in execution order; back to execution order.
    const values = () => rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-precision'))));
    const execValues = await values();
    const worstFirst = api.results
      .map((r, i) => ({ r, i }))
      .sort((a, b) => b.r.precisionIndex - a.r.precisionIndex || a.i - b.i)
      .map((x) => x.r.id);
    expect(worstFirst).not.toEqual(api.results.map((r) => r.id));
    await page.selectOption('[data-testid="filter-sort"]', 'severity');
    await expect.poll(ids).toEqual(worstFirst);
    const sorted = await values();
    expect(sorted).toEqual([...execValues].sort((a, b) => b - a));
    await page.screenshot({ path: screenshotPath('triage-filter-sorted') });
    // Picking a row in the sorted list selects that node.
    await rows.nth(0).click();
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').textContent(), { timeout: 20_000 }).toContain(worstFirst[0]);
    await page.selectOption('[data-testid="filter-sort"]', 'exec');
    await expect.poll(ids).toEqual(api.results.map((r) => r.id));
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });
});
