import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { bucketColor } from '../../src/core/colors/buckets.js';
import type { ColorBucket } from '../../src/core/api/types.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath } from '../helpers/browser.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { writeWideVis, type WideVis } from '../helpers/wideVis.js';

/**
 * Issue 14 items 7 and 8 in Chromium: the minimap, Fit on the 24-layer GPT example, bounded panning, labels that
 * keep forward and backward apart, and split groups shaded by their worst child. Expectations come from the files.
 */
// examples/ is rebuilt by `npm run build` (npm test runs it), its file names stamped with the build time.
const GPT_DIR = path.join(repoRoot, 'examples/gpt-compare');
const GPT = path.join(GPT_DIR, readdirSync(GPT_DIR).find((name) => /^compare_\d+\.vis$/.test(name)) ?? 'compare_missing.vis');
const FORWARD = 'Module.module.Float16Module.forward.0';
const GPT_MODEL = 'Module.module.module.GPTModel.forward.0';
const DECODER = 'Module.module.module.decoder.TransformerBlock.forward.0';
const APIS = 'Apis_Between_Modules.1';
const WIDE_CHILDREN = 2000;
const RED_AT = 1234;

type VisNode = { subnodes?: string[]; data?: { precision_index?: number } };
type VisDoc = { NPU: { node: Record<string, VisNode> }; Colors: Record<string, { value: number[] | string; description: string }> };
const gpt: VisDoc = JSON.parse(readFileSync(GPT, 'utf8'));

const node = (page: Page, id: string) => page.locator(`[data-testid="pane-npu"] [data-node-id="${id}"]`);
const scale = async (page: Page) => Number(await page.locator('[data-testid="viewport-npu"]').getAttribute('data-scale'));
const paneBox = async (page: Page) => (await page.locator('[data-testid="pane-npu"]').boundingBox())!;

/** Writes the wide fixture, then makes every child of the wide module good except one red one at RED_AT. */
function writeShadedWide(file: string): { wide: WideVis; doc: VisDoc } {
  const wide = writeWideVis(file, { children: WIDE_CHILDREN, needleAt: RED_AT });
  const doc: VisDoc = JSON.parse(readFileSync(file, 'utf8'));
  for (let i = 0; i < WIDE_CHILDREN; i++) {
    const data = doc.NPU.node[wide.leafId(i)].data;
    if (data?.precision_index !== undefined) data.precision_index = i === RED_AT ? 0.95 : 0.05;
  }
  writeFileSync(file, JSON.stringify(doc));
  return { wide, doc };
}

describeBrowser('graph pane view (issue 14 items 7-8)', () => {
  let browser: Browser;
  let server: ServedApp;
  let logdir: string;
  let shaded: { wide: WideVis; doc: VisDoc };
  const pageErrors: string[] = [];

  beforeAll(async () => {
    logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-pane-view-'));
    mkdirSync(path.join(logdir, 'gpt'));
    mkdirSync(path.join(logdir, 'wide'));
    writeFileSync(path.join(logdir, 'gpt', 'gpt.vis'), readFileSync(GPT));
    shaded = writeShadedWide(path.join(logdir, 'wide', 'shaded.vis'));
    server = await serveApp(createApp({ logdir, appDir, stores: createStoreCache({ cacheDir: null }) }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (logdir) rmSync(logdir, { recursive: true, force: true });
  });

  async function openGpt(width = 1600, height = 900): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height } })).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=gpt&tag=gpt`);
    await node(page, FORWARD).waitFor();
    return page;
  }

  /** Opens the forward pass down to the decoder's 24 layers: a graph many panes tall. */
  async function openDecoder(page: Page): Promise<void> {
    for (const [id, child] of [[FORWARD, GPT_MODEL], [GPT_MODEL, DECODER], [DECODER, gpt.NPU.node[DECODER].subnodes![0]]]) {
      await node(page, id).dblclick();
      await node(page, child).waitFor({ state: 'attached' });
    }
    await expect.poll(() => page.locator('[data-testid="loading-npu"]').count()).toBe(0);
  }

  it('Fit on the 24-layer graph fits the width at a readable zoom from the top; a second press fits everything', async () => {
    for (const [width, height] of [[1600, 900], [1280, 720]]) {
      const page = await openGpt(width, height);
      await openDecoder(page);
      const layers = gpt.NPU.node[DECODER].subnodes!.filter((id) => id.includes('.layers.'));
      expect(layers.length).toBe(24);
      await page.click('[data-testid="fit-npu"]');
      const k = await scale(page);
      // Every label is drawn at ≥ 10 px on screen: font size (graph units) × scale.
      const fonts = await page.locator('[data-testid="pane-npu"] .pb-node text').evaluateAll((ts) => ts.map((t) => Number(t.getAttribute('font-size'))));
      expect(Math.min(...fonts) * k).toBeGreaterThanOrEqual(10);
      // Top aligned: the root's box starts near the pane's top, and the graph runs past the bottom.
      const pane = await paneBox(page);
      const root = (await node(page, 'DefaultModel').locator('rect').first().boundingBox())!;
      expect(Math.abs(root.y - pane.y - 16)).toBeLessThan(4);
      expect(root.y + root.height).toBeGreaterThan(pane.y + pane.height);
      await page.screenshot({ path: screenshotPath(`pane-fit-readable-${width}`) });

      // Second press: the whole graph in the pane, smaller (possibly drawn on the far canvas, so from the transform).
      const ty = Number(await page.locator('[data-testid="viewport-npu"]').getAttribute('data-ty'));
      const graphTop = (root.y - pane.y - ty) / k;
      const graphHeight = root.height / k;
      await page.click('[data-testid="fit-npu"]');
      const k2 = await scale(page);
      expect(k2).toBeLessThan(k);
      const ty2 = Number(await page.locator('[data-testid="viewport-npu"]').getAttribute('data-ty'));
      expect(ty2 + graphTop * k2).toBeGreaterThanOrEqual(0);
      expect(ty2 + (graphTop + graphHeight) * k2).toBeLessThanOrEqual(pane.height + 1);
      await page.context().close();
    }
  }, 120_000);

  it('shows a minimap with the viewport; clicking it pans there, and it can be hidden', async () => {
    const page = await openGpt();
    await openDecoder(page);
    await page.click('[data-testid="fit-npu"]');
    const map = page.locator('[data-testid="minimap-npu"]');
    await map.waitFor();
    await expect.poll(async () => Number(await map.locator('canvas').getAttribute('data-drawn'))).toBeGreaterThan(24);
    const mapBox = (await map.boundingBox())!;
    const viewBefore = (await page.locator('[data-testid="minimap-view-npu"]').boundingBox())!;
    // The map is taller than the viewport box: the graph runs below the pane.
    expect(viewBefore.height).toBeLessThan(mapBox.height * 0.8);
    const ty = Number(await page.locator('[data-testid="viewport-npu"]').getAttribute('data-ty'));

    // Click near the bottom of the map: the view scrolls down and the box centres on the click.
    const target = { x: mapBox.x + mapBox.width / 2, y: mapBox.y + mapBox.height * 0.8 };
    await page.mouse.click(target.x, target.y);
    await expect.poll(async () => Number(await page.locator('[data-testid="viewport-npu"]').getAttribute('data-ty'))).toBeLessThan(ty);
    const viewAfter = (await page.locator('[data-testid="minimap-view-npu"]').boundingBox())!;
    expect(Math.abs(viewAfter.y + viewAfter.height / 2 - target.y)).toBeLessThan(4);
    // Dragging moves it too.
    await page.mouse.move(target.x, target.y);
    await page.mouse.down();
    await page.mouse.move(target.x, mapBox.y + mapBox.height * 0.3, { steps: 4 });
    await page.mouse.up();
    const dragged = (await page.locator('[data-testid="minimap-view-npu"]').boundingBox())!;
    expect(dragged.y).toBeLessThan(viewAfter.y);
    await page.screenshot({ path: screenshotPath('pane-minimap') });

    await page.click('[data-testid="minimap-toggle-npu"]');
    expect(await map.count()).toBe(0);
    await page.click('[data-testid="minimap-toggle-npu"]');
    await map.waitFor();
    await page.context().close();
  });

  it('keeps part of the graph on screen however far it is dragged, scrolled or moved with A/D', async () => {
    const page = await openGpt();
    const pane = await paneBox(page);
    const rootBox = () => node(page, 'DefaultModel').locator('rect').first().boundingBox();
    const overlap = async () => {
      const b = (await rootBox())!;
      const w = Math.min(b.x + b.width, pane.x + pane.width) - Math.max(b.x, pane.x);
      const h = Math.min(b.y + b.height, pane.y + pane.height) - Math.max(b.y, pane.y);
      return Math.min(w, h);
    };
    await page.mouse.move(pane.x + pane.width / 2, pane.y + pane.height / 2);
    for (let i = 0; i < 60; i++) await page.keyboard.press('a');
    expect(await overlap()).toBeGreaterThanOrEqual(40);
    for (let i = 0; i < 120; i++) await page.keyboard.press('d');
    expect(await overlap()).toBeGreaterThanOrEqual(40);
    for (let i = 0; i < 30; i++) await page.mouse.wheel(0, 800);
    expect(await overlap()).toBeGreaterThanOrEqual(40);
    await page.mouse.move(pane.x + 20, pane.y + pane.height - 20);
    await page.mouse.down();
    await page.mouse.move(pane.x + pane.width - 20, pane.y + 20, { steps: 5 });
    await page.mouse.up();
    expect(await overlap()).toBeGreaterThanOrEqual(40);
    await page.context().close();
  });

  it('labels leaves readably and keeps forward and backward apart', async () => {
    const page = await openGpt();
    await node(page, APIS).dblclick();
    const leaves = gpt.NPU.node[APIS].subnodes!;
    await node(page, leaves[0]).waitFor();
    const pairs = leaves.filter((id) => id.endsWith('.forward') && leaves.includes(id.replace(/forward$/, 'backward')));
    expect(pairs.length).toBeGreaterThan(0);
    for (const forward of pairs) {
      const backward = forward.replace(/forward$/, 'backward');
      const [f, b] = [await node(page, forward).locator('text').textContent(), await node(page, backward).locator('text').textContent()];
      expect(f).not.toBe(b);
      expect(f!.endsWith('forward')).toBe(true);
      expect(b!.endsWith('backward')).toBe(true);
      // The full name is the tooltip.
      expect(await node(page, forward).locator('title').textContent()).toBe(forward);
    }
    const font = Number(await node(page, leaves[0]).locator('text').getAttribute('font-size'));
    expect(font * (await scale(page))).toBeGreaterThanOrEqual(10);
    await page.context().close();
  });

  it('paints each split group with its worst child, with a count badge, before it is opened', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 900 } })).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const { wide, doc } = shaded;
    await page.goto(`${server.origin}/#graphs?run=wide&tag=shaded`);
    await node(page, wide.wideId).waitFor();
    await node(page, wide.wideId).dblclick();
    const colors: ColorBucket[] = Object.entries(doc.Colors).map(([color, b]) => ({ color, value: b.value, description: b.description }));
    const children = doc.NPU.node[wide.wideId].subnodes!;
    for (let lo = 0; lo < WIDE_CHILDREN; lo += 400) {
      const slice = children.slice(lo, lo + 400).map((id) => doc.NPU.node[id].data?.precision_index).filter((v): v is number => v !== undefined);
      const worst = Math.max(...slice);
      const expected = bucketColor(colors, worst)!;
      const box = page.locator(`[data-testid="pane-npu"] [data-split-of="${wide.wideId}"][data-split="${lo}-${lo + 399}"]`);
      await expect.poll(() => box.locator('rect').first().getAttribute('fill'), { timeout: 10_000 }).toBe(expected);
      const inWorst = slice.filter((v) => bucketColor(colors, v) === expected).length;
      const alarming = expected !== bucketColor(colors, 0);
      expect(await box.getAttribute('data-worst-count')).toBe(alarming ? String(inWorst) : null);
      expect(await box.getAttribute('data-expanded')).toBeNull();
    }
    await page.screenshot({ path: screenshotPath('pane-split-shaded') });
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });
});
