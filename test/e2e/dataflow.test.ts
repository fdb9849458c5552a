import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { appDir, describeBrowser, launchBrowser, screenshotPath } from '../helpers/browser.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { describeShared, repoRoot, sharedDataDir } from '../helpers/shared.js';
import { WIDE_ID, writeWideVis } from '../helpers/wideVis.js';
import { DATAFLOW_MAX_CHILDREN } from '../../src/core/dataflow/inferEdges.js';

/**
 * Issue 16's "Dataflow (inferred)" switch in Chromium on a real msprobe compare file (torchvision resnet18 dumped by
 * msprobe, ../shared/data/real): it asks the server for inferred edges (`dataflow=1` on the children requests), keeps
 * the open groups, draws the edges dotted (`[data-edge][data-inferred]`), shows the legend's inferred-edge entry in
 * English and Chinese, and lives in the link.
 */
const node = (page: Page, id: string) => page.locator(`[data-node-id="${id}"][data-side="npu"]`);
const LAYER1 = 'Module.layer1.Sequential.forward.0';
const BLOCK = 'Module.layer1.0.BasicBlock.forward.0';

describeShared('inferred dataflow in the viewer', () => {
  describeBrowser('inferred dataflow in the viewer', () => {
    let tmp: string;
    let served: ServedApp;
    let browser: Browser;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-dataflow-e2e-'));
      const logdir = path.join(tmp, 'logs');
      mkdirSync(path.join(logdir, 'real'), { recursive: true });
      mkdirSync(path.join(logdir, 'tb'));
      mkdirSync(path.join(logdir, 'wide'));
      writeWideVis(path.join(logdir, 'wide', 'over.vis'), { children: DATAFLOW_MAX_CHILDREN + 1 });
      writeWideVis(path.join(logdir, 'wide', 'at.vis'), { children: DATAFLOW_MAX_CHILDREN });
      const resnet = path.join(sharedDataDir()!, 'real/resnet18_mix_statistics/golden/graph-vis-202507/compare_step0_rank_20261126140403.vis');
      copyFileSync(resnet, path.join(logdir, 'real', 'resnet.vis'));
      copyFileSync(path.join(repoRoot, 'test/fixtures/tb/pytorch_test_pytorch_graph.pbtxt'), path.join(logdir, 'tb', 'torch.pbtxt'));
      // Its own cache directory: nothing left from other runs (or other checkouts) is read back.
      const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache') });
      served = await serveApp(createApp({ logdir, appDir, stores }));
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
      await served?.close();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    /** A page that records the children requests it sends. */
    async function newPage(): Promise<{ page: Page; children: string[] }> {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      const children: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/graph/children')) children.push(r.url());
      });
      return { page, children };
    }

    const flagged = (urls: string[]) => urls.filter((u) => new URL(u).searchParams.get('dataflow') === '1');
    const inferredEdges = (page: Page) =>
      page.evaluate(() =>
        [...document.querySelectorAll('[data-edge]')].map((e) => ({
          from: e.getAttribute('data-from'),
          to: e.getAttribute('data-to'),
          inferred: e.hasAttribute('data-inferred'),
        })),
      );

    it('turned on, asks for inferred edges, keeps the open groups, draws them and shows the legend entry; turned off, none', async () => {
      const { page, children } = await newPage();
      await page.goto(`${served.origin}/#graphs?run=real&tag=resnet&lang=en`);
      await node(page, LAYER1).waitFor();
      await node(page, LAYER1).dblclick();
      await node(page, BLOCK).waitFor();
      const toggle = page.locator('[data-testid="dataflow-toggle"]');
      await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('false');
      expect(await toggle.textContent()).toContain('Dataflow (inferred)');
      expect(await page.locator('[data-testid="legend-inferred"]').count()).toBe(0);
      expect(flagged(children)).toEqual([]);
      expect(await page.locator('[data-edge]').count()).toBe(0);

      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('true');
      // Both panes ask again for the groups they show, root and layer1 included, with the flag.
      await expect
        .poll(() => flagged(children).map((u) => `${new URL(u).searchParams.get('side')}:${new URL(u).searchParams.get('node')}`), { timeout: 10_000 })
        .toEqual(expect.arrayContaining(['npu:DefaultModel', 'bench:DefaultModel', `npu:${LAYER1}`, `bench:${LAYER1}`]));
      await expect.poll(() => page.locator('[data-testid="legend-inferred"]').textContent()).toBe('inferred dataflow');
      await node(page, BLOCK).waitFor();
      await expect.poll(() => page.evaluate(() => location.hash)).toContain('dataflow=1');
      // Drawn dotted as inferred, in both panes: the head of the network (flatten → fc) among the root's children
      // and the two residual blocks inside layer1.
      await expect
        .poll(() => inferredEdges(page), { timeout: 10_000 })
        .toEqual(
          expect.arrayContaining([
            { from: 'Torch.flatten.0.forward', to: 'Module.fc.Linear.forward.0', inferred: true },
            { from: BLOCK, to: 'Module.layer1.1.BasicBlock.forward.0', inferred: true },
          ]),
        );
      const drawn = await inferredEdges(page);
      expect(drawn.every((e) => e.inferred)).toBe(true);
      expect(drawn.filter((e) => e.from === 'Torch.flatten.0.forward')).toHaveLength(2);
      await page.screenshot({ path: screenshotPath('dataflow-inferred') });

      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-pressed')).toBe('false');
      await expect.poll(() => page.locator('[data-testid="legend-inferred"]').count()).toBe(0);
      await expect.poll(() => page.evaluate(() => location.hash)).not.toContain('dataflow=1');
      await node(page, BLOCK).waitFor();
      await expect.poll(() => page.locator('[data-edge]').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    });

    it('an open module too wide for the inference says so, in English and Chinese; one at the limit does not', async () => {
      const { page } = await newPage();
      const note = page.locator('[data-testid="dataflow-skipped-npu"]');
      await page.goto(`${served.origin}/#graphs?run=wide&tag=over&dataflow=1&lang=en`);
      await node(page, WIDE_ID).waitFor();
      expect(await note.count()).toBe(0);
      await node(page, WIDE_ID).dblclick();
      await expect
        .poll(() => note.textContent(), { timeout: 15_000 })
        .toBe(`No inferred dataflow in ${WIDE_ID}: 2,001 children, more than the 2,000 the inference handles.`);
      expect(await note.locator('[data-group]').getAttribute('data-group')).toBe(WIDE_ID);
      await page.screenshot({ path: screenshotPath('dataflow-skipped') });
      // Closed again: nothing to explain.
      await node(page, WIDE_ID).dblclick({ position: { x: 4, y: 3 } });
      await expect.poll(() => note.count()).toBe(0);

      await page.goto(`${served.origin}/#graphs?run=wide&tag=over&dataflow=1&lang=zh-CN`);
      await page.reload();
      await node(page, WIDE_ID).waitFor();
      await node(page, WIDE_ID).dblclick();
      await expect.poll(() => note.textContent(), { timeout: 15_000 }).toBe(`${WIDE_ID} 未推断数据流：其子节点有 2,001 个，超过推断上限 2,000 个。`);

      await page.goto(`${served.origin}/#graphs?run=wide&tag=at&dataflow=1&lang=en`);
      await page.reload();
      await node(page, WIDE_ID).waitFor();
      await node(page, WIDE_ID).dblclick();
      await expect.poll(() => node(page, WIDE_ID).getAttribute('data-expanded'), { timeout: 15_000 }).toBe('true');
      await expect.poll(() => page.locator('[data-testid="loading-npu"]').count(), { timeout: 15_000 }).toBe(0);
      expect(await note.count()).toBe(0);
      expect(pageErrors).toEqual([]);
    });

    it('a link with dataflow=1 opens with it on, in Chinese too; a TensorBoard graph has no switch', async () => {
      const { page, children } = await newPage();
      await page.goto(`${served.origin}/#graphs?run=real&tag=resnet&dataflow=1&lang=zh-CN`);
      await node(page, 'Module.fc.Linear.forward.0').waitFor();
      await expect.poll(() => page.locator('[data-testid="legend-inferred"]').textContent()).toBe('推断的数据流');
      expect(await page.locator('[data-testid="dataflow-toggle"]').textContent()).toContain('数据流（推断）');
      expect(await page.locator('[data-testid="dataflow-toggle"]').getAttribute('aria-pressed')).toBe('true');
      // Every children request of the page carried the flag, the first included.
      expect(children.length).toBeGreaterThan(0);
      expect(flagged(children)).toEqual(children);

      await page.goto(`${served.origin}/#graphs?run=tb&tag=torch.pbtxt&dataflow=1&lang=en`);
      // Its meta is read (the legend says it is a single graph), so the switch had every chance to show.
      await expect.poll(() => page.locator('[data-testid="color-legend"]').textContent(), { timeout: 10_000 }).toContain('single graph');
      expect(await page.locator('[data-testid="dataflow-toggle"]').count()).toBe(0);
      expect(await page.locator('[data-testid="legend-inferred"]').count()).toBe(0);
      expect(pageErrors).toEqual([]);
    });
  });
});
