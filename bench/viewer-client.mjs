#!/usr/bin/env node
// node bench/viewer-client.mjs [--sizes 1e4,1e5,1e6] [--formats vis,db] [--work DIR] [--reuse DIR] [--bin FILE]
//                              [--repeat 20] [--results FILE] [--chromium PATH]
// --reuse: a work dir of bench/viewer-server.mjs whose generated files are read (never written) when present.
//
// The viewer in the browser on large files (issue 4): per generated file (bench/visgen, deep and wide, compare),
// starts `probeboard serve` as a child process, waits until the file is indexed, then drives headless Chromium
// through playwright-core and measures, in the page:
//   - first paint: navigation → the root's children drawn (median of 3 fresh pages);
//   - expand of the module with 1,000 children (drawn as 3 sub-groups) and of one of its sub-groups (400 children
//     fetched by offset/limit): double-click → drawn, p50 / p95 over --repeat fresh pages, and the response bytes;
//   - pan: frame times (requestAnimationFrame deltas) while the wheel scrolls, with the wide modules open and the
//     graph fitted, and how many nodes were in view;
//   - long tasks (PerformanceObserver 'longtask') and the tab's JS heap (CDP Performance.getMetrics).
// Prints a markdown table and writes it to bench/results/viewer-client.md. Targets: first paint ≤ 1.5 s (≤ 0.5 s for
// .vis.db); expand p50 ≤ 100 ms, p95 ≤ 300 ms; pan ≥ 50 fps with 10,000 nodes in view; heap ≤ 500 MB at 10^6 nodes.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { largeVisFile, startServer as startServerAt, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e4,1e5,1e6' },
    formats: { type: 'string', default: 'vis,db' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-viewer-client') },
    reuse: { type: 'string' },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/viewer-client.md') },
    repeat: { type: 'string', default: '20' },
    chromium: { type: 'string', default: process.env.PROBEBOARD_CHROMIUM ?? '/usr/bin/chromium' },
  },
});
const bin = path.resolve(args.bin);
const work = path.resolve(args.work);
const repeat = Number(args.repeat);
const VIEWPORT = { width: 1600, height: 1000 };

/** @param {string} msg @returns {never} */
function fail(msg) {
  console.error(`bench:viewer-client: ${msg}`);
  process.exit(2);
}
if (!existsSync(bin)) fail(`${bin} is missing: run "npm run build" first`);
if (!existsSync(args.chromium)) fail(`${args.chromium} is missing (apt-get install -y chromium)`);

/** Generates (or reuses) the file for one size and format. */
async function fileFor(nodes, format) {
  if (args.reuse) {
    const marker = path.join(args.reuse, `${format}-${nodes}.json`);
    const info = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : null;
    if (info?.result && existsSync(info.result.out)) return { dir: path.dirname(info.result.out), ...info.result };
  }
  return largeVisFile(work, nodes, format);
}

/** `probeboard serve` (this build or --bin) on a log dir. */
const startServer = (/** @type {string} */ logdir, /** @type {string} */ cacheDir) => startServerAt(bin, logdir, cacheDir);

function status(port, p) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

/** Polls meta until the file is indexed (200), so first paint is measured "after the index exists". */
async function waitIndexed(port, tag) {
  const t0 = performance.now();
  for (;;) {
    const code = await status(port, `/api/graph/meta?run=.&tag=${encodeURIComponent(tag)}`);
    if (code === 200) return (performance.now() - t0) / 1000;
    if (code !== 202) throw new Error(`meta answered ${code}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const pct = (list, p) => {
  const s = [...list].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const median = (list) => pct(list, 50);

/** Records long tasks from the start of every document. */
const LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: true });
`;

async function newPage(browser) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(LONG_TASKS);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`  page error: ${e.message}`));
  return page;
}

const longTasks = (page) => page.evaluate(() => window.__longTasks.splice(0));

/** Navigation → the root and at least one child drawn (SVG elements or far-zoom canvas). */
async function firstPaint(page, url) {
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    () => {
      const svgNodes = document.querySelectorAll('[data-testid="pane-npu"] [data-node-id]').length;
      const canvas = Number(document.querySelector('[data-testid="canvas-npu"][data-active="true"]')?.getAttribute('data-drawn') ?? 0);
      return svgNodes >= 2 || canvas >= 2 ? performance.now() : false;
    },
    null,
    { timeout: 60_000, polling: 'raf' },
  );
  return handle.jsonValue();
}

/**
 * Dispatches a double click on `selector` and resolves the milliseconds until `done` matches and the next frame
 * has run (the new nodes painted). Detection by MutationObserver, so the resolution is not a polling interval.
 */
function timeDoubleClick(page, selector, done) {
  return page.evaluate(
    ([sel, doneSel]) =>
      new Promise((resolve, reject) => {
        const el = document.querySelector(sel);
        if (!el) return reject(new Error(`missing ${sel}`));
        const t0 = performance.now();
        const finish = () => {
          observer.disconnect();
          clearTimeout(timer);
          requestAnimationFrame(() => resolve(performance.now() - t0));
        };
        const observer = new MutationObserver(() => {
          if (document.querySelector(doneSel)) finish();
        });
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`timeout waiting for ${doneSel}`));
        }, 30_000);
        observer.observe(document.body, { subtree: true, childList: true, attributes: true });
        el.dispatchEvent(new MouseEvent('dblclick', { bubbles: true, cancelable: true }));
        if (document.querySelector(doneSel)) finish();
      }),
    [selector, done],
  );
}

const inPane = (sel) => `[data-testid="pane-npu"] ${sel}`;
const nodeSel = (id) => inPane(`[data-node-id="${id}"]`);
const splitSel = (parent, range) => inPane(`[data-split-of="${parent}"][data-split="${range}"]`);
const linkTo = (origin, tag, id) => `${origin}/#graphs?run=.&tag=${encodeURIComponent(tag)}&side=npu&node=${encodeURIComponent(id)}`;

/** The ranges of the sub-groups a group of `total` children is drawn as (threshold 400, one level). */
function subRanges(total) {
  const out = [];
  for (let lo = 0; lo < total; lo += 400) out.push(`${lo}-${Math.min(total, lo + 400) - 1}`);
  return out;
}

async function openLink(page, url, id) {
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector(`${nodeSel(id)}[data-selected="true"]`, { timeout: 60_000 });
}

/** Expand of the 1,000-child module and of its second sub-group, each on a fresh page. */
async function measureExpands(browser, origin, tag, moduleId) {
  const page = await newPage(browser);
  const bytes = { module: 0, slice: 0 };
  page.on('response', (res) => {
    const url = res.url();
    if (!url.includes('graph/children') || !url.includes(encodeURIComponent(moduleId))) return;
    // The header, not the body: the next page may already have replaced this one.
    const size = Number(res.headers()['content-length'] ?? 0);
    if (url.includes('offset=400')) bytes.slice = size;
    else bytes.module = size;
  });
  const module = [];
  const slice = [];
  const [first, second, last] = subRanges(1000);
  for (let i = 0; i < repeat; i++) {
    await openLink(page, linkTo(origin, tag, moduleId), moduleId);
    module.push(await timeDoubleClick(page, nodeSel(moduleId), splitSel(moduleId, last)));
    await page.waitForSelector(splitSel(moduleId, first));
    slice.push(await timeDoubleClick(page, splitSel(moduleId, second), `${splitSel(moduleId, second)}[data-expanded="true"]`));
  }
  const tasks = await longTasks(page);
  await page.context().close();
  return { module, slice, bytes, longest: Math.max(0, ...tasks) };
}

/**
 * Opens every sub-group of `id` (a module with `total` leaves), bottom first so the others do not move. The module
 * is brought into view by a link: a fresh page for the first, the same page (hash change) for the next ones.
 */
async function expandAll(page, origin, tag, id, total, fresh) {
  if (fresh) await openLink(page, linkTo(origin, tag, id), id);
  else {
    await page.evaluate((hash) => (window.location.hash = hash), new URL(linkTo(origin, tag, id)).hash);
    await page.waitForSelector(`${nodeSel(id)}[data-selected="true"]`, { timeout: 60_000 });
  }
  const ranges = subRanges(total);
  await timeDoubleClick(page, nodeSel(id), splitSel(id, ranges[ranges.length - 1]));
  for (const range of [...ranges].reverse()) {
    await timeDoubleClick(page, splitSel(id, range), `${splitSel(id, range)}[data-expanded="true"]`);
  }
}

/** Opens the wide modules, fits the graph, then scrolls with the wheel for `seconds`, one event per frame. */
async function measurePan(browser, origin, tag, wideModules, cdpMetrics) {
  const page = await newPage(browser);
  // The later module first: opening the earlier one then only pushes it down.
  const opened = [...wideModules].slice(0, 2).reverse();
  for (const [i, id] of opened.entries()) await expandAll(page, origin, tag, id, 5000, i === 0);
  // Fit fits the width at a readable scale, then (pressed again in that view) the whole graph.
  for (let press = 0; press < 2; press++) {
    await page.click('[data-testid="fit-npu"]');
    await page.waitForTimeout(100);
    if ((await page.getAttribute('[data-testid="canvas-npu"]', 'data-active')) === 'true') break;
  }
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="canvas-npu"]')?.getAttribute('data-drawn') ?? 0) > 0);
  await longTasks(page);
  const result = await page.evaluate(
    (seconds) =>
      new Promise((resolve) => {
        const svg = document.querySelector('[data-testid="pane-npu"] svg');
        const canvas = document.querySelector('[data-testid="canvas-npu"]');
        const deltas = [];
        let inView = 0;
        let last = performance.now();
        const end = last + seconds * 1000;
        let step = 0;
        const frame = (now) => {
          deltas.push(now - last);
          last = now;
          inView = Math.max(inView, Number(canvas?.getAttribute('data-drawn') ?? 0), document.querySelectorAll('[data-testid="pane-npu"] [data-node-id]').length);
          // Down for a second, then back up: the view stays on the opened modules.
          const dy = Math.floor(step++ / 60) % 2 === 0 ? 40 : -40;
          svg.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, bubbles: true, cancelable: true }));
          if (now < end) requestAnimationFrame(frame);
          else resolve({ deltas: deltas.slice(1), inView, scale: Number(document.querySelector('[data-testid="viewport-npu"]')?.getAttribute('data-scale')) });
        };
        requestAnimationFrame(frame);
      }),
    3,
  );
  const tasks = await longTasks(page);
  const heap = await cdpMetrics(page);
  await page.context().close();
  const mean = result.deltas.reduce((a, b) => a + b, 0) / Math.max(1, result.deltas.length);
  return { fps: 1000 / mean, p95: pct(result.deltas, 95), inView: result.inView, scale: result.scale, longest: Math.max(0, ...tasks), heap };
}

async function jsHeapMb(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 2 ** 20;
}

async function measure(browser, nodes, format) {
  const f = await fileFor(nodes, format);
  const tag = path.basename(f.out).replace(/\.vis(\.db)?$/, '');
  const cacheDir = path.join(work, 'cache-client', `${format}-${nodes}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const server = await startServer(f.dir, cacheDir);
  try {
    const origin = `http://127.0.0.1:${server.port}`;
    const indexSeconds = await waitIndexed(server.port, tag);
    const paintPage = await newPage(browser);
    const paints = [];
    for (let i = 0; i < 3; i++) paints.push(await firstPaint(paintPage, `${origin}/#graphs?run=.&tag=${encodeURIComponent(tag)}`));
    const paintTasks = await longTasks(paintPage);
    await paintPage.context().close();
    const expands = f.thousandModule ? await measureExpands(browser, origin, tag, f.thousandModule) : null;
    const pan = f.wideModules.length > 0 ? await measurePan(browser, origin, tag, f.wideModules, jsHeapMb) : null;
    return { file: `${format} ${nodes.toExponential(0).replace('+', '')}`, indexSeconds, paint: median(paints), paintLongest: Math.max(0, ...paintTasks), expands, pan };
  } finally {
    await server.stop();
  }
}

const browser = await chromium.launch({
  executablePath: args.chromium,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
const rows = [];
try {
  for (const nodes of args.sizes.split(',').map(Number)) {
    for (const format of args.formats.split(',')) {
      const row = await measure(browser, nodes, format);
      rows.push(row);
      console.error(JSON.stringify(row, (k, v) => (Array.isArray(v) && v.length > 8 ? `${v.length} samples` : v)));
    }
  }
} finally {
  await browser.close();
}

const n = (x, d = 0) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d));
const kb = (b) => (b ? `${(b / 1024).toFixed(0)} KiB` : '—');
const lines = [
  `# Viewer in the browser on large files (bench/viewer-client.mjs)`,
  '',
  `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, headless Chromium (software rendering),`,
  `viewport ${VIEWPORT.width}×${VIEWPORT.height}, ${new Date().toISOString().slice(0, 10)}. Compare files from bench/visgen; "nodes" are per`,
  'side. First paint = navigation → root children drawn, after the index exists (median of 3). Module expand = the',
  `module with 1,000 children, drawn as 3 sub-groups; sub-group expand = its [400–799] sub-group (400 children fetched`,
  `with offset/limit); p50 / p95 of ${repeat} fresh pages, from the double click to the frame after the nodes are in the DOM.`,
  'Pan = wheel scrolling for 3 s with the two first wide modules (5,000 leaves each) open and the graph fitted; "in',
  'view" = nodes drawn in the last frames. Longest task = longest main-thread task seen (PerformanceObserver).',
  '',
  '| file | index s | first paint ms | module expand p50 / p95 ms | bytes | sub-group expand p50 / p95 ms | bytes | pan fps | frame p95 ms | nodes in view | longest task ms | JS heap MB |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => {
    const e = r.expands;
    const p = r.pan;
    const longest = Math.max(r.paintLongest, e?.longest ?? 0, p?.longest ?? 0);
    return (
      `| ${r.file} | ${n(r.indexSeconds, 1)} | ${n(r.paint)} | ${e ? `${n(median(e.module))} / ${n(pct(e.module, 95))}` : '—'} | ${kb(e?.bytes.module)} | ` +
      `${e ? `${n(median(e.slice))} / ${n(pct(e.slice, 95))}` : '—'} | ${kb(e?.bytes.slice)} | ${n(p?.fps)} | ${n(p?.p95, 1)} | ${p ? p.inView : '—'} | ` +
      `${n(longest)} | ${n(p?.heap)} |`
    );
  }),
  '',
  'Targets (issue 4): first paint ≤ 1,500 ms (≤ 500 ms for .vis.db); expand p50 ≤ 100 ms, p95 ≤ 300 ms; pan ≥ 50 fps',
  'with 10,000 nodes in view; every main-thread task < 50 ms; tab memory ≤ 500 MB at 10^6 nodes.',
  '',
];
writeResults(args.results, lines);
