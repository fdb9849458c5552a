#!/usr/bin/env node
// npm run bench:heatmap [-- --ranks 1000 --modules 100 --repeat 5 --work DIR --bin FILE --chromium PATH --results FILE]
// Issue 14's rank × top-level-module heatmap at scale: one compare `.vis.db` (bench/visgen's writer: msprobe's v2
// schema and indexes, both sides) with R ranks of a root with M modules of 3 API leaves each, served by
// `probeboard serve` in a child process. Medians of:
//   - /api/graph/heatmap cold (the first request of a fresh server: the step is read from the db) and warm;
//   - Chromium: a fresh page of the file, the panel opened by a click, until the frame that shows the painted grid
//     (the canvas marks it after putImageData and one requestAnimationFrame), on a cold and on a warm server.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
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
    repeat: { type: 'string', default: '5' },
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

/** @param {number} port @param {string} route */
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

const ROUTE = '/api/graph/heatmap?run=heat&tag=compare_heat';
const cache = path.join(args.work, 'cache');
const browser = await chromium.launch({ executablePath: args.chromium, args: ['--headless', '--no-sandbox', '--disable-gpu'] });

/** Click → painted frame on a fresh page. @param {number} port */
async function paintMs(port) {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`http://127.0.0.1:${port}/#graphs?run=heat&tag=compare_heat`);
  await page.locator('[data-testid="heatmap-toggle"]').waitFor();
  const t0 = await page.evaluate(() => {
    const t = performance.now();
    /** @type {HTMLElement} */ (document.querySelector('[data-testid="heatmap-toggle"]')).click();
    return t;
  });
  const first = page.locator('[data-testid="heatmap-canvas"][data-painted-at]');
  await first.waitFor({ timeout: 60_000 });
  const firstAt = Number(await first.getAttribute('data-painted-at'));
  // Ranks the server had not read in time come in later answers: the grid is complete when none is pending.
  const done = page.locator('[data-testid="heatmap-canvas"][data-complete="true"]');
  await done.waitFor({ timeout: 60_000 });
  const doneAt = Number(await done.getAttribute('data-painted-at'));
  const size = [await done.evaluate((c) => c.width), await done.evaluate((c) => c.height)];
  await page.close();
  return { ms: firstAt - t0, complete: doneAt - t0, size };
}

const apiFirst = [];
const apiCold = [];
const paintCold = [];
let answer;
for (let i = 0; i < REPEAT; i++) {
  // A fresh server each time: its find worker has not read the db yet.
  const server = await startServer(args.bin, logdir, cache);
  try {
    if (i % 2 === 0) {
      // Polled as the panel does until no rank is pending: the time to the complete grid.
      const t0 = performance.now();
      let r = await get(server.port, ROUTE);
      apiFirst.push(r.ms);
      while (r.json.pending) r = await get(server.port, ROUTE);
      apiCold.push(performance.now() - t0);
      answer ??= r;
    } else paintCold.push(await paintMs(server.port));
  } finally {
    await server.stop();
  }
}
const server = await startServer(args.bin, logdir, cache);
const apiWarm = [];
const paintWarm = [];
let grid = [0, 0];
try {
  await get(server.port, ROUTE);
  for (let i = 0; i < REPEAT * 2; i++) apiWarm.push((await get(server.port, ROUTE)).ms);
  for (let i = 0; i < REPEAT; i++) {
    const p = await paintMs(server.port);
    paintWarm.push(p);
    grid = p.size;
  }
} finally {
  await server.stop();
  await browser.close();
}
const h = answer.json;
if (h.rows.length !== RANKS || h.modules.length !== MODULES || grid[0] !== MODULES || grid[1] !== RANKS) {
  fail(`expected ${RANKS} × ${MODULES}, got ${h.rows.length} × ${h.modules.length} (canvas ${grid.join(' × ')})`);
}
const f = (/** @type {number[]} */ xs) => median(xs).toFixed(0);
const fp = (/** @type {Array<{ ms: number, complete: number }>} */ xs) => `${f(xs.map((x) => x.ms))} / ${f(xs.map((x) => x.complete))}`;
writeResults(args.results, [
  '# Rank × module heatmap (bench/heatmap.mjs)',
  '',
  `${machineLine()}, headless Chromium (software rendering), viewport 1600×1000.`,
  `One compare .vis.db (bench/visgen writer), ${RANKS} ranks × ${MODULES} top-level modules, ${gen.nodesPerGraph} nodes per graph and side,`,
  `${mb(answer.bytes)} MB answer. Cold = first request of a fresh server (the step is read from the db); medians of ${REPEAT} (cold: of`,
  `${apiCold.length} and ${paintCold.length} fresh servers). A cold server reads ranks for ~1 s per answer and marks the rest pending;`,
  'the panel paints what it has and asks again. Paint = click on the closed panel → the frame after the first / the complete grid.',
  '',
  '| ranks × modules | API cold first / complete ms | API warm ms | paint cold first / complete ms | paint warm ms |',
  '|---|---:|---:|---:|---:|',
  `| ${RANKS} × ${MODULES} | ${f(apiFirst)} / ${f(apiCold)} | ${f(apiWarm)} | ${fp(paintCold)} | ${fp(paintWarm)} |`,
  '',
]);
writeFileSync(path.join(args.work, 'last.json'), JSON.stringify({ apiFirst, apiCold, apiWarm, paintCold, paintWarm }));
