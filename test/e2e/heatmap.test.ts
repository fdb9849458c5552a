import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bucketColor } from '../../src/core/colors/buckets.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { colorBuckets } from '../../server/store/visJson/visJsonStore.js';
import { formatPrecision } from '../../src/app/commands/worstNodes.js';
import { describeBrowser, launchBrowser, screenshotPath, startTestServer, type TestServer } from '../helpers/browser.js';
import { dbOracle, visOracle, type RankCells } from '../helpers/rankOracle.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14's rank × top-level-module heatmap in Chromium, on the graph command's multi-rank output
 * (test/fixtures/e2e/ranks): every painted cell has the file's bucket colour of the worst value this test computes
 * by walking the tree; hovering names rank, module and value; a click opens that rank (rank picker of the `.vis.db`,
 * the rank's own `.vis`) with that module selected. On 400 ranks the panel asks only for the rows in view (and a
 * box's worth below), and a scroll to the end asks for, paints and opens the ranks there.
 */
const DIR = path.join(repoRoot, 'test/fixtures/e2e/ranks');
const DB_FILE = readdirSync(path.join(DIR, 'db')).find((f) => f.endsWith('.vis.db'))!;
const DB_TAG = DB_FILE.replace(/\.vis\.db$/, '');
const VIS_TAGS = readdirSync(path.join(DIR, 'vis'))
  .filter((f) => f.endsWith('.vis'))
  .sort()
  .map((f) => f.replace(/\.vis$/, ''));

function fileColors(file = path.join(DIR, 'db', DB_FILE)) {
  const db = new Database(file, { readonly: true });
  const text = db.prepare('SELECT node_colors FROM tb_config').pluck().get() as string;
  db.close();
  return colorBuckets(parsePyJson(text));
}

const hexRgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/** The canvas's pixel per cell (one canvas pixel is one cell, one canvas row per rank in view), as [r, g, b, a]. */
function canvasPixels(page: Page): Promise<{ width: number; height: number; data: number[] }> {
  return page.locator('[data-testid="heatmap-canvas"]').evaluate((c: HTMLCanvasElement) => ({
    width: c.width,
    height: c.height,
    data: Array.from(c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data),
  }));
}

/**
 * The fixture's `.vis.db` grown to `ranks` ranks: rank r ≥ 3 is rank r % 3's root and root children (both sides; the
 * children's own subtrees left out, so that 400 ranks are 3 MB), their real-valued precision_index shifted by r.
 */
function manyRanks(out: string, ranks: number): void {
  copyFileSync(path.join(DIR, 'db', DB_FILE), out);
  const db = new Database(out);
  db.pragma('journal_mode = DELETE');
  const have = (JSON.parse(db.prepare('SELECT rank_list FROM tb_config').pluck().get() as string) as number[]).length;
  const columns = db.prepare("SELECT name FROM pragma_table_info('tb_nodes')").pluck().all() as string[];
  const shifted = 'abs(precision_index + @rank * 0.137)';
  const value: Record<string, string> = {
    id: "data_source || '_' || step || '_' || @rank || '_' || node_name",
    graph_id: "data_source || '_' || step || '_' || @rank",
    rank: '@rank',
    input_data: "'{}'",
    output_data: "'{}'",
    sub_nodes: "CASE WHEN up_node = '' THEN sub_nodes ELSE '' END",
    precision_index: `CASE WHEN typeof(precision_index) = 'real' THEN ${shifted} - CAST(${shifted} AS INTEGER) ELSE precision_index END`,
  };
  const copy = db.prepare(
    `INSERT INTO tb_nodes (${columns.join(', ')}) SELECT ${columns.map((c) => value[c] ?? c).join(', ')} FROM tb_nodes n
     WHERE rank = @from AND (up_node = '' OR up_node = (SELECT node_name FROM tb_nodes r WHERE r.step = n.step AND r.rank = n.rank AND r.data_source = n.data_source AND r.up_node = ''))`,
  );
  db.transaction(() => {
    for (let r = have; r < ranks; r++) copy.run({ rank: r, from: r % have });
    db.prepare('UPDATE tb_config SET rank_list = ?').run(JSON.stringify(Array.from({ length: ranks }, (_, r) => r)));
  })();
  db.close();
}

/** Column ids in the order the test expects: first seen over ranks in rank order, each rank in file order. */
function columnsOf(oracle: Map<number, RankCells>): string[] {
  const ids: string[] = [];
  for (const cells of oracle.values()) for (const id of cells.keys()) if (!ids.includes(id)) ids.push(id);
  return ids;
}

async function openHeatmap(page: Page): Promise<void> {
  await page.locator('[data-testid="heatmap-toggle"]').click();
  await page.locator('[data-testid="heatmap-canvas"][data-painted-at]').waitFor();
}

/** Moves the pointer to the middle of one cell. */
async function pointAt(page: Page, row: number, column: number, rows: number, columns: number): Promise<void> {
  const canvas = page.locator('[data-testid="heatmap-canvas"]');
  await canvas.scrollIntoViewIfNeeded();
  const box = (await canvas.boundingBox())!;
  await page.mouse.move(box.x + ((column + 0.5) * box.width) / columns, box.y + ((row + 0.5) * box.height) / rows);
}

describeBrowser('rank × module heatmap in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(['test/fixtures/e2e/ranks', 'test/fixtures/e2e/compare']);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  it('paints every rank of a .vis.db in the file’s colours and opens a rank at a module', async () => {
    const oracle = dbOracle(path.join(DIR, 'db', DB_FILE));
    const colors = fileColors();
    const modules = columnsOf(oracle);
    const ranks = [...oracle.keys()];
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=ranks/db&tag=${DB_TAG}`);
    await openHeatmap(page);

    const px = await canvasPixels(page);
    expect([px.width, px.height]).toEqual([modules.length, ranks.length]);
    const distinct = new Set<string>();
    ranks.forEach((rank, r) =>
      modules.forEach((id, c) => {
        const v = oracle.get(rank)!.get(id) ?? null;
        const color = v === null ? null : bucketColor(colors, v);
        const o = (r * px.width + c) * 4;
        const got = px.data.slice(o, o + 3);
        if (color) {
          expect(got, `rank ${rank} ${id} = ${v}`).toEqual(hexRgb(color));
          distinct.add(color);
        }
      }),
    );
    // The fixture's cells fall in more than one bucket: a uniform paint would fail above.
    expect(distinct.size).toBeGreaterThan(1);

    // Hover: rank, module and value of the cell under the pointer.
    const target = { rank: ranks[ranks.length - 1], row: ranks.length - 1 };
    const column = modules.findIndex((id) => oracle.get(target.rank)!.get(id) !== null);
    const value = oracle.get(target.rank)!.get(modules[column])!;
    await pointAt(page, target.row, column, ranks.length, modules.length);
    const tip = page.locator('[data-testid="heatmap-tooltip"]');
    await tip.waitFor();
    await expect(tip.getAttribute('data-rank')).resolves.toBe(String(target.rank));
    await expect(tip.getAttribute('data-module')).resolves.toBe(modules[column]);
    await expect(tip.textContent()).resolves.toContain(formatPrecision(value));
    await page.screenshot({ path: screenshotPath('heatmap-db') });

    // Click: the rank picker moves to that rank and the module is selected and drawn.
    await page.mouse.down();
    await page.mouse.up();
    await expect.poll(() => page.locator('[data-testid="rank-select"]').inputValue()).toBe(String(target.rank));
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(modules[column]);
    await page.locator(`[data-node-id="${modules[column]}"][data-side="npu"]`).first().waitFor();
    await context.close();
  });

  it('reads a run of per-rank .vis files and opens the clicked rank’s file', async () => {
    const oracle = new Map(VIS_TAGS.map((tag, k) => [k, visOracle(path.join(DIR, 'vis', `${tag}.vis`))]));
    const modules = columnsOf(oracle);
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.origin}/#graphs?run=ranks/vis&tag=${VIS_TAGS[0]}`);
    await openHeatmap(page);
    await expect(page.locator('[data-testid="heatmap-size"]').getAttribute('data-rows')).resolves.toBe(String(VIS_TAGS.length));
    await expect(page.locator('[data-testid="heatmap-size"]').getAttribute('data-columns')).resolves.toBe(String(modules.length));

    const column = modules.length - 1;
    await pointAt(page, 1, column, VIS_TAGS.length, modules.length);
    await page.locator('[data-testid="heatmap-tooltip"]').waitFor();
    await expect(page.locator('[data-testid="heatmap-tooltip"]').textContent()).resolves.toContain(formatPrecision(oracle.get(1)!.get(modules[column])!));
    await page.mouse.down();
    await page.mouse.up();
    await expect.poll(() => page.locator('[data-testid="tag-select"] option:checked').getAttribute('value')).toBe(VIS_TAGS[1]);
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(modules[column]);
    // The grid stays for the run: the new rank's file asks again and paints the same cells.
    await page.locator('[data-testid="heatmap-canvas"][data-painted-at]').waitFor();
    await context.close();
  });

  it('scrolls 400 ranks: asks for the rows in view, then for the rows scrolled to, paints and opens them', async () => {
    const RANKS = 400;
    mkdirSync(path.join(server.logdir, 'many'));
    const file = path.join(server.logdir, 'many', 'many.vis.db');
    manyRanks(file, RANKS);
    const oracle = dbOracle(file);
    const colors = fileColors(file);
    const modules = columnsOf(oracle);
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    const asked: Array<[number, number]> = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.endsWith('/api/graph/heatmap')) asked.push([Number(url.searchParams.get('rankOffset')), Number(url.searchParams.get('rankLimit'))]);
    });
    await page.goto(`${server.origin}/#graphs?run=many&tag=many`);
    await openHeatmap(page);
    await expect(page.locator('[data-testid="heatmap-size"]').getAttribute('data-rows')).resolves.toBe(String(RANKS));
    const canvas = page.locator('[data-testid="heatmap-canvas"]');
    await page.locator('[data-testid="heatmap-canvas"][data-first-row="0"][data-complete="true"]').waitFor();
    // 2 px a row in a 320 px box: the canvas holds the 161 rows in view; only those and a box below (160) were asked.
    const top = await canvasPixels(page);
    expect([top.width, top.height]).toEqual([modules.length, 161]);
    expect(asked[0]).toEqual([0, 161]);
    await expect.poll(() => asked.length).toBe(2);
    expect(Math.max(...asked.map(([o, l]) => o + l))).toBe(321);

    // To the end: rows 240–399 are painted, their rows asked for after the scroll.
    await page.locator('[data-testid="heatmap-box"]').evaluate((box) => box.scrollTo(0, box.scrollHeight));
    const first = RANKS - 160;
    await page.locator(`[data-testid="heatmap-canvas"][data-first-row="${first}"][data-complete="true"]`).waitFor();
    expect(asked.slice(2)).toContainEqual([321, RANKS - 321]);
    const px = await canvasPixels(page);
    expect([px.width, px.height]).toEqual([modules.length, RANKS - first]);
    const distinct = new Set<string>();
    for (let r = 0; r < px.height; r++) {
      modules.forEach((id, c) => {
        const v = oracle.get(first + r)!.get(id) ?? null;
        const color = v === null ? null : bucketColor(colors, v);
        const o = (r * px.width + c) * 4;
        if (color) {
          expect(px.data.slice(o, o + 3), `rank ${first + r} ${id} = ${v}`).toEqual(hexRgb(color));
          distinct.add(color);
        }
      });
    }
    expect(distinct.size).toBeGreaterThan(1);

    // The last rank's cell with the highest value: hover names it, a click opens rank 399 there.
    const rank = RANKS - 1;
    const column = modules.reduce((best, id, c) => ((oracle.get(rank)!.get(id) ?? -1) > (oracle.get(rank)!.get(modules[best]) ?? -1) ? c : best), 0);
    const value = oracle.get(rank)!.get(modules[column])!;
    await pointAt(page, rank - first, column, px.height, modules.length);
    const tip = page.locator('[data-testid="heatmap-tooltip"]');
    await tip.waitFor();
    await expect(tip.getAttribute('data-rank')).resolves.toBe(String(rank));
    await expect(tip.textContent()).resolves.toContain(formatPrecision(value));
    await page.screenshot({ path: screenshotPath('heatmap-scrolled') });
    await page.mouse.down();
    await page.mouse.up();
    await expect.poll(() => page.locator('[data-testid="rank-select"]').inputValue()).toBe(String(rank));
    await expect.poll(() => page.locator('[data-testid="info-npu-node"]').getAttribute('title')).toBe(modules[column]);
    // The grid stays for the file's ranks: still scrolled to the end.
    await expect(canvas.getAttribute('data-first-row')).resolves.toBe(String(first));
    await context.close();
  });

  it('is not offered for a single-rank file', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.origin}/#graphs?run=compare&tag=synth_2layer`);
    await page.locator('[data-testid="worst-toggle"]').waitFor();
    await expect(page.locator('[data-testid="heatmap-panel"]').count()).resolves.toBe(0);
    await context.close();
  });
});
