import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath } from '../helpers/browser.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14, files and links: a same-name `.vis` / `.vis.db` pair, the server going away, links naming a run only /
 * an unknown run / opened beside another tab, step and rank switches keeping the selection, an empty step × rank
 * pair, the run list reloading and the log dir root's name.
 */
const MODULE = 'Module.module.Float16Module.forward.0';

interface Served {
  origin: string;
  logdir: string;
  close(): Promise<void>;
}

async function serveDir(logdir: string): Promise<Served> {
  const served: ServedApp = await serveApp(createApp({ logdir, appDir }));
  return { origin: served.origin, logdir, close: () => served.close() };
}

function makeLogdir(): string {
  const logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-triage-'));
  mkdirSync(path.join(logdir, 'pair'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/multistep_compare-202507.vis'), path.join(logdir, 'pair/x.vis'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/scale/multistep_compare.vis.db'), path.join(logdir, 'pair/x.vis.db'));
  cpSync(path.join(repoRoot, 'test/fixtures/e2e/build'), path.join(logdir, 'build'), { recursive: true });
  cpSync(path.join(repoRoot, 'test/fixtures/e2e/compare'), path.join(logdir, 'compare'), { recursive: true });
  // A file at the log dir root: run ".".
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis'), path.join(logdir, 'rooted.vis'));
  return logdir;
}

const node = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-node-id="${id}"][data-side="${side}"]`);
const optionTexts = (page: Page, sel: string) =>
  page.locator(`${sel} option`).evaluateAll((os) => os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? '', format: o.getAttribute('data-format') })));

describeBrowser('issue 14: files, links, server gone, run list', () => {
  let server: Served;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    server = await serveDir(makeLogdir());
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.close();
    if (server) rmSync(server.logdir, { recursive: true, force: true });
  });

  async function newContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    contexts.push(context);
    return context;
  }

  async function newPage(context?: BrowserContext): Promise<{ page: Page; metaRequests: URL[] }> {
    const page = await (context ?? (await newContext())).newPage();
    const metaRequests: URL[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname.endsWith('/api/graph/meta')) metaRequests.push(url);
    });
    return { page, metaRequests };
  }

  it('lists a same-name .vis and .vis.db as two files and opens each (item 2)', async () => {
    const { page, metaRequests } = await newPage();
    await page.goto(`${server.origin}/#graphs?run=pair&tag=x&format=vis`);
    await node(page, 'npu', 'Module1').waitFor();
    const options = await optionTexts(page, '[data-testid="tag-select"]');
    expect(options.map((o) => o.format).sort()).toEqual(['db', 'vis']);
    expect(new Set(options.map((o) => o.text)).size).toBe(2);
    expect(options.find((o) => o.format === 'db')!.text).toContain('x.vis.db');
    expect(await page.locator('[data-testid="tag-select"]').inputValue()).toBe('vis/x');
    // The .vis holds one graph: no step picker.
    expect(await page.locator('[data-testid="step-select"]').count()).toBe(0);

    metaRequests.length = 0;
    await page.selectOption('[data-testid="tag-select"]', 'db/x');
    await expect.poll(() => page.url()).toContain('format=db');
    await page.locator('[data-testid="step-select"]').waitFor();
    expect(metaRequests.map((u) => u.searchParams.get('format'))).toContain('db');
    expect(await page.locator('[data-testid="tag-select"]').inputValue()).toBe('db/x');

    metaRequests.length = 0;
    await page.selectOption('[data-testid="tag-select"]', 'vis/x');
    await expect.poll(() => page.url()).toContain('format=vis');
    await expect.poll(() => page.locator('[data-testid="step-select"]').count()).toBe(0);
    expect(metaRequests.map((u) => u.searchParams.get('format'))).toContain('vis');

    // A link with format=db opens the .vis.db.
    const { page: fresh } = await newPage();
    await fresh.goto(`${server.origin}/#graphs?run=pair&tag=x&format=db&step=2`);
    await fresh.locator('[data-testid="step-select"]').waitFor();
    expect(await fresh.locator('[data-testid="tag-select"]').inputValue()).toBe('db/x');
    expect(await fresh.locator('[data-testid="step-select"]').inputValue()).toBe('2');
  });

  it('a link with run= and no tag opens that run’s first file (item 9)', async () => {
    const listing = (await (await fetch(`${server.origin}/api/runs`)).json()) as { runs: Array<{ run: string; tags: Array<{ tag: string; error: string | null }> }> };
    expect(listing.runs[0].run).not.toBe('compare');
    const firstOfCompare = listing.runs.find((r) => r.run === 'compare')!.tags.find((t) => t.error === null)!.tag;
    const { page } = await newPage();
    await page.goto(`${server.origin}/#graphs?run=compare`);
    await expect.poll(() => page.url()).toContain(`tag=${firstOfCompare}`);
    expect(await page.locator('[data-testid="run-select"]').inputValue()).toBe('compare');
    expect(await page.locator('[data-testid="tag-select"]').inputValue()).toBe(firstOfCompare);
    // Said, not silent; a file picked by hand needs no note.
    expect(await page.locator('[data-testid="notice-banner"]').textContent()).toContain(`${firstOfCompare}.vis`);
    await page.selectOption('[data-testid="run-select"]', 'build');
    await expect.poll(() => page.locator('[data-testid="notice-banner"]').count()).toBe(0);
  });

  it('an unknown run shows the banner and no run as chosen (item 9)', async () => {
    const { page } = await newPage();
    await page.goto(`${server.origin}/#graphs?run=nope&tag=whatever`);
    const banner = page.locator('[data-testid="error-banner"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('nope');
    expect(await page.locator('[data-testid="run-select"]').inputValue()).toBe('');
    expect(await page.locator('[data-testid="tag-select"]').inputValue()).toBe('');
    expect(page.url()).toContain('run=nope');
    // And without a tag too.
    await page.goto(`${server.origin}/#graphs?run=gone`);
    await expect.poll(() => banner.textContent()).toContain('gone');
    expect(await page.locator('[data-testid="run-select"]').inputValue()).toBe('');
  });

  it('a link opened beside another tab of the viewer wins over that tab and remembered state (item 9)', async () => {
    const context = await newContext();
    const { page: first } = await newPage(context);
    await first.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer&lang=zh-CN`);
    await node(first, 'npu', MODULE).click();
    await expect.poll(() => first.url()).toContain('node=');
    // Whatever the viewer remembers in this browser profile.
    await first.evaluate(() => {
      for (const key of ['probeboard.run', 'probeboard.tag', 'probeboard.view', 'probeboard.state']) {
        window.localStorage.setItem(key, JSON.stringify({ run: 'compare', tag: 'synth_2layer' }));
      }
    });
    const { page: second } = await newPage(context);
    await second.goto(`${server.origin}/#graphs?run=build&tag=mock_single_statis_graph&lang=en`);
    await second.locator('[data-graph-type="build"]').waitFor();
    expect(await second.locator('[data-testid="run-select"]').inputValue()).toBe('build');
    expect(await second.locator('[data-testid="tag-select"]').inputValue()).toBe('mock_single_statis_graph');
    expect(await second.evaluate(() => document.documentElement.lang)).toBe('en');
    expect(second.url()).toContain('run=build');
    // The first tab is left alone.
    expect(await first.locator('[data-testid="run-select"]').inputValue()).toBe('compare');
  });

  it('switching step keeps the selection; an empty step × rank pair says so (item 5)', async () => {
    const { page } = await newPage();
    await page.goto(`${server.origin}/#graphs?run=pair&tag=x&format=db`);
    await node(page, 'npu', 'Module1').dblclick();
    await node(page, 'npu', 'Tensor1').click();
    await expect.poll(() => node(page, 'npu', 'Tensor1').getAttribute('data-selected')).toBe('true');

    await page.selectOption('[data-testid="step-select"]', '1');
    await expect.poll(() => page.url()).toContain('step=1');
    await expect.poll(() => node(page, 'npu', 'Tensor1').getAttribute('data-selected'), { timeout: 15_000 }).toBe('true');
    expect(page.url()).toContain('node=Tensor1');
    expect(page.url()).toContain('format=db');

    // The file has no graph for step 1, rank 1 although both lists name them: the picker does not offer it
    // (at step 1 only rank 0 holds a graph, so the rank picker is hidden), while step 0 offers both ranks.
    expect(await page.locator('[data-testid="rank-select"]').count()).toBe(0);
    await page.selectOption('[data-testid="step-select"]', '0');
    await expect.poll(async () => (await optionTexts(page, '[data-testid="rank-select"]')).map((o) => o.value)).toEqual(['0', '1']);
    // A link may still name the empty pair: it says so, and the picker shows where the user is.
    const { page: linked } = await newPage();
    await linked.goto(`${server.origin}/#graphs?run=pair&tag=x&format=db&step=1&rank=1`);
    const empty = linked.locator('[data-empty-graph="true"]');
    await empty.waitFor();
    expect(await empty.textContent()).toContain('No graph for step 1, rank 1');
    expect(await linked.locator('[data-testid="rank-select"]').inputValue()).toBe('1');
    await linked.screenshot({ path: screenshotPath('triage-empty-pair') });
    // Back to a pair that exists: the graph is drawn again.
    await linked.selectOption('[data-testid="rank-select"]', '0');
    await node(linked, 'npu', 'Module1').waitFor();
  });

  it('reloads the run list while open, keeping the selection; names the root run (item 14)', async () => {
    const { page } = await newPage();
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer`);
    await node(page, 'npu', MODULE).click();
    await expect.poll(() => page.url()).toContain('node=');
    const before = page.url();
    const root = await optionTexts(page, '[data-testid="run-select"]');
    expect(root.find((o) => o.value === '.')!.text).toBe('(log dir root)');
    expect(root.map((o) => o.text)).not.toContain('.');

    mkdirSync(path.join(server.logdir, 'late'));
    copyFileSync(path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis'), path.join(server.logdir, 'late/new.vis'));
    await expect
      .poll(async () => (await optionTexts(page, '[data-testid="run-select"]')).map((o) => o.value), { timeout: 9_000, interval: 250 })
      .toContain('late');
    expect(page.url()).toBe(before);
    expect(await node(page, 'npu', MODULE).getAttribute('data-selected')).toBe('true');

    const { page: zh } = await newPage();
    await zh.goto(`${server.origin}/#graphs?run=.&tag=rooted&lang=zh-CN`);
    await expect.poll(() => zh.locator('[data-testid="run-select"] option[value="."]').textContent()).toBe('（日志目录根）');
    expect(await zh.locator('[data-testid="run-select"]').inputValue()).toBe('.');
  });

  it('says the log dir has no .vis or .vis.db files', async () => {
    const emptyDir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-triage-empty-'));
    const empty = await serveDir(emptyDir);
    try {
      const { page } = await newPage();
      await page.goto(`${empty.origin}/`);
      await expect.poll(() => page.locator('[data-testid="panes-empty"]').textContent()).toContain('.vis.db');
    } finally {
      await empty.close();
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });

  it('says the server cannot be reached when it goes away, in the info panel on both tabs (item 13)', async () => {
    const dir = makeLogdir();
    const own = await serveDir(dir);
    const CHILD = 'Module.module.module.GPTModel.forward.0';
    const { page } = await newPage();
    const { page: zh } = await newPage();
    try {
      for (const [p, lang] of [
        [page, 'en'],
        [zh, 'zh-CN'],
      ] as const) {
        await p.goto(`${own.origin}/#graphs?run=compare&tag=synth_2layer&lang=${lang}`);
        await node(p, 'npu', MODULE).dblclick();
        await node(p, 'npu', CHILD).waitFor();
      }
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
    await node(page, 'npu', CHILD).click();
    const info = page.locator('[data-testid="info-error"]');
    await info.waitFor();
    expect(await info.textContent()).toContain('Cannot reach the server');
    // What the user sees (innerText skips hidden text): the error, not an empty table.
    expect(await page.locator('[data-testid="info-panel"]').innerText()).not.toContain('This node has no inputs or outputs.');
    await page.locator('[data-testid="info-tab-node"]').click();
    expect(await info.isVisible()).toBe(true);
    expect(await page.locator('[data-testid="error-banner"]').textContent()).toContain('Cannot reach the server');
    await page.screenshot({ path: screenshotPath('triage-server-gone') });

    await node(zh, 'npu', CHILD).click();
    await zh.locator('[data-testid="info-error"]').waitFor();
    expect(await zh.locator('[data-testid="info-error"]').textContent()).toContain('无法连接服务器');
  });
});
