import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { UNREACHABLE_GROUP_ID } from '../../server/store/unreachableGroup.js';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14 #11: a layer-mapping `.vis` whose nodes are mostly not reachable from the root (msprobe-format.md §2.4)
 * shows them in one marked group at the top level, and a search hit among them is located inside it, drawn and
 * selected, with the note that the nearest matched ancestor (here the root) stands in for its counterpart.
 */
const FILE = path.join(repoRoot, 'test/fixtures/e2e/compare/lm_pt_vs_pt.vis');
const TARGET = 'NPU.npu_rms_norm.0.forward';

/** The NPU side's orphans and the ones no orphan lists (the group's children), from the file itself. */
function orphans(): { all: string[]; tops: string[]; root: string; benchRoot: string } {
  const doc = JSON.parse(readFileSync(FILE, 'utf8'));
  const { root, node } = doc.NPU as { root: string; node: Record<string, { subnodes?: string[] }> };
  const reached = new Set([root]);
  const stack = [root];
  while (stack.length > 0) for (const c of node[stack.pop()!].subnodes ?? []) if (c in node && !reached.has(c)) reached.add(c), stack.push(c);
  const all = Object.keys(node).filter((id) => !reached.has(id));
  const listed = new Set(all.flatMap((id) => (node[id].subnodes ?? []).filter((c) => c !== id)));
  return { all, tops: all.filter((id) => !listed.has(id)), root, benchRoot: doc.Bench.root };
}

describeBrowser('nodes unreachable from the root in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/compare']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows them in a marked top-level group; a search hit among them is located inside it', async () => {
    const { all, tops, root } = orphans();
    expect(all).toContain(TARGET);
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    await page.goto(`${server.origin}/`);
    await page.locator('[data-testid="run-select"] option[value="compare"]').waitFor({ state: 'attached' });
    await page.selectOption('[data-testid="run-select"]', 'compare');
    await page.selectOption('[data-testid="tag-select"]', 'lm_pt_vs_pt');
    const group = page.locator(`[data-testid="pane-npu"] [data-node-id="${UNREACHABLE_GROUP_ID}"]`);
    await group.waitFor();
    await expect.poll(() => group.textContent()).toContain(`Unreachable from root (${tops.length})`);
    expect(await page.locator(`[data-testid="pane-npu"] [data-node-id="${TARGET}"]`).count()).toBe(0);

    const input = page.locator('[data-testid="search-input"]');
    await input.fill('rms_norm');
    await input.press('Enter');
    await expect.poll(() => page.locator('[data-testid="search-count"]').getAttribute('data-total')).toBe(
      String(Object.keys(JSON.parse(readFileSync(FILE, 'utf8')).NPU.node).filter((id) => id.toLowerCase().includes('rms_norm')).length),
    );
    await page.locator(`[data-testid="search-list"] [data-found-id="${TARGET}"]`).click();
    const target = page.locator(`[data-testid="pane-npu"] [data-node-id="${TARGET}"]`);
    await expect.poll(() => target.getAttribute('data-selected'), { timeout: 10_000 }).toBe('true');
    expect(await group.getAttribute('data-expanded')).toBe('true');
    // Unmatched, and so is every orphan above it: the root's counterpart stands in, said in a note.
    await expect.poll(() => page.locator('[data-testid="search-locate-note"]').getAttribute('data-ancestor')).toBe(root);
    await page.screenshot({ path: screenshotPath('unreachable-located') });
  });
});
