import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14 #6 in Chromium: a `Distributed.*` node's `matched_distributed` (msprobe-format.md §2.12) is shown in the
 * info panel's Communication tab (type, each peer rank's node as the file names it), and "Go to rank N" opens that
 * rank (the peer's own `.vis`, or the `.vis.db` at rank N) with the peer node selected. Fixture: the graph command's
 * output for a 3-rank dump with all_reduce collectives (test/fixtures/e2e/ranks).
 */
const DIR = path.join(repoRoot, 'test/fixtures/e2e/ranks');
const VIS_TAGS = readdirSync(path.join(DIR, 'vis'))
  .filter((f) => f.endsWith('.vis'))
  .sort()
  .map((f) => f.replace(/\.vis$/, ''));
const DB_FILE = readdirSync(path.join(DIR, 'db')).find((f) => f.endsWith('.vis.db'))!;

interface Peers {
  id: string;
  type: string;
  peers: Array<[string, [string, string]]>;
}

/** The first NPU node of rank 0 with communication peers, from the `.vis` itself. */
function visPeers(): Peers {
  const doc = parsePyJson(readFileSync(path.join(DIR, 'vis', `${VIS_TAGS[0]}.vis`), 'utf8')) as Record<string, any>;
  for (const [id, node] of Object.entries(doc.NPU.node as Record<string, any>)) {
    const md = node.matched_distributed;
    if (md && md.nodes_info && Object.keys(md.nodes_info).length > 0) return { id, type: md.communications_type, peers: Object.entries(md.nodes_info) };
  }
  throw new Error('the fixture has no matched_distributed');
}

/** The same from the `.vis.db` (rank 0, NPU). */
function dbPeers(): Peers {
  const db = new Database(path.join(DIR, 'db', DB_FILE), { readonly: true });
  const row = db
    .prepare("SELECT node_name, matched_distributed FROM tb_nodes WHERE rank = 0 AND data_source = 'NPU' AND matched_distributed NOT IN ('', '{}') ORDER BY node_order LIMIT 1")
    .get() as { node_name: string; matched_distributed: string };
  db.close();
  const md = JSON.parse(row.matched_distributed);
  return { id: row.node_name, type: md.communications_type, peers: Object.entries(md.nodes_info) };
}

async function checkTab(page: Page, expected: Peers): Promise<void> {
  await page.locator('[data-testid="info-tab-comm"]').click();
  await expect(page.locator('[data-testid="comm-npu"] [data-testid="comm-type"]').first().textContent()).resolves.toContain(expected.type);
  const rows = await page
    .locator('[data-testid="comm-npu"] [data-testid="comm-peer"]')
    .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-rank'), tr.getAttribute('data-node'), tr.children[2].textContent]));
  expect(rows).toEqual(expected.peers.map(([rank, [index, id]]) => [rank, id, index]));
}

describeBrowser('communication peers in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/ranks']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  it('lists the peers of a per-rank .vis node and opens the peer rank’s file at its node', async () => {
    const expected = visPeers();
    expect(expected.peers.length).toBeGreaterThan(1);
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=ranks/vis&tag=${VIS_TAGS[0]}&side=npu&node=${encodeURIComponent(expected.id)}`);
    await checkTab(page, expected);
    await page.screenshot({ path: screenshotPath('peers-vis') });

    const [rank, [, peerId]] = expected.peers[expected.peers.length - 1];
    await page.locator(`[data-testid="comm-peer"][data-rank="${rank}"] [data-testid="comm-go"]`).first().click();
    await expect.poll(() => page.locator('[data-testid="tag-select"] option:checked').getAttribute('value')).toBe(VIS_TAGS[Number(rank)]);
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(peerId);
    await page.locator(`[data-node-id="${peerId}"][data-side="npu"]`).first().waitFor();
    await context.close();
  });

  it('opens the peer rank of a .vis.db at its node through the rank picker', async () => {
    const expected = dbPeers();
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=ranks/db&tag=${DB_FILE.replace(/\.vis\.db$/, '')}&side=npu&node=${encodeURIComponent(expected.id)}`);
    await checkTab(page, expected);
    const [rank, [, peerId]] = expected.peers[0];
    await page.locator(`[data-testid="comm-npu"] [data-testid="comm-peer"][data-rank="${rank}"] [data-testid="comm-go"]`).click();
    await expect.poll(() => page.locator('[data-testid="rank-select"]').inputValue()).toBe(rank);
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(peerId);
    await context.close();
  });

  it('offers no Communication tab for a node without peers', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const doc = parsePyJson(readFileSync(path.join(DIR, 'vis', `${VIS_TAGS[0]}.vis`), 'utf8')) as Record<string, any>;
    const root = doc.NPU.root as string;
    await page.goto(`${server.origin}/#graphs?run=ranks/vis&tag=${VIS_TAGS[0]}&side=npu&node=${encodeURIComponent(root)}`);
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(root);
    await expect(page.locator('[data-testid="info-tab-comm"]').count()).resolves.toBe(0);
    await context.close();
  });
});
