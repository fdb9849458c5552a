import { readFileSync } from 'node:fs';
import type { Browser, BrowserContextOptions, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SHORTCUTS } from '../../src/app/commands/shortcuts.js';
import { en } from '../../src/app/i18n/en.js';
import { zhCN } from '../../src/app/i18n/zhCN.js';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { parseCsv } from '../helpers/csv.js';

/**
 * Issue 14 item 14 in Chromium: dark mode (system and toggle), the `?` shortcuts overlay, SVG/PNG export of a pane's
 * view, CSV of the info table, and the Chinese labels that used to show English.
 */
const FIXTURES = 'test/fixtures/e2e';
const MODULE = 'Module.module.Float16Module.forward.0';
const CHILD = 'Module.module.module.GPTModel.forward.0';

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);

/** Relative luminance of a computed `rgb(…)` colour, 0 (black) … 1 (white). */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => Number(v) / 255);
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

const computed = (page: Page, selector: string, prop: string) =>
  page.locator(selector).first().evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), prop);

async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = await download.path();
  if (!file) throw new Error(`download ${download.suggestedFilename()} failed: ${await download.failure()}`);
  return { download, bytes: readFileSync(file) };
}

describeBrowser('dark mode, export, shortcuts, zh labels (issue 14 item 14)', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer([`${FIXTURES}/build`, `${FIXTURES}/compare`]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function open(options: BrowserContextOptions = {}, tag = 'synth_2layer'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1400, height: 860 }, ...options });
    const page = await context.newPage();
    await page.goto(`${server.origin}/`);
    await expect.poll(() => page.url()).toContain('#graphs?');
    await page.locator('[data-testid="run-select"] option[value="compare"]').waitFor({ state: 'attached' });
    await page.selectOption('[data-testid="run-select"]', 'compare');
    await page.selectOption('[data-testid="tag-select"]', tag);
    await page.locator('[data-testid="pane-npu"] .pb-node').first().waitFor();
    return page;
  }

  async function openChild(options: BrowserContextOptions = {}): Promise<Page> {
    const page = await open(options);
    await node(page, 'npu', MODULE).dblclick();
    await node(page, 'npu', CHILD).waitFor();
    await node(page, 'npu', CHILD).click();
    await page.locator('[data-testid="info-table"] tbody tr').nth(3).waitFor();
    return page;
  }

  it('follows prefers-color-scheme: dark surfaces, light text, file colours kept, readable labels', async () => {
    const page = await openChild({ colorScheme: 'dark' });
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(luminance(await computed(page, 'body', 'background-color'))).toBeLessThan(0.05);
    expect(luminance(await computed(page, 'body', 'color'))).toBeGreaterThan(0.6);
    for (const sel of ['[data-testid="sidebar"]', '[data-testid="info-panel"] .pb-info__bar', '[data-testid="pane-npu"]', '[data-testid="info-table"] thead th'])
      expect(luminance(await computed(page, sel, 'background-color')), sel).toBeLessThan(0.1);

    // A Bench node is drawn on a neutral fill (white in the file's palette): dark here, with a light label.
    const bench = `[data-testid="pane-bench"] .pb-node[data-node-id="${MODULE}"]`;
    await page.locator(bench).waitFor();
    expect(await page.locator(`${bench} > rect`).getAttribute('fill')).toMatch(/^#ffffff$/i);
    expect(luminance(await computed(page, `${bench} > rect`, 'fill'))).toBeLessThan(0.05);
    expect(luminance(await computed(page, `${bench} > text`, 'fill'))).toBeGreaterThan(0.6);

    // An NPU node with a bucket colour keeps the file's colour, and its label stays dark on it.
    const coloured = await page
      .locator('[data-testid="pane-npu"] .pb-node > rect, [data-testid="pane-npu"] .pb-node > ellipse')
      .evaluateAll((els) => els.map((el) => ({ attr: el.getAttribute('fill') ?? '', css: getComputedStyle(el).fill })).filter((f) => !/^#(ffffff|eef1f6|f6f8fa)$/i.test(f.attr)));
    expect(coloured.length).toBeGreaterThan(0);
    for (const f of coloured) {
      const hex = f.attr.replace('#', '');
      const expected = `rgb(${parseInt(hex.slice(0, 2), 16)}, ${parseInt(hex.slice(2, 4), 16)}, ${parseInt(hex.slice(4, 6), 16)})`;
      expect(f.css, f.attr).toBe(expected);
    }
    const npuLabel = await computed(page, `[data-testid="pane-npu"] .pb-node[data-node-id="${CHILD}"] > text`, 'fill');
    const npuFill = await computed(page, `[data-testid="pane-npu"] .pb-node[data-node-id="${CHILD}"] > rect`, 'fill');
    const contrast = (Math.max(luminance(npuLabel), luminance(npuFill)) + 0.05) / (Math.min(luminance(npuLabel), luminance(npuFill)) + 0.05);
    expect(contrast).toBeGreaterThan(4.5);
    await page.screenshot({ path: screenshotPath('extras-dark') });
    await page.context().close();

    const light = await openChild({ colorScheme: 'light' });
    expect(await light.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    expect(luminance(await computed(light, 'body', 'background-color'))).toBeGreaterThan(0.9);
    await light.screenshot({ path: screenshotPath('extras-light') });
    await light.context().close();
  });

  it('keeps the dark / light / auto toggle after a reload', async () => {
    const page = await open({ colorScheme: 'light' });
    await page.click('[data-testid="theme-dark"]');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(luminance(await computed(page, 'body', 'background-color'))).toBeLessThan(0.05);
    await page.reload();
    await page.locator('[data-testid="theme-dark"][aria-pressed="true"]').waitFor();
    expect(luminance(await computed(page, 'body', 'background-color'))).toBeLessThan(0.05);
    // Back to auto: the system (light here) decides again, and that too survives a reload.
    await page.click('[data-testid="theme-auto"]');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.reload();
    await page.locator('[data-testid="theme-auto"][aria-pressed="true"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await page.context().close();
  });

  it('opens the shortcuts overlay on ? and the toolbar button, lists every binding, closes on Esc, ignores ? while typing', async () => {
    const page = await open();
    await page.locator('body').press('?');
    const overlay = page.locator('[data-testid="shortcuts-overlay"]');
    await overlay.waitFor();
    const rows = await page.locator('[data-testid="shortcut-row"]').evaluateAll((trs) => trs.map((tr) => ({ id: tr.getAttribute('data-shortcut'), text: tr.textContent })));
    expect(rows.map((r) => r.id).sort()).toEqual(SHORTCUTS.map((s) => s.id).sort());
    for (const s of SHORTCUTS) expect(rows.find((r) => r.id === s.id)?.text).toBe(`${en[s.keys]}${en[s.action]}`);
    await page.screenshot({ path: screenshotPath('extras-shortcuts') });
    await page.keyboard.press('Escape');
    await expect.poll(() => overlay.count()).toBe(0);

    await page.fill('[data-testid="search-input"]', 'Module');
    await page.locator('[data-testid="search-input"]').press('?');
    expect(await page.locator('[data-testid="search-input"]').inputValue()).toBe('Module?');
    expect(await overlay.count()).toBe(0);

    await page.click('[data-testid="shortcuts-button"]');
    await overlay.waitFor();
    await page.click('[data-testid="shortcuts-close"]');
    await expect.poll(() => overlay.count()).toBe(0);
    await page.context().close();
  });

  it('exports the NPU pane view as a self-contained SVG holding the visible nodes, and as a PNG at device pixel ratio', async () => {
    const page = await open({ deviceScaleFactor: 2 });
    await node(page, 'npu', MODULE).dblclick();
    await node(page, 'npu', CHILD).waitFor();
    // The ids drawn inside the pane's box, as the page shows them.
    const visible = await page.evaluate(() => {
      const pane = document.querySelector('[data-testid="pane-npu"] svg')!.getBoundingClientRect();
      return [...document.querySelectorAll('[data-testid="pane-npu"] .pb-node')]
        .filter((g) => {
          const b = g.getBoundingClientRect();
          return b.right > pane.left && b.left < pane.right && b.bottom > pane.top && b.top < pane.bottom;
        })
        .map((g) => g.getAttribute('data-node-id')!);
    });
    expect(visible).toContain(CHILD);

    const svg = await downloaded(page, () => page.click('[data-testid="export-svg-npu"]'));
    expect(svg.download.suggestedFilename()).toBe('compare-synth_2layer-npu-view.svg');
    const text = svg.bytes.toString('utf8');
    expect(text).not.toMatch(/href|url\(|<style|<script|<image/);
    const parsed = await page.evaluate((source) => {
      const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
      if (doc.querySelector('parsererror')) return null;
      return {
        ids: [...doc.querySelectorAll('[data-node-id]')].map((g) => g.getAttribute('data-node-id')!),
        width: doc.documentElement.getAttribute('width'),
        labels: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      };
    }, text);
    expect(parsed).not.toBeNull();
    expect(new Set(parsed!.ids)).toEqual(new Set(visible));
    const paneWidth = await page.locator('[data-testid="pane-npu"] svg').evaluate((el) => el.clientWidth);
    expect(Number(parsed!.width)).toBe(paneWidth);
    const drawnLabels = await page.locator('[data-testid="pane-npu"] .pb-node > text').allTextContents();
    expect(parsed!.labels.filter((l) => l).every((l) => drawnLabels.includes(l!))).toBe(true);

    const png = await downloaded(page, () => page.click('[data-testid="export-png-npu"]'));
    expect(png.download.suggestedFilename()).toBe('compare-synth_2layer-npu-view.png');
    expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const size = await page.locator('[data-testid="pane-npu"] svg').evaluate((el) => ({ w: el.clientWidth, h: el.clientHeight }));
    expect(png.bytes.readUInt32BE(16)).toBe(size.w * 2);
    expect(png.bytes.readUInt32BE(20)).toBe(size.h * 2);
    expect(png.bytes.length).toBeGreaterThan(2000);
    // Decoded, the image is the view: the background at a corner, the selected-group's file colour where it is drawn.
    const box = (await node(page, 'npu', MODULE).locator('rect').boundingBox())!;
    const origin = (await page.locator('[data-testid="pane-npu"] svg').boundingBox())!;
    const pixels = await page.evaluate(
      async ({ data, at }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(image, 0, 0);
        const rgb = (x: number, y: number) => [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)];
        return { corner: rgb(2, image.height - 2), inside: rgb(at.x, at.y) };
      },
      { data: png.bytes.toString('base64'), at: { x: Math.round((box.x - origin.x + 6) * 2), y: Math.round((box.y - origin.y + box.height - 6) * 2) } },
    );
    const fill = (await node(page, 'npu', MODULE).locator('rect').getAttribute('fill'))!.replace('#', '');
    expect(pixels.inside).toEqual([0, 2, 4].map((i) => parseInt(fill.slice(i, i + 2), 16)));
    expect(pixels.corner).toEqual([255, 255, 255]);
    await page.context().close();
  });

  it('exports the far-zoom view (drawn on the canvas) with the nodes the canvas drew', async () => {
    const page = await open();
    await node(page, 'npu', MODULE).dblclick();
    await node(page, 'npu', CHILD).waitFor();
    const pane = (await page.locator('[data-testid="pane-npu"] svg').boundingBox())!;
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 3);
    const canvas = page.locator('[data-testid="canvas-npu"]');
    for (let i = 0; i < 12 && (await canvas.getAttribute('data-active')) !== 'true'; i++) {
      await page.keyboard.press('s');
      await page.waitForTimeout(50);
    }
    await expect.poll(() => canvas.getAttribute('data-active')).toBe('true');
    const drawn = Number(await canvas.getAttribute('data-drawn'));
    expect(drawn).toBeGreaterThan(2);
    const svg = await downloaded(page, () => page.click('[data-testid="export-svg-npu"]'));
    const text = svg.bytes.toString('utf8');
    const ids = [...text.matchAll(/data-node-id="([^"]*)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(drawn);
    expect(ids).toContain(CHILD);
    expect(text).not.toContain('<text');
    await page.context().close();
  });

  it('downloads the info table as CSV that reads back as the cells on screen', async () => {
    const page = await openChild();
    const table = await page.locator('[data-testid="info-table"]').evaluate((el) => [
      [...el.querySelectorAll('thead th')].map((th) => th.textContent ?? ''),
      ...[...el.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent ?? '')),
    ]);
    expect(table.length).toBeGreaterThan(3);
    const csv = await downloaded(page, () => page.click('[data-testid="info-csv"]'));
    expect(csv.download.suggestedFilename()).toBe(`compare-synth_2layer-${CHILD}.csv`);
    expect([...csv.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(parseCsv(csv.bytes.toString('utf8'))).toEqual(table);
    const sides = new Set(table.slice(1).map((r) => r[0]));
    expect(sides).toEqual(new Set([en['info.side.npu'], en['info.side.bench']]));
    await page.context().close();
  });

  it('downloads the search hits as CSV, in the list order', async () => {
    const page = await open();
    await page.fill('[data-testid="search-input"]', 'forward');
    await page.locator('[data-testid="search-input"]').press('Enter');
    await page.locator('[data-testid="search-list"]').waitFor();
    const listed = await page.locator('[data-testid="search-list"] [data-found-id]').evaluateAll((bs) => bs.map((b) => b.getAttribute('data-found-id')));
    const csv = await downloaded(page, () => page.click('[data-testid="search-csv"]'));
    expect(csv.download.suggestedFilename()).toBe('compare-synth_2layer-npu-search.csv');
    const rows = parseCsv(csv.bytes.toString('utf8'));
    expect(rows[0]).toEqual([en['csv.colNode'], en['info.precision'], en['worst.colType'], en['csv.colPath']]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(listed);
    await page.context().close();
  });

  it('shows no English label in Chinese where the catalogue used to leave it (micro step, overflow levels, shortcuts)', async () => {
    const page = await open({}, 'mock_compare');
    await page.click('[data-testid="lang-zh"]');
    await expect.poll(() => page.locator('[data-testid="sidebar"]').textContent()).toContain(zhCN['picker.micro']);
    const sidebar = (await page.locator('[data-testid="sidebar"]').innerText()).replace(/\s+/g, ' ');
    expect(sidebar).not.toContain('MicroStep');
    for (const level of ['medium', 'high', 'critical'] as const) {
      expect(sidebar).not.toMatch(new RegExp(`\\b${level}\\b`, 'i'));
      expect(sidebar).toContain(zhCN['filter.overflow'].replace('{level}', zhCN[`overflow.${level}`]));
    }
    await page.click('[data-testid="shortcuts-button"]');
    const overlay = await page.locator('[data-testid="shortcuts-overlay"]').innerText();
    for (const s of SHORTCUTS) {
      expect(overlay).toContain(zhCN[s.action]);
      expect(overlay).not.toContain(en[s.action]);
    }
    await page.screenshot({ path: screenshotPath('extras-zh-shortcuts') });
    await page.context().close();
  });
});
