import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * The browser checks, in real Chromium against the real server over a temp log dir holding the committed
 * fixtures (runs `build` and `compare`). Expected table cells are read from the fixture files themselves.
 */
const FIXTURES = 'test/fixtures/e2e';
const MODULE = 'Module.module.Float16Module.forward.0';
const CHILD = 'Module.module.module.GPTModel.forward.0';

type VisItem = Record<string, unknown>;
type VisNode = { input_data: Record<string, VisItem>; output_data: Record<string, VisItem> };
function fixtureNode(file: string, side: 'NPU' | 'Bench', id: string): VisNode {
  const doc = JSON.parse(readFileSync(path.join(repoRoot, FIXTURES, file), 'utf8'));
  return doc[side].node[id];
}

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);

async function tableRows(page: Page): Promise<string[][]> {
  return page.locator('[data-testid="info-table"] tbody tr').evaluateAll((rows) =>
    rows.map((r) => Array.from(r.children).map((c) => (c.textContent ?? '').trim())),
  );
}

async function tableHeader(page: Page): Promise<string[]> {
  return page.locator('[data-testid="info-table"] thead th').evaluateAll((ths) => ths.map((th) => (th.textContent ?? '').trim()));
}

async function openCompareSample(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/`);
  await expect.poll(() => page.url()).toContain('#graphs?');
  await page.locator('[data-testid="run-select"] option[value="compare"]').waitFor({ state: 'attached' });
  await page.selectOption('[data-testid="run-select"]', 'compare');
  await page.selectOption('[data-testid="tag-select"]', 'synth_2layer');
  await node(page, 'npu', MODULE).waitFor();
}

describeBrowser('viewer in Chromium', () => {
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

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => {
      pageErrors.push(`unexpected dialog: ${d.message()}`);
      void d.dismiss();
    });
    return page;
  }

  it('opens the compare sample, expands a module, zooms with W, selects a node and restores it from a copied link', async () => {
    const page = await newPage();
    await openCompareSample(page, server.origin);
    await expect.poll(() => page.url()).toContain('tag=synth_2layer');
    await expect(page.locator('[data-testid="pane-bench"]').count()).resolves.toBe(1);

    // Double-click expands the module: its child appears.
    await expect(node(page, 'npu', CHILD).count()).resolves.toBe(0);
    await node(page, 'npu', MODULE).dblclick();
    await node(page, 'npu', CHILD).waitFor();

    // W zooms in (pointer over the pane).
    const scaled = page.locator('[data-testid="pane-npu"] [data-scale]').first();
    const before = Number(await scaled.getAttribute('data-scale'));
    const box = (await page.locator('[data-testid="pane-npu"]').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.press('w');
    await expect.poll(async () => Number(await scaled.getAttribute('data-scale'))).toBeGreaterThan(before);

    // Single click selects; the counterpart is highlighted; the table shows the file's items.
    await node(page, 'npu', CHILD).click();
    await expect.poll(() => node(page, 'npu', CHILD).getAttribute('data-selected')).toBe('true');
    await expect.poll(() => node(page, 'bench', CHILD).getAttribute('data-counterpart')).toBe('true');
    await page.locator('[data-testid="info-table"] tbody tr').first().waitFor();
    const rows = await tableRows(page);
    const header = await tableHeader(page);
    const npuItems = fixtureNode('compare/synth_2layer.vis', 'NPU', CHILD);
    const benchItems = fixtureNode('compare/synth_2layer.vis', 'Bench', CHILD);
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      ['NPU', 'input.0'],
      ['Bench', 'input.0'],
      ['NPU', 'output.0'],
      ['Bench', 'output.0'],
    ]);
    const npuOut = npuItems.output_data[`${CHILD}.output.0`];
    const benchOut = benchItems.output_data[`${CHILD}.output.0`];
    for (const [column, value] of Object.entries(npuOut)) {
      if (column === 'data_name') continue;
      const col = header.indexOf(column);
      expect(col, column).toBeGreaterThan(1);
      expect(rows[2][col], column).toBe(value);
      expect(rows[3][col], column).toBe(column in benchOut ? benchOut[column] : '');
    }
    // Column explanations from the file's ToolTip.
    await expect(page.locator('[data-testid="info-table"] thead th', { hasText: 'Max diff' }).getAttribute('title')).resolves.toBe(
      'NPU与标杆API统计信息比对，最大值的差值',
    );
    await page.screenshot({ path: screenshotPath('compare-selected') });

    // The address bar holds the view; a fresh page restores the same file, selection and table.
    const link = page.url();
    expect(link).toContain(`side=npu&node=${CHILD}`);
    const fresh = await newPage();
    await fresh.goto(link);
    await expect.poll(() => node(fresh, 'npu', CHILD).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    await fresh.locator('[data-testid="info-table"] tbody tr').first().waitFor();
    expect(await tableRows(fresh)).toEqual(rows);
    await expect(fresh.locator('[data-testid="tag-select"]').inputValue()).resolves.toBe('synth_2layer');
    await fresh.screenshot({ path: screenshotPath('deep-link-restored') });
    await fresh.context().close();
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });

  it('lists a truncated file with its error, shows the server message when opened, and keeps serving others', async () => {
    const page = await newPage();
    await openCompareSample(page, server.origin);
    const option = page.locator('[data-testid="tag-select"] option[value="truncated"]');
    await expect(option.getAttribute('data-error')).resolves.toBe('true');
    await page.selectOption('[data-testid="tag-select"]', 'truncated');
    await expect(page.locator('[data-testid="file-error"]').textContent()).resolves.toContain('truncated.vis');
    const banner = page.locator('[data-testid="error-banner"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('truncated.vis');
    await page.screenshot({ path: screenshotPath('bad-file') });
    await page.selectOption('[data-testid="tag-select"]', 'synth_2layer');
    await node(page, 'npu', MODULE).waitFor();
    await page.context().close();
  });

  it('shows markup from files as text (deep link into a legacy file with <script> in its items)', async () => {
    const page = await newPage();
    await page.goto(`${server.origin}/#graphs?run=compare&tag=mock_compare&side=npu&node=AddOne_0`);
    await page.locator('[data-testid="info-table"] tbody tr').first().waitFor();
    const cells = (await tableRows(page)).flat();
    expect(cells).toContain('<script>alert(123)</script>');
    expect(await page.locator('[data-testid="info-table"] script').count()).toBe(0);
    await page.context().close();
    expect(pageErrors.filter((e) => e.startsWith('unexpected dialog'))).toEqual([]);
  });

  it('shows stack info per side on the second tab and copies it', async () => {
    const id = 'Tensor.__add__.0.forward';
    const doc = JSON.parse(readFileSync(path.join(repoRoot, FIXTURES, 'compare/lm_pt_vs_pt.vis'), 'utf8'));
    const page = await newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    await page.goto(`${server.origin}/#graphs?run=compare&tag=lm_pt_vs_pt&side=bench&node=${id}`);
    await expect.poll(() => node(page, 'bench', id).getAttribute('data-selected'), { timeout: 20_000 }).toBe('true');
    await expect.poll(() => node(page, 'npu', id).getAttribute('data-counterpart')).toBe('true');
    await page.click('[data-testid="info-tab-node"]');
    for (const side of ['npu', 'bench'] as const) {
      const expected = doc[side === 'npu' ? 'NPU' : 'Bench'].node[id].stack_info.join('\n');
      await expect(page.locator(`[data-testid="stack-${side}"]`).textContent()).resolves.toBe(expected);
    }
    await page.click('[data-testid="copy-stack-npu"]');
    await expect.poll(() => page.locator('[data-testid="copy-stack-npu"]').getAttribute('data-state')).toBe('copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(doc.NPU.node[id].stack_info.join('\n'));
    await page.screenshot({ path: screenshotPath('node-information') });
    await page.context().close();
  });

  it('switches the language, keeps it in the URL and after a reload', async () => {
    const page = await newPage();
    await openCompareSample(page, server.origin);
    await page.click('[data-testid="lang-zh"]');
    await expect(page.locator('[data-testid="info-tab-io"]').textContent()).resolves.toBe('比对详情');
    await expect.poll(() => page.url()).toContain('lang=zh-CN');
    await page.reload();
    await page.locator('[data-testid="info-tab-io"]').waitFor();
    await expect(page.locator('[data-testid="info-tab-io"]').textContent()).resolves.toBe('比对详情');
    await page.click('[data-testid="lang-en"]');
    await expect(page.locator('[data-testid="info-tab-io"]').textContent()).resolves.toBe('Comparison details');
    await page.context().close();
  });

  it('drags the splitter, and shows a build file in a single pane', async () => {
    const page = await newPage();
    await openCompareSample(page, server.origin);
    const npuPane = page.locator('[data-testid="pane-npu"]');
    const widthBefore = (await npuPane.boundingBox())!.width;
    const bar = (await page.locator('[data-testid="splitter"]').boundingBox())!;
    await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2);
    await page.mouse.down();
    await page.mouse.move(bar.x - 200, bar.y + bar.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await npuPane.boundingBox())!.width).toBeLessThan(widthBefore - 150);

    // The info panel's top edge drags its height.
    const info = page.locator('[data-testid="info-panel"]');
    const heightBefore = (await info.boundingBox())!.height;
    const edge = (await page.locator('[data-testid="info-resize"]').boundingBox())!;
    await page.mouse.move(edge.x + 300, edge.y + edge.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge.x + 300, edge.y - 150, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await info.boundingBox())!.height).toBeGreaterThan(heightBefore + 100);

    // Collapsing the sidebar gives the panes its width.
    const paneWidth = (await npuPane.boundingBox())!.width;
    await page.click('[data-testid="sidebar-toggle"]');
    await expect(page.locator('[data-testid="sidebar"]').getAttribute('data-open')).resolves.toBe('false');
    await expect.poll(async () => (await npuPane.boundingBox())!.width).toBeGreaterThan(paneWidth);
    await page.click('[data-testid="sidebar-toggle"]');

    // Micro step: ALL plus one entry per step of the file, kept in the URL.
    const microOptions = await page.locator('[data-testid="micro-select"] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(microOptions).toEqual(['-1', '0']);
    await page.selectOption('[data-testid="micro-select"]', '0');
    await expect.poll(() => page.url()).toContain('micro=0');
    await node(page, 'npu', MODULE).waitFor();
    await page.selectOption('[data-testid="micro-select"]', '-1');
    await expect.poll(() => page.url()).not.toContain('micro=');

    await page.selectOption('[data-testid="run-select"]', 'build');
    await page.locator('[data-testid="pane-npu"]').waitFor();
    await expect.poll(() => page.locator('[data-testid="pane-bench"]').count()).toBe(0);
    await expect(page.locator('[data-testid="splitter"]').count()).resolves.toBe(0);
    await page.screenshot({ path: screenshotPath('build-single-pane') });
    await page.context().close();
  });
});
