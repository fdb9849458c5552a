#!/usr/bin/env node
// npm run bench:heatmap [-- --ranks 1000 --modules 100 --repeat 3 --work DIR --bin FILE --chromium PATH --results FILE]
// Issue 14's rank × top-level-module heatmap at scale: one compare `.vis.db` (bench/visgen's writer: msprobe's v2
// schema and indexes, both sides) with R ranks of a root with M modules of 3 API leaves each, served by
// `probeboard serve` in a child process. The panel asks `/api/graph/heatmap` for windows of ranks (the rows in view
// first); three servers each:
//   - cold: a fresh server on an empty cache directory (the step's ranks are read from the db);
//   - reopened: a fresh server on the cache directory a complete cold read left (the cells are read from there);
//   - warm: the same server asked again.
// Measured, medians of --repeat: the first window's answer (as the panel asks it: 161 rows) and its bytes, until
// that window has no pending rank, until every rank is read (pages of 512); in Chromium, on a settled page, click on
// the closed panel → the first painted frame / the frame with every row in view read, then a scroll to the last rows
// → their frame.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { generatedOnce, machineLine, mb, median, startServer, writeResults } from './lib/benchKit.mjs';
import { Tree } from './visgen/tree.mjs';
import { writeDbFile } from './visgen/writeDb.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    ranks: { type: 'string', default: '1000' },
    modules: { type: 'string', default: '100' },
    repeat: { type: 'string', default: '3' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-heatmap') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    chromium: { type: 'string', default: process.env.PROBEBOARD_CHROMIUM ?? '/usr/bin/chromium' },
    results: { type: 'string', default: path.join(repo, 'bench/results/heatmap.md') },
  },
});
const fail = (/** @type {string} */ m) => {
  console.error(`bench/heatmap: ${m}`);
  process.exit(2);
};
if (!existsSync(args.chromium)) fail(`${args.chromium} is missing (apt-get install -y chromium)`);
const RANKS = Number(args.ranks);
const MODULES = Number(args.modules);
const REPEAT = Math.max(1, Number(args.repeat));
// What HeatmapPanel asks first (FIRST_LIMIT: the rows a 320 px box shows at 2 px a row) and the server's page cap.
const FIRST_WINDOW = 161;
const PAGE = 512;

// The log dir: run "heat" with one file of RANKS graphs.
const logdir = path.join(args.work, `r${RANKS}-m${MODULES}`);
const file = path.join(logdir, 'heat', 'compare_heat.vis.db');
const gen = generatedOnce(logdir, `${RANKS}x${MODULES}:v1`, () => {
  mkdirSync(path.dirname(file), { recursive: true });
  const tree = new Tree(1 + MODULES * 4);
  tree.add('DefaultModel', 0, -1);
  for (let m = 0; m < MODULES; m++) {
    const mod = tree.add(`Module.layers.${m}.TransformerLayer.forward.0`, 0, 0);
    for (let k = 0; k < 3; k++) tree.leaf(mod, m * 3 + k);
  }
  const ranks = Array.from({ length: RANKS }, (_, r) => r);
  const started = performance.now();
  writeDbFile(file, tree, { compare: true, seed: 1, microSteps: 1, microOf: () => null, steps: [0], ranks });
  return { nodesPerGraph: tree.size, seconds: (performance.now() - started) / 1000 };
});

/** @param {number} port @param {string} route @returns {Promise<{ ms: number, bytes: number, json: any }>} */
function get(port, route) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ host: '127.0.0.1', port, path: route }, (res) => {
        let bytes = 0;
        let body = '';
        res.on('data', (d) => {
          bytes += d.length;
          body += d;
        });
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`${route}: ${res.statusCode} ${body.slice(0, 200)}`));
          resolve({ ms: performance.now() - started, bytes, json: JSON.parse(body) });
        });
      })
      .on('error', reject);
  });
}

const route = (/** @type {number} */ offset, /** @type {number} */ limit) => `/api/graph/heatmap?run=heat&tag=compare_heat&rankOffset=${offset}&rankLimit=${limit}`;

/** The panel's first window, then (asked again while pending, as the panel does) until read, then every rank. */
async function apiRun(/** @type {number} */ port) {
  const t0 = performance.now();
  let r = await get(port, route(0, FIRST_WINDOW));
  const first = { ms: r.ms, bytes: r.bytes, pendingRows: r.json.rows.filter((/** @type {any} */ x) => x.state === 'pending').length };
  while (r.json.pending) r = await get(port, route(0, FIRST_WINDOW));
  const windowMs = performance.now() - t0;
  const window = r;
  let pageBytes = 0;
  for (let offset = 0; offset < RANKS; offset += PAGE) {
    let p = await get(port, route(offset, PAGE));
    while (p.json.pending) p = await get(port, route(offset, PAGE));
    if (offset === 0) pageBytes = p.bytes;
  }
  return { first, windowMs, allMs: performance.now() - t0, window, pageBytes };
}

const browser = await chromium.launch({ executablePath: args.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu'] });

/** Click → first painted frame / frame with the rows in view read; scroll to the end → its frame. @param {number} port */
async function paintRun(port) {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`http://127.0.0.1:${port}/#graphs?run=heat&tag=compare_heat`);
  await page.locator('[data-testid="heatmap-toggle"]').waitFor();
  // The page settled (graph drawn, no request under way): the click does not wait for the graph's own layout.
  await page.locator('[data-side="npu"][data-node-id]').first().waitFor();
  await page.waitForLoadState('networkidle');
  // Every frame the canvas marks (HeatmapPanel: data-painted-at, data-first-row, data-complete), in page time.
  const t0 = await page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.heatPaints = [];
    new MutationObserver((changes) => {
      for (const c of changes) {
        const el = /** @type {HTMLElement} */ (c.target);
        if (c.attributeName !== 'data-complete' || el.dataset.testid !== 'heatmap-canvas') continue;
        w.heatPaints.push({ at: Number(el.dataset.paintedAt), first: Number(el.dataset.firstRow), complete: el.dataset.complete === 'true' });
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-complete'] });
    const t = performance.now();
    /** @type {HTMLElement} */ (document.querySelector('[data-testid="heatmap-toggle"]')).click();
    return t;
  });
  const paints = () => page.evaluate(() => /** @type {Array<{ at: number, first: number, complete: boolean }>} */ (/** @type {any} */ (window).heatPaints));
  await page.waitForFunction(() => /** @type {any} */ (window).heatPaints.some((/** @type {any} */ p) => p.complete), null, { timeout: 60_000, polling: 20 });
  const opened = await paints();
  const size = await page.locator('[data-testid="heatmap-canvas"]').evaluate((c) => [/** @type {HTMLCanvasElement} */ (c).width, /** @type {HTMLCanvasElement} */ (c).height]);
  const s0 = await page.locator('[data-testid="heatmap-box"]').evaluate((box) => {
    const t = performance.now();
    box.scrollTo(0, box.scrollHeight);
    return t;
  });
  const last = RANKS - 160;
  await page.waitForFunction((f) => /** @type {any} */ (window).heatPaints.some((/** @type {any} */ p) => p.first === f && p.complete), last, { timeout: 60_000, polling: 20 });
  const scrolled = (await paints()).find((p) => p.first === last && p.complete);
  await page.close();
  return { first: opened[0].at - t0, complete: opened.find((p) => p.complete).at - t0, scroll: scrolled.at - s0, size };
}

const loadBefore = os.loadavg()[0];
const caches = path.join(args.work, 'caches');
rmSync(caches, { recursive: true, force: true });
mkdirSync(caches, { recursive: true });
const fresh = () => mkdtempSync(path.join(caches, 'c-'));
/** @type {Record<'cold' | 'reopened' | 'warm', { api: any[], paint: any[] }>} */
const runs = { cold: { api: [], paint: [] }, reopened: { api: [], paint: [] }, warm: { api: [], paint: [] } };
let warmCache = '';
for (let i = 0; i < REPEAT; i++) {
  // Cold: a fresh server and cache directory each time, once through the API (which reads every rank, leaving a
  // complete cache behind for the reopened runs) and once through Chromium.
  for (const kind of ['api', 'paint']) {
    const cacheDir = fresh();
    const server = await startServer(args.bin, logdir, cacheDir);
    try {
      if (kind === 'api') {
        runs.cold.api.push(await apiRun(server.port));
        // The find worker writes the cells to the cache after its last answer, when idle.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        warmCache = cacheDir;
      } else runs.cold.paint.push(await paintRun(server.port));
    } finally {
      await server.stop();
    }
  }
  for (const kind of ['api', 'paint']) {
    const server = await startServer(args.bin, logdir, warmCache);
    try {
      if (kind === 'api') {
        runs.reopened.api.push(await apiRun(server.port));
        runs.warm.api.push(await apiRun(server.port));
      } else {
        runs.reopened.paint.push(await paintRun(server.port));
        runs.warm.paint.push(await paintRun(server.port));
      }
    } finally {
      await server.stop();
    }
  }
}
await browser.close();
rmSync(caches, { recursive: true, force: true });

const h = runs.warm.api[0].window.json;
const size = runs.warm.paint[0].size;
if (h.totalRanks !== RANKS || h.rows.length !== FIRST_WINDOW || h.modules.length !== MODULES || size[0] !== MODULES || size[1] !== FIRST_WINDOW) {
  fail(`expected ${RANKS} ranks, a window of ${FIRST_WINDOW} × ${MODULES}; got ${h.totalRanks}, ${h.rows.length} × ${h.modules.length} (canvas ${size.join(' × ')})`);
}
const f = (/** @type {number[]} */ xs) => median(xs).toFixed(0);
const kb = (/** @type {number} */ b) => (b / 1024).toFixed(0);
const line = (/** @type {'cold' | 'reopened' | 'warm'} */ kind) => {
  const { api, paint } = runs[kind];
  return [
    `| ${kind}`,
    `${f(api.map((a) => a.first.ms))} (${f(api.map((a) => a.first.pendingRows))} pending)`,
    f(api.map((a) => a.windowMs)),
    f(api.map((a) => a.allMs)),
    `${f(paint.map((p) => p.first))} / ${f(paint.map((p) => p.complete))}`,
    `${f(paint.map((p) => p.scroll))} |`,
  ].join(' | ');
};
writeResults(args.results, [
  '# Rank × module heatmap (bench/heatmap.mjs)',
  '',
  `${machineLine()}, headless Chromium (software rendering), viewport 1600×1000; load average`,
  `${loadBefore.toFixed(1)} before the run, ${os.loadavg()[0].toFixed(1)} after it.`,
  `One compare .vis.db (bench/visgen writer, ${mb(statSync(file).size)} MB, ${RANKS} ranks × ${MODULES} top-level modules, ${gen.nodesPerGraph} nodes per graph`,
  'and side). The panel asks for windows of ranks: first the 161 rows a 320 px box shows (2 px a row), then a box below',
  `and above; ${kb(runs.warm.api[0].first.bytes)} KB for that first window, ${kb(runs.warm.api[0].pageBytes)} KB for a page of ${PAGE} rows (values with at most 6 significant digits`,
  `where that keeps their colour and 4-digit display). Cold = fresh server and empty cache directory (the db itself in the`,
  'OS page cache); reopened = fresh server on the cache directory a complete cold read left; warm = that server again.',
  'An answer reads ranks for at most 150 ms and marks the rest pending; the panel paints what came and asks again, while',
  'the find worker reads the step\'s other ranks between requests (the window\'s first).',
  `Medians of ${REPEAT}.`,
  '',
  '| server | API first window ms | window read ms | all ranks read ms | paint first / window read ms | scroll to the end ms |',
  '|---|---:|---:|---:|---:|---:|',
  line('cold'),
  line('reopened'),
  line('warm'),
  '',
  'API times are the client\'s (HTTP included); paint = click on the closed panel of a settled page (graph drawn, network',
  'idle) → the frame after the first answer / the frame with every row in view read; scroll = the box scrolled to its',
  'end → the frame with those rows read. The API\'s first answer is a fresh server\'s first request: its find worker',
  'starts and opens the file then (~150–250 ms of it); in Chromium the page opening the file has had the worker open it',
  '(FindPool.prepare).',
  '',
  'Before (2026-11-26: the whole grid in one 1.5 MB answer, ranks read for up to 1 s per answer, nothing kept across',
  'restarts): paint cold first / complete 1691 / 3806 ms, warm 406 ms; API warm 57 ms.',
  '',
]);
writeFileSync(path.join(args.work, 'last.json'), JSON.stringify(runs));
