import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { appDir, describeBrowser, launchBrowser } from '../helpers/browser.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { detailsEventFile, LABEL, LONG_NOTE, onnxModel } from '../helpers/tbEncode.js';

/**
 * Issue 16 in Chromium: a link as TensorBoard writes it (`#graphs&run=…&tag=…`) opens the event file's graph, and a
 * node's details show its op, device, attributes (long values cut until "Show all"), inputs/outputs and the run
 * metadata the file holds for it, in English and Chinese. The event file is encoded with protobufjs
 * (test/helpers/tbEncode.ts).
 */
const FILE = 'events.out.tfevents.5.details';
const TAG = `${FILE}#graph_def`;
const node = (page: Page, id: string) => page.locator(`[data-node-id="${id}"][data-side="npu"]`);

describeBrowser('TensorBoard node details and links', () => {
  let tmp: string;
  let served: ServedApp;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-e2e-tbdetails-'));
    mkdirSync(path.join(tmp, 'tb'));
    writeFileSync(path.join(tmp, 'tb', FILE), detailsEventFile());
    mkdirSync(path.join(tmp, 'onnx'));
    const newer = { ir_version: 99, graph: { node: [{ op_type: 'Relu', name: 'r', input: ['x'], output: ['y'] }], input: [{ name: 'x' }], output: [{ name: 'y' }] } };
    writeFileSync(path.join(tmp, 'onnx', 'newer.onnx'), onnxModel(newer));
    served = await serveApp(createApp({ logdir: tmp, appDir }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    return page;
  }

  it('opens TensorBoard\'s `#graphs&run=…&tag=…` link and shows a node\'s details; "Show all" shows whole values', async () => {
    const page = await newPage();
    await page.goto(`${served.origin}/#graphs&run=tb&tag=${encodeURIComponent(TAG)}`);
    for (const id of ['x', 'w', 'long', 'y']) await node(page, id).waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator('[data-testid="tag-select"]').inputValue()).toContain(FILE);

    await node(page, 'y').click();
    const panel = page.locator('[data-testid="tb-node"]');
    await panel.waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid="tb-op"]').textContent()).toBe('MatMul');
    expect(await page.locator('[data-testid="tb-device"]').textContent()).toBe('/device:CPU:0');
    // Inputs by source node, with the shape the graph's attributes give.
    await expect.poll(() => page.locator('[data-testid="info-table"]').textContent()).toMatch(/x[\s\S]*w/);
    const runStats = await page.locator('[data-testid="tb-runstats"]').textContent();
    expect(runStats).toContain('step7, step 7');
    expect(runStats).toContain('Compute time: 40 µs (all 50 µs)');
    expect(await page.locator('[data-testid="tb-runstats-memory"]').textContent()).toBe('cpu: requested 4.0 KiB, peak 8.0 KiB, live 1.0 KiB');

    const label = page.locator('[data-attr="label"] [data-testid="tb-attr-value"]');
    expect(await label.textContent()).toBe(LABEL.slice(0, 120));
    const toggle = page.locator('[data-testid="tb-attrs-toggle"]');
    expect(await toggle.textContent()).toBe('Show all');
    await toggle.click();
    expect(await label.textContent()).toBe(LABEL);
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    expect(await label.textContent()).toBe(LABEL.slice(0, 120));

    // A value the server cut says so once shown in full; a node without run metadata has no such block.
    await node(page, 'long').click();
    await expect.poll(() => page.locator('[data-testid="tb-op"]').textContent()).toBe('Identity');
    expect(await page.locator('[data-testid="tb-runstats"]').count()).toBe(0);
    await page.locator('[data-testid="tb-attrs-toggle"]').click();
    expect(await page.locator('[data-attr="note"] [data-testid="tb-attr-value"]').textContent()).toBe(`${LONG_NOTE.slice(0, 1024)}…`);
    await page.locator('[data-attr="note"] [data-testid="tb-attr-cut"]').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('opens `#graphs?run=…` (run only) on the run\'s graph, and shows the details in Chinese', async () => {
    const page = await newPage();
    await page.goto(`${served.origin}/#graphs?run=tb&lang=zh-CN`);
    await node(page, 'y').waitFor({ timeout: 10_000 });
    await node(page, 'y').click();
    await page.locator('[data-testid="tb-node"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid="tb-node"] dt').first().textContent()).toBe('算子类型');
    expect(await page.locator('[data-testid="tb-attrs-toggle"]').textContent()).toBe('全部显示');
    expect(await page.locator('[data-testid="tb-runstats"]').textContent()).toContain('计算时间：40 微秒（总计 50 微秒）');
    expect(pageErrors).toEqual([]);
  });

  it('opens an ONNX model of a newer IR version and says so under the file picker once the list reloads', async () => {
    const page = await newPage();
    await page.goto(`${served.origin}/#graphs&run=onnx&tag=newer.onnx`);
    await node(page, 'r').waitFor({ timeout: 10_000 });
    await expect
      .poll(() => page.locator('[data-testid="file-note"]').textContent(), { timeout: 15_000 })
      .toBe('onnx/newer.onnx opens, with a note: ONNX IR version 99 is newer than 11; unknown fields were skipped');
    expect(await page.locator('[data-testid="file-error"]').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
