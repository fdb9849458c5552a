import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath } from '../helpers/browser.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { addP2pRing } from '../helpers/shards.js';

/**
 * Issue 19 in Chromium: a directory of 4 shard `.vis.db` files of one 8-rank × 2-step build opens as one graph; the
 * step and rank pickers list the union, and switching to ranks held by other shards (and following a communication
 * peer into another shard) shows their graphs. The log dir is left untouched.
 */

let tmp: string;
let logdir: string;
let key: string;
let served: ServedApp;
let browser: Browser;
const pageErrors: string[] = [];
const failed: string[] = [];

const pane = (page: Page) => page.locator('[data-testid="pane-npu"] [data-node-id]');
const options = (page: Page, sel: string) => page.locator(`${sel} option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));

describeBrowser('a shard set in Chromium', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'probeboard-e2e-shards-'));
    const dump = generateDumps({ out: path.join(tmp, 'd8'), layers: 1, ranks: 8, steps: 2, bench: true, seed: 11, log: () => {} });
    addP2pRing(dump.npuPath);
    addP2pRing(dump.benchPath!);
    logdir = path.join(tmp, 'logs');
    const io: CliIo = { out: () => {}, err: (t) => failed.push(t) };
    for (let k = 0; k < 4; k++) {
      const argv = ['graph', '-i', dump.compareJson, '-o', path.join(logdir, 'shards'), '--quiet', '--shard', `${k}/4`];
      expect(await runCli(argv, [(p) => registerGraphCommand(p, io)], io)).toBe(0);
    }
    const files = fs.readdirSync(path.join(logdir, 'shards')).sort();
    key = /^compare_([0-9a-f]{12})_shard/.exec(files[0])![1];
    // The same set without shard 2 (step 1, ranks 0-3).
    fs.mkdirSync(path.join(logdir, 'missing'));
    for (const f of files.filter((_, k) => k !== 2)) fs.copyFileSync(path.join(logdir, 'shards', f), path.join(logdir, 'missing', f));
    served = await serveApp(createApp({ logdir, appDir, stores: createStoreCache({ cacheDir: path.join(tmp, 'cache') }) }));
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await served?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('opens the set, lists the union in the pickers, and shows ranks of other shards', async () => {
    const before = fs.readdirSync(logdir, { recursive: true }).map((f) => [f, fs.statSync(path.join(logdir, String(f))).mtimeMs]);
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const children: URL[] = [];
    page.on('response', (res) => {
      if (res.url().includes('/api/graph/') && res.status() >= 300) failed.push(`${res.status()} ${res.url()}`);
      const url = new URL(res.url());
      if (url.pathname.endsWith('/api/graph/children') && res.status() === 200) children.push(url);
    });
    await page.goto(`${served.origin}/#graphs?run=shards`);
    // One file in the run: the set, under its build's name.
    await expect.poll(() => options(page, '[data-testid="tag-select"]')).toHaveLength(1);
    await expect(page.locator('[data-testid="tag-select"] option').first().textContent()).resolves.toContain(`compare_${key}.vis.db`);
    await expect.poll(() => pane(page).count(), { timeout: 20_000 }).toBeGreaterThan(1);
    expect(await options(page, '[data-testid="step-select"]')).toEqual(['0', '1']);
    expect(await options(page, '[data-testid="rank-select"]')).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);

    // Rank 5 of step 0 (shard 1), then rank 6 of step 1 (shard 3): each graph is drawn.
    const shown = async (step: string, rank: string) => {
      expect(await page.locator('[data-testid="step-select"]').inputValue()).toBe(step);
      expect(await page.locator('[data-testid="rank-select"]').inputValue()).toBe(rank);
      // The graph of that step and rank was fetched (the first step and rank are the defaults, not sent) and drawn.
      await expect.poll(() => children.some((u) => (u.searchParams.get('step') ?? '0') === step && (u.searchParams.get('rank') ?? '0') === rank), { timeout: 20_000 }).toBe(true);
      await expect.poll(() => page.locator('[data-testid="pane-npu"] [data-node-id="Apis_Between_Modules.0"]').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    };
    await page.selectOption('[data-testid="rank-select"]', '5');
    await shown('0', '5');
    await page.selectOption('[data-testid="step-select"]', '1');
    await page.selectOption('[data-testid="rank-select"]', '6');
    await shown('1', '6');

    // Rank 3's send (shard 0 at step 0) names its peer at rank 4 (shard 1): "Go to rank 4" opens it there.
    await page.selectOption('[data-testid="step-select"]', '0');
    await page.selectOption('[data-testid="rank-select"]', '3');
    await shown('0', '3');
    await page.goto(`${served.origin}/#graphs?run=shards&tag=compare_${key}&format=db&step=0&rank=3&side=npu&node=Distributed.send.0.forward`);
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title'), { timeout: 20_000 }).toBe('Distributed.send.0.forward');
    await page.locator('[data-testid="info-tab-comm"]').click();
    await page.locator('[data-testid="comm-npu"] [data-testid="comm-peer"][data-rank="4"] [data-testid="comm-go"]').click();
    await expect.poll(() => page.locator('[data-testid="rank-select"]').inputValue()).toBe('4');
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe('Distributed.recv.0.forward');
    await page.screenshot({ path: screenshotPath('shard-set') });
    await context.close();

    expect(failed).toEqual([]);
    failed.length = 0;
    expect(fs.readdirSync(logdir, { recursive: true }).map((f) => [f, fs.statSync(path.join(logdir, String(f))).mtimeMs])).toEqual(before);
  }, 90_000);

  it('says under the file picker when a shard is missing, and shows the rest', async () => {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${served.origin}/#graphs?run=missing&step=1&rank=5`);
    await expect
      .poll(() => page.locator('[data-testid="file-note"]').textContent(), { timeout: 20_000 })
      .toBe(`missing/compare_${key}_shard*of4.vis.db: shard 2 of 4 missing; the graph shows the steps and ranks of the other shards`);
    await expect.poll(() => pane(page).count(), { timeout: 20_000 }).toBeGreaterThan(1);
    expect(await page.locator('[data-testid="rank-select"]').inputValue()).toBe('5');
    await context.close();
  });
});
