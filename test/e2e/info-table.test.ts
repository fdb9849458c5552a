import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';

/**
 * Issue 14 item 12, in Chromium at 1280×720 on the bundled compare fixture: the Side/Name columns and the header stay
 * in view while the table scrolls, numbers are right-aligned in tabular monospace digits, columns resize by dragging a
 * header edge (widths kept while the file is open), and long node names do not wrap the info tabs.
 */
const FIXTURES = 'test/fixtures/e2e';
const MODULE = 'Module.module.Float16Module.forward.0';
const CHILD = 'Module.module.module.GPTModel.forward.0';

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);
const BODY = '[data-testid="info-panel"] .pb-info__body';
const TABLE = '[data-testid="info-table"]';

async function box(page: Page, selector: string) {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`no box for ${selector}`);
  return b;
}

async function style(page: Page, selector: string, prop: string): Promise<string> {
  return page.locator(selector).first().evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), prop);
}

async function headerWidth(page: Page, col: string): Promise<number> {
  return (await box(page, `${TABLE} thead th[data-col="${col}"]`)).width;
}

async function dragEdge(page: Page, col: string, dx: number): Promise<void> {
  const handle = await box(page, `${TABLE} thead th[data-col="${col}"] [data-testid="info-col-resize"]`);
  const x = handle.x + handle.width / 2;
  const y = handle.y + handle.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y, { steps: 4 });
  await page.mouse.move(x + dx, y, { steps: 4 });
  await page.mouse.up();
}

describeBrowser('info table (issue 14 item 12)', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer([`${FIXTURES}/build`, `${FIXTURES}/compare`]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function openChild(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/`);
    await expect.poll(() => page.url()).toContain('#graphs?');
    await page.locator('[data-testid="run-select"] option[value="compare"]').waitFor({ state: 'attached' });
    await page.selectOption('[data-testid="run-select"]', 'compare');
    await page.selectOption('[data-testid="tag-select"]', 'synth_2layer');
    await node(page, 'npu', MODULE).waitFor();
    await node(page, 'npu', MODULE).dblclick();
    await node(page, 'npu', CHILD).waitFor();
    await node(page, 'npu', CHILD).click();
    await page.locator(`${TABLE} tbody tr`).nth(3).waitFor();
    return page;
  }

  it('aligns numbers right in tabular monospace digits and text left', async () => {
    const page = await openChild();
    const max = `${TABLE} tbody td[data-column="Max"]`;
    await expect(page.locator(max).first().textContent()).resolves.toMatch(/^-?\d/);
    expect(await style(page, max, 'text-align')).toBe('right');
    expect(await style(page, max, 'font-family')).toContain('monospace');
    expect(await style(page, max, 'font-variant-numeric')).toContain('tabular-nums');
    expect(await style(page, `${TABLE} tbody td[data-column="MaxRelativeErr"]`, 'text-align')).toBe('right');
    for (const text of [`${TABLE} tbody td[data-column="dtype"]`, `${TABLE} tbody td[data-column="shape"]`, `${TABLE} tbody .pb-table__name`]) {
      expect(await style(page, text, 'text-align'), text).toBe('left');
      expect(await style(page, text, 'font-family'), text).not.toContain('monospace');
    }
    await page.context().close();
  });

  it('keeps Side and Name at the left edge while scrolling right, and the header at the top while scrolling down', async () => {
    const page = await openChild();
    // Make the table wider than the panel (a wide shape column) so that it scrolls sideways.
    await dragEdge(page, 'shape', 900);
    const scroll = await page.locator(BODY).evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
    expect(scroll.sw).toBeGreaterThan(scroll.cw + 300);

    const bodyBox = await box(page, BODY);
    const nameSel = `${TABLE} tbody tr:nth-child(3) .pb-table__name`;
    const sideSel = `${TABLE} tbody tr:nth-child(3) .pb-table__side`;
    const dtypeSel = `${TABLE} tbody tr:nth-child(3) td[data-column="dtype"]`;
    const nameBefore = await box(page, nameSel);
    const sideBefore = await box(page, sideSel);
    const dtypeBefore = await box(page, dtypeSel);
    expect(Math.abs(sideBefore.x - bodyBox.x)).toBeLessThanOrEqual(2);

    await page.locator(BODY).evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    const scrolled = await page.locator(BODY).evaluate((el) => el.scrollLeft);
    expect(scrolled).toBeGreaterThan(300);
    await expect.poll(async () => (await box(page, dtypeSel)).x).toBeLessThan(dtypeBefore.x - 300);
    const nameAfter = await box(page, nameSel);
    const sideAfter = await box(page, sideSel);
    expect(Math.abs(nameAfter.x - nameBefore.x)).toBeLessThanOrEqual(1);
    expect(Math.abs(sideAfter.x - bodyBox.x)).toBeLessThanOrEqual(2);
    // Name follows Side without a gap or overlap, and both are opaque (scrolled cells do not show through).
    expect(Math.abs(nameAfter.x - (sideAfter.x + sideAfter.width))).toBeLessThanOrEqual(2);
    for (const sel of [nameSel, sideSel, `${TABLE} tbody tr:nth-child(4) .pb-table__name`, `${TABLE} thead th[data-col="#name"]`])
      expect(await style(page, sel, 'background-color'), sel).not.toMatch(/rgba\(0, 0, 0, 0\)|transparent/);
    // What is drawn at the Name cell's centre is the Name cell, not a scrolled-under cell.
    const hit = await page.evaluate(
      ([x, y]) => document.elementFromPoint(x, y)?.closest('th,td')?.className ?? '',
      [nameAfter.x + nameAfter.width / 2, nameAfter.y + nameAfter.height / 2],
    );
    expect(hit).toContain('pb-table__name');
    await page.screenshot({ path: screenshotPath('info-table-scrolled-right') });

    // Shrink the panel so the rows overflow, scroll down: the header row stays at the top of the panel body.
    const edge = await box(page, '[data-testid="info-resize"]');
    await page.mouse.move(edge.x + 300, edge.y + edge.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge.x + 300, 720 - 100, { steps: 5 });
    await page.mouse.up();
    const vert = await page.locator(BODY).evaluate((el) => ({ sh: el.scrollHeight, ch: el.clientHeight }));
    expect(vert.sh).toBeGreaterThan(vert.ch + 20);
    await page.locator(BODY).evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    expect(await page.locator(BODY).evaluate((el) => el.scrollTop)).toBeGreaterThan(20);
    const body2 = await box(page, BODY);
    const head = await box(page, `${TABLE} thead th[data-col="Max"]`);
    expect(Math.abs(head.y - body2.y)).toBeLessThanOrEqual(2);
    const cornerName = await box(page, `${TABLE} thead th[data-col="#name"]`);
    expect(Math.abs(cornerName.y - body2.y)).toBeLessThanOrEqual(2);
    expect(Math.abs(cornerName.x - nameAfter.x)).toBeLessThanOrEqual(1);
    await page.context().close();
  });

  it('resizes a column by the drag distance and keeps the widths while the same file is open', async () => {
    const page = await openChild();
    const max0 = await headerWidth(page, 'Max');
    const dtype0 = await headerWidth(page, 'dtype');
    await dragEdge(page, 'Max', 60);
    await expect.poll(() => headerWidth(page, 'Max')).toBeGreaterThan(max0 + 55);
    expect(Math.abs((await headerWidth(page, 'Max')) - (max0 + 60))).toBeLessThanOrEqual(2);
    expect(Math.abs((await headerWidth(page, 'dtype')) - dtype0)).toBeLessThanOrEqual(2);
    // Body cells follow their header.
    expect(Math.abs((await box(page, `${TABLE} tbody td[data-column="Max"]`)).width - (max0 + 60))).toBeLessThanOrEqual(2);

    await dragEdge(page, 'Max', -40);
    await expect.poll(async () => Math.round(await headerWidth(page, 'Max'))).toBeLessThan(max0 + 30);
    expect(Math.abs((await headerWidth(page, 'Max')) - (max0 + 20))).toBeLessThanOrEqual(2);
    await dragEdge(page, '#name', 50);
    const name1 = await headerWidth(page, '#name');

    // Another node, the other tab and back: the widths stay.
    await node(page, 'npu', MODULE).click({ position: { x: 4, y: 4 } });
    await expect.poll(() => node(page, 'npu', MODULE).getAttribute('data-selected')).toBe('true');
    await page.locator('[data-testid="info-tab-node"]').click();
    await page.locator('[data-testid="info-tab-io"]').click();
    await node(page, 'npu', CHILD).click();
    await page.locator(`${TABLE} tbody tr`).nth(3).waitFor();
    expect(Math.abs((await headerWidth(page, 'Max')) - (max0 + 20))).toBeLessThanOrEqual(2);
    expect(Math.abs((await headerWidth(page, '#name')) - name1)).toBeLessThanOrEqual(2);

    // Keyboard: the focused edge grows by 10 px per arrow.
    await page.locator(`${TABLE} thead th[data-col="Max"] [data-testid="info-col-resize"]`).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => Math.round(await headerWidth(page, 'Max'))).toBeGreaterThan(max0 + 27);

    // Another file: automatic widths again.
    await page.selectOption('[data-testid="tag-select"]', 'mock_compare');
    await expect.poll(() => page.url()).toContain('tag=mock_compare');
    await expect(page.locator(`${TABLE}[data-fixed="true"]`).count()).resolves.toBe(0);
    await page.context().close();
  });

  it('ends long node names in an ellipsis instead of wrapping the info tabs', async () => {
    const page = await openChild();
    const tabH = (await box(page, '[data-testid="info-tab-io"]')).height;
    await page.setViewportSize({ width: 700, height: 720 });
    await expect.poll(async () => (await box(page, '[data-testid="info-tab-io"]')).width).toBeGreaterThan(20);
    const tab = await box(page, '[data-testid="info-tab-io"]');
    expect(Math.abs(tab.height - tabH)).toBeLessThanOrEqual(1);
    expect(await style(page, '[data-testid="info-tab-io"]', 'white-space')).toBe('nowrap');
    const label = await page.locator('[data-testid="info-tab-io"]').evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
    expect(label.sw).toBeLessThanOrEqual(label.cw + 1);
    const npuNode = page.locator('[data-testid="info-npu-node"]');
    await expect(npuNode.getAttribute('title')).resolves.toBe(CHILD);
    expect(await style(page, '[data-testid="info-npu-node"]', 'text-overflow')).toBe('ellipsis');
    const cut = await npuNode.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth }));
    expect(cut.sw).toBeGreaterThan(cut.cw);
    // The bar stays one line high.
    const bar = await box(page, '[data-testid="info-panel"] .pb-info__bar');
    expect(bar.height).toBeLessThan(tabH + 8);
    await page.screenshot({ path: screenshotPath('info-table-narrow-bar') });
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });
});
