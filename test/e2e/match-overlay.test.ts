import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bucketColor } from '../../src/core/colors/buckets.js';
import type { ColorBucket } from '../../src/core/api/types.js';
import { formatPrecision } from '../../src/app/panels/precisionDriver.js';
import { createApp } from '../../server/http/app.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { F16_BACKWARD, F16_FORWARD, readSynth, subtree, writeUnmatchedSynth } from '../helpers/overlayFixture.js';

/**
 * Issue 15 in Chromium against the real server: match two grey modules with their children and see them coloured
 * with the values msprobe computed (the original file is the oracle), undo and redo; export a `.vis.config`, reload,
 * import it and get the same graph; edit the colour buckets and see the fills change without a relayout; choose the
 * precision metric and see the index change; open the share link in a second browser and see the same overlay,
 * while a third browser without the link sees none of it; a restarted server (overlay ids forgotten) and a read-only
 * one.
 */
const MATCH_RUN = '#graphs?run=match&tag=synth';
const PA = 'Module.module.module.language_model.encoder.layers.1.self_attention.ParallelAttention.forward.0';
const GREY = '#C7C7C7';

const synth = readSynth();
const fileColors: ColorBucket[] = Object.entries(synth.Colors as Record<string, { value: number[]; description: string }>).map(([color, b]) => ({
  color,
  value: b.value,
  description: b.description,
}));
const npuIndex = (id: string) => synth.NPU.node[id].data!.precision_index as number;

const nodeAt = (page: Page, side: 'npu' | 'bench', id: string) => page.locator(`[data-testid="pane-${side}"] .pb-node[data-node-id="${id}"]`);
const fill = (page: Page, side: 'npu' | 'bench', id: string) => nodeAt(page, side, id).locator(':scope > rect, :scope > ellipse').first().getAttribute('fill');
const box = (page: Page, side: 'npu' | 'bench', id: string) =>
  nodeAt(page, side, id)
    .locator(':scope > rect')
    .first()
    .evaluate((el) => ['x', 'y', 'width', 'height'].map((a) => el.getAttribute(a)).join(','));
const toastKeys = (page: Page) => page.locator('[data-testid="match-toast"] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));
const toastText = (page: Page) => page.locator('[data-testid="match-toast"]').innerText();
const npuFills = (page: Page) =>
  page
    .locator('[data-testid="pane-npu"] .pb-node')
    .evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-node-id'), e.querySelector('rect, ellipse')?.getAttribute('fill')])));

describeBrowser('comparison overlay in Chromium (issue 15)', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/compare']);
    writeUnmatchedSynth(path.join(server.logdir, 'match'), 'synth', [F16_FORWARD, F16_BACKWARD]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    expect(pageErrors).toEqual([]);
  });

  async function open(hash: string, context?: Awaited<ReturnType<Browser['newContext']>>): Promise<Page> {
    const page = await (context ?? (await browser.newContext({ viewport: { width: 1600, height: 1000 } }))).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/${hash}`);
    await nodeAt(page, 'npu', F16_FORWARD).waitFor();
    return page;
  }

  /** Clicks the two grey modules (each click picks it in the Match panel) and matches them with their children. */
  async function matchF16(page: Page): Promise<void> {
    await page.locator('[data-testid="match-toggle"]').click();
    await nodeAt(page, 'npu', F16_FORWARD).click();
    await nodeAt(page, 'bench', F16_FORWARD).click();
    await expect.poll(() => page.locator('[data-testid="match-pair"]').first().getAttribute('data-npu')).toBe(F16_FORWARD);
    await expect(page.locator('[data-testid="match-children"]').isChecked()).resolves.toBe(true);
    await page.locator('[data-testid="match-match"]').click();
    await expect.poll(() => toastKeys(page), { timeout: 20_000 }).toContain('match.toast.matched');
    await expect.poll(() => fill(page, 'npu', F16_FORWARD), { timeout: 20_000 }).not.toBe(GREY);
  }

  it('matches two grey modules with their children: both coloured, the table filled with msprobe’s values; undo, redo', async () => {
    const page = await open(MATCH_RUN);
    await expect(fill(page, 'npu', F16_FORWARD)).resolves.toBe(GREY);
    await expect(fill(page, 'bench', F16_FORWARD)).resolves.toBe(GREY);
    await matchF16(page);

    // Every node of both subtrees was tried once: the forward ones as children, the backward ones as their partners.
    const tried = subtree(synth, 'NPU', F16_FORWARD).length + subtree(synth, 'NPU', F16_BACKWARD).length;
    const text = await toastText(page);
    const matched = Number(/Matched (\d+) node pairs/.exec(text)![1]);
    const failed = Number(/(\d+) failed:/.exec(text)?.[1] ?? 0);
    expect(matched + failed).toBe(tried);
    // msprobe gave the backward modules no index either: their outputs carry no comparable statistic.
    expect(await toastKeys(page)).toContain('match.reason.outputError');
    await expect(page.locator('[data-testid="match-toast"]').getAttribute('data-tone')).resolves.toBe('warn');

    // Coloured with the bucket of the index msprobe wrote into the original file; Bench neutral, no longer grey.
    await expect(fill(page, 'npu', F16_FORWARD)).resolves.toBe(bucketColor(fileColors, npuIndex(F16_FORWARD)));
    await expect(fill(page, 'bench', F16_FORWARD)).resolves.toBe('#FFFFFF');
    await nodeAt(page, 'npu', F16_FORWARD).click();
    await expect.poll(() => page.locator('[data-testid="info-bench-node"]').getAttribute('title')).toBe(F16_FORWARD);
    await expect.poll(() => page.locator('[data-testid="info-precision-value"]').textContent()).toBe(formatPrecision(npuIndex(F16_FORWARD)));
    await expect.poll(() => page.locator('[data-testid="info-row"][data-side="bench"]').count()).toBeGreaterThan(0);
    const outputKey = `${F16_FORWARD}.output.0`;
    const cell = await page.locator('[data-testid="info-row"][data-side="npu"]', { hasText: 'output.0' }).locator('[data-column="MaxRelativeErr"]').textContent();
    const original = synth.NPU.node[F16_FORWARD].output_data![outputKey].MaxRelativeErr as string;
    expect(parseFloat(cell!)).toBeCloseTo(parseFloat(original), 4);
    await expect(page.evaluate(() => location.hash)).resolves.toContain('&ov=c0.');
    await page.screenshot({ path: screenshotPath('match-overlay-matched') });

    // Undo (the key, bound through the shortcuts table) brings the grey back; Redo the colour.
    await page.keyboard.press('Control+z');
    await expect.poll(() => fill(page, 'npu', F16_FORWARD), { timeout: 20_000 }).toBe(GREY);
    await expect.poll(() => page.locator('[data-testid="match-steps"]').getAttribute('data-cursor')).toBe('0');
    await expect(page.evaluate(() => location.hash)).resolves.not.toContain('ov=');
    await expect.poll(() => page.locator('[data-testid="info-row"][data-side="bench"]').count()).toBe(0);
    await page.locator('[data-testid="match-redo"]').click();
    await expect.poll(() => fill(page, 'npu', F16_FORWARD), { timeout: 20_000 }).toBe(bucketColor(fileColors, npuIndex(F16_FORWARD)));
    await page.context().close();
  });

  it('exports a .vis.config, and after a reload importing it gives back the same graph', async () => {
    const page = await open(MATCH_RUN);
    await matchF16(page);
    const matchedTotal = await page.locator('[data-testid="match-matched-npu"]').getAttribute('data-total');
    const before = await npuFills(page);

    await page.locator('[data-testid="match-export"]').click();
    await expect.poll(() => toastKeys(page)).toContain('match.toast.exported');
    const configFile = path.join(server.logdir, 'match', 'synth.vis.config');
    expect(existsSync(configFile)).toBe(true);
    const pairs = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, string>;
    expect(pairs[F16_FORWARD]).toBe(F16_FORWARD);

    await page.keyboard.press('Control+z');
    await expect.poll(() => fill(page, 'npu', F16_FORWARD), { timeout: 20_000 }).toBe(GREY);
    await page.reload();
    await nodeAt(page, 'npu', F16_FORWARD).waitFor();
    await expect(fill(page, 'npu', F16_FORWARD)).resolves.toBe(GREY);
    await page.locator('[data-testid="match-toggle"]').click();
    // Kept across the reload: the undone step can still be redone.
    await expect(page.locator('[data-testid="match-redo"]').isEnabled()).resolves.toBe(true);

    await expect.poll(() => page.locator('[data-testid="match-config"] option').allTextContents()).toContain('synth.vis.config');
    await page.selectOption('[data-testid="match-config"]', 'synth.vis.config');
    await expect.poll(() => toastKeys(page), { timeout: 20_000 }).toContain('match.toast.config');
    const total = Object.keys(pairs).length;
    // Each entry alone, as the original applies them: what the partner pairing had done is now entries of their own.
    await expect(toastText(page)).resolves.toContain(`synth.vis.config: ${total} pairs, ${total} succeeded, 0 failed.`);
    await expect.poll(() => fill(page, 'npu', F16_FORWARD), { timeout: 20_000 }).not.toBe(GREY);
    await expect.poll(() => page.locator('[data-testid="match-matched-npu"]').getAttribute('data-total')).toBe(matchedTotal);
    await expect.poll(() => npuFills(page)).toEqual(before);
    await page.context().close();
  });

  it('recolours with edited buckets, without a relayout, and filters by them; reset restores the file’s', async () => {
    const page = await open('#graphs?run=compare&tag=synth_2layer');
    const original = bucketColor(fileColors, npuIndex(F16_FORWARD))!;
    await expect(fill(page, 'npu', F16_FORWARD)).resolves.toBe(original);
    const where = await box(page, 'npu', F16_FORWARD);

    await page.locator('[data-testid="color-edit"]').click();
    const editor = page.locator('[data-testid="color-editor"]');
    await expect(editor.locator('tbody tr').count()).resolves.toBe(fileColors.length - 1);
    // The core's rules, worded per code: too many decimals, then an overlap.
    await page.fill('[data-testid="color-hi-0"]', '0.123456');
    await expect.poll(() => editor.locator('[data-testid="color-problems"] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')))).toEqual([
      'tooManyDecimals',
    ]);
    await expect(page.locator('[data-testid="color-apply"]').isDisabled()).resolves.toBe(true);
    await page.fill('[data-testid="color-hi-0"]', '0.3');
    await expect.poll(() => editor.locator('[data-testid="color-problems"] li').getAttribute('data-code')).toBe('overlap');
    for (let i = fileColors.length - 2; i >= 1; i--) await page.locator(`[data-testid="color-remove-${i}"]`).click();
    await page.fill('[data-testid="color-hi-0"]', '1');
    await editor.locator('[data-testid="color-row-0"] [data-color="#FF4118"]').click();
    await expect(editor.locator('[data-testid="color-problems"]').count()).resolves.toBe(0);
    await page.locator('[data-testid="color-apply"]').click();

    await expect.poll(() => fill(page, 'npu', F16_FORWARD)).toBe('#FF4118');
    await expect(box(page, 'npu', F16_FORWARD)).resolves.toBe(where);
    await expect(page.locator('[data-testid="colors-edited"]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid="filter-bucket-0"]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid="filter-bucket-1"]').count()).resolves.toBe(0);
    // The filter asks for the new bucket: every NPU leaf with an index lies in [0, 1].
    const leaves = Object.values(synth.NPU.node).filter((n) => (n.subnodes ?? []).length === 0 && typeof n.data?.precision_index === 'number').length;
    await page.locator('[data-testid="filter-bucket-0"]').check();
    await expect.poll(() => page.locator('[data-testid="filter-count"]').getAttribute('data-total'), { timeout: 20_000 }).toBe(String(leaves));

    await page.reload();
    await nodeAt(page, 'npu', F16_FORWARD).waitFor();
    await expect.poll(() => fill(page, 'npu', F16_FORWARD)).toBe('#FF4118');
    await page.locator('[data-testid="color-edit"]').click();
    await page.locator('[data-testid="color-reset"]').click();
    await expect.poll(() => fill(page, 'npu', F16_FORWARD)).toBe(original);
    await expect(page.locator('[data-testid="colors-edited"]').count()).resolves.toBe(0);
    await page.context().close();
  });

  it('recomputes the precision index from the chosen metrics and recolours', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer&side=npu&node=${PA}`);
    await expect.poll(() => page.locator('[data-testid="info-precision-value"]').textContent(), { timeout: 20_000 }).toBe('1');
    await expect.poll(() => fill(page, 'npu', PA), { timeout: 20_000 }).toBe(bucketColor(fileColors, 1));

    await page.locator('[data-testid="metric-edit"]').click();
    for (const metric of ['MaxRelativeErr', 'MinRelativeErr', 'NormRelativeErr']) await page.locator(`[data-testid="metric-${metric}"]`).uncheck();
    await page.locator('[data-testid="metric-apply"]').click();
    // The largest MeanRelativeErr over the outputs, as a fraction.
    const means = Object.values(synth.NPU.node[PA].output_data!).map((o) => parseFloat(String(o.MeanRelativeErr)) / 100);
    const mean = Math.min(1, Math.max(...means.filter(Number.isFinite)));
    await expect.poll(() => page.locator('[data-testid="info-precision-value"]').textContent(), { timeout: 20_000 }).toBe(formatPrecision(mean));
    await expect.poll(() => fill(page, 'npu', PA)).toBe(bucketColor(fileColors, mean));
    await expect(page.locator('[data-testid="metric-chosen"]').textContent()).resolves.toContain('MeanRelativeErr');
    await page.context().close();
  });

  it('shares the overlay through the link; another browser without the link sees none of it', async () => {
    const page = await open(MATCH_RUN);
    await matchF16(page);
    await page.locator('[data-testid="metric-edit"]').click();
    for (const metric of ['MaxRelativeErr', 'MinRelativeErr', 'NormRelativeErr']) await page.locator(`[data-testid="metric-${metric}"]`).uncheck();
    await page.locator('[data-testid="metric-apply"]').click();
    await expect.poll(() => page.locator('[data-testid="metric-chosen"]').count()).toBe(1);
    await page.locator('[data-testid="color-edit"]').click();
    for (let i = fileColors.length - 2; i >= 1; i--) await page.locator(`[data-testid="color-remove-${i}"]`).click();
    // One bucket below 0.002: the Mean-only index of the module (0.0013) falls in it, its Max-based one (0.025) not.
    await page.fill('[data-testid="color-hi-0"]', '0.002');
    await page.locator('[data-testid="color-apply"]').click();
    await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/ov=M4\*CFFFCF3_0_0\.002\*c0\./);
    await expect.poll(() => page.locator('[data-testid="match-steps"]').getAttribute('data-busy')).toBeNull();
    const shared = page.url();
    const fills = await npuFills(page);
    expect(fills[F16_FORWARD]).toBe('#FFFCF3');

    const teammate = await open(shared.slice(server.origin.length + 1));
    await expect.poll(() => npuFills(teammate), { timeout: 20_000 }).toEqual(fills);
    await expect(teammate.locator('[data-testid="metric-chosen"]').textContent()).resolves.toContain('MeanRelativeErr');
    await expect(teammate.locator('[data-testid="colors-edited"]').count()).resolves.toBe(1);
    await teammate.locator('[data-testid="match-toggle"]').click();
    await expect(teammate.locator('[data-testid="match-steps"]').getAttribute('data-cursor')).resolves.toBe('1');

    const stranger = await open(MATCH_RUN);
    await expect(fill(stranger, 'npu', F16_FORWARD)).resolves.toBe(GREY);
    await expect(stranger.locator('[data-testid="metric-chosen"]').count()).resolves.toBe(0);
    for (const p of [page, teammate, stranger]) await p.context().close();
  });

  /** The real app on a fixed port, so that a "restarted" server answers the page at the same address. */
  function listen(logdir: string, port: number, readOnly = false): Promise<Server> {
    return new Promise((resolve, reject) => {
      const s = createApp({ logdir, appDir, readOnly }).listen(port, '127.0.0.1');
      s.once('listening', () => resolve(s));
      s.once('error', reject);
    });
  }
  const stop = (s: Server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });

  it('registers the overlay again when a restarted server no longer knows its id, without a word to the user', async () => {
    const logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-e2e-'));
    writeUnmatchedSynth(path.join(logdir, 'match'), 'synth', [F16_FORWARD, F16_BACKWARD]);
    let first = await listen(logdir, 0);
    const port = (first.address() as { port: number }).port;
    try {
      const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`http://127.0.0.1:${port}/${MATCH_RUN}`);
      await nodeAt(page, 'npu', F16_FORWARD).waitFor();
      await matchF16(page);
      const registrations: string[] = [];
      page.on('request', (r) => r.method() === 'POST' && r.url().includes('/api/overlay?') && registrations.push(r.url()));
      await stop(first);
      first = await listen(logdir, port);
      // A request under the old id is answered 409 overlayUnknown: registered again, then repeated.
      await nodeAt(page, 'npu', F16_FORWARD).click();
      await expect.poll(() => page.locator('[data-testid="info-precision-value"]').textContent(), { timeout: 20_000 }).toBe(formatPrecision(npuIndex(F16_FORWARD)));
      await expect.poll(() => page.locator('[data-testid="info-bench-node"]').getAttribute('title')).toBe(F16_FORWARD);
      expect(registrations.length).toBe(1);
      await expect(page.locator('[data-testid="error-banner"]').count()).resolves.toBe(0);
      await page.context().close();
    } finally {
      await stop(first);
      rmSync(logdir, { recursive: true, force: true });
    }
  });

  it('on a read-only server matches in the browser but offers no writes, saying why', async () => {
    const logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-e2e-'));
    writeUnmatchedSynth(path.join(logdir, 'match'), 'synth', [F16_FORWARD, F16_BACKWARD]);
    const served = await listen(logdir, 0, true);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`http://127.0.0.1:${(served.address() as { port: number }).port}/${MATCH_RUN}`);
      await nodeAt(page, 'npu', F16_FORWARD).waitFor();
      await matchF16(page);
      for (const id of ['match-export', 'match-save-copy', 'match-overwrite']) {
        await expect.poll(() => page.locator(`[data-testid="${id}"]`).isDisabled()).toBe(true);
        await expect(page.locator(`[data-testid="${id}"]`).getAttribute('title')).resolves.toMatch(/read-only/);
      }
      await expect(page.locator('[data-testid="match-read-only"]').count()).resolves.toBe(1);
      await page.context().close();
    } finally {
      await stop(served);
      rmSync(logdir, { recursive: true, force: true });
    }
  });

  it('saves a matched copy (asking before replacing one), and overwrites the file after a confirmation, keeping a .bak', async () => {
    const logdir = mkdtempSync(path.join(os.tmpdir(), 'probeboard-e2e-'));
    const file = writeUnmatchedSynth(path.join(logdir, 'match'), 'synth', [F16_FORWARD, F16_BACKWARD]);
    const before = readFileSync(file);
    const served = await listen(logdir, 0);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(`http://127.0.0.1:${(served.address() as { port: number }).port}/${MATCH_RUN}`);
      await nodeAt(page, 'npu', F16_FORWARD).waitFor();
      await matchF16(page);
      const copy = path.join(logdir, 'match', 'synth.matched.vis');
      for (const round of [1, 2]) {
        await page.locator('[data-testid="match-save-copy"]').click();
        await expect(page.locator('[data-testid="match-confirm-text"]').textContent()).resolves.toContain('synth.matched.vis');
        await page.locator('[data-testid="match-confirm-write"]').click();
        if (round === 2) {
          // The copy is there now: replacing it takes a second yes.
          await expect.poll(() => page.locator('[data-testid="match-confirm-text"]').textContent()).toContain('already exists');
          await page.locator('[data-testid="match-confirm-write"]').click();
        }
        await expect.poll(() => toastKeys(page), { timeout: 20_000 }).toContain('match.toast.savedCopy');
        await page.locator('[data-testid="match-toast-close"]').click();
      }
      const saved = JSON.parse(readFileSync(copy, 'utf8')) as typeof synth;
      expect(saved.NPU.node[F16_FORWARD].matched_node_link!.at(-1)).toBe(F16_FORWARD);
      expect(readFileSync(file).equals(before)).toBe(true);

      await page.locator('[data-testid="match-overwrite"]').click();
      await page.locator('[data-testid="match-confirm-write"]').click();
      await expect.poll(() => toastKeys(page), { timeout: 20_000 }).toContain('match.toast.overwritten');
      expect(readFileSync(`${file}.bak`).equals(before)).toBe(true);
      expect((JSON.parse(readFileSync(file, 'utf8')) as typeof synth).NPU.node[F16_FORWARD].matched_node_link!.at(-1)).toBe(F16_FORWARD);
      // The matches are the file's own now: the browser's steps are gone, the colour stays.
      await expect.poll(() => page.locator('[data-testid="match-steps"]').getAttribute('data-cursor')).toBe('0');
      await expect.poll(() => fill(page, 'npu', F16_FORWARD), { timeout: 20_000 }).toBe(bucketColor(fileColors, npuIndex(F16_FORWARD)));
      await expect(page.locator('[data-testid="error-banner"]').count()).resolves.toBe(0);
      await page.context().close();
    } finally {
      await stop(served);
      rmSync(logdir, { recursive: true, force: true });
    }
  });
});
