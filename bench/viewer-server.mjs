#!/usr/bin/env node
// node bench/viewer-server.mjs [--sizes 1e4,1e5,2e5,1e6] [--formats vis,db] [--work DIR] [--bin FILE] [--results FILE]
//
// The viewer server on large files (issue 4): generates `.vis` / `.vis.db` files (bench/visgen, deep and wide, compare)
// and, per file, starts `probeboard serve` in a child process on a log dir holding only that file, then measures:
// the time from the first request to the first 200 (indexing a `.vis`, opening a `.vis.db`), MB/s, the same with
// the index cache warm, the server's peak RSS (VmHWM), and the time and bytes of a few API calls.
// Prints a markdown table and writes it to bench/results/viewer-server.md. Targets: a 1 GB .vis indexed at
// ≥ 100 MB/s with RSS ≤ 400 MB; a .vis.db answering in ≤ 0.5 s.
import { existsSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { largeVisFile, startServer as startServerAt, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e4,1e5,2e5,1e6' },
    formats: { type: 'string', default: 'vis,db' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-viewer') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/viewer-server.md') },
    repeat: { type: 'string', default: '20' },
  },
});
const bin = path.resolve(args.bin);
const work = path.resolve(args.work);
const repeat = Number(args.repeat);

/** @param {string} msg @returns {never} */
function fail(msg) {
  console.error(`bench:viewer-server: ${msg}`);
  process.exit(2);
}
if (!existsSync(bin)) fail(`${bin} is missing: run "npm run build" first`);

const fileFor = (/** @type {number} */ nodes, /** @type {'vis' | 'db'} */ format) => largeVisFile(work, nodes, format);

/** @returns {Promise<{ status: number, body: string, ms: number }>} */
function get(port, p) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }),
        );
      })
      .on('error', reject);
  });
}

/** `probeboard serve` (this build or --bin) on a log dir. */
const startServer = (/** @type {string} */ logdir, /** @type {string} */ cacheDir) => startServerAt(bin, logdir, cacheDir);

const pct = (list, p) => {
  const s = [...list].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function measure(nodes, format) {
  const f = await fileFor(nodes, format);
  const tag = path.basename(f.out).replace(/\.vis(\.db)?$/, '');
  const q = (o) => new URLSearchParams({ run: '.', tag, ...o }).toString();
  const cacheDir = path.join(work, 'cache', `${format}-${nodes}`);
  rmSync(cacheDir, { recursive: true, force: true });

  const firstAnswer = async (port) => {
    const t0 = performance.now();
    for (;;) {
      const res = await get(port, `/api/graph/meta?${q({})}`);
      if (res.status === 200) return (performance.now() - t0) / 1000;
      if (res.status !== 202) throw new Error(`meta: ${res.status} ${res.body}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const cold = await startServer(f.dir, cacheDir);
  let row;
  try {
    const openSeconds = await firstAnswer(cold.port);
    const root = await get(cold.port, `/api/graph/children?${q({})}`);
    const expands = [];
    let expandBytes = 0;
    for (let i = 0; i < repeat; i++) {
      const res = await get(cold.port, `/api/graph/children?${q({ node: f.thousandModule, side: i % 2 ? 'bench' : 'npu' })}`);
      if (res.status !== 200) throw new Error(`children: ${res.status} ${res.body.slice(0, 200)}`);
      expands.push(res.ms);
      expandBytes = res.body.length;
    }
    const page = await get(cold.port, `/api/graph/children?${q({ node: f.wideModules[0], offset: 2000, limit: 100 })}`);
    const node = await get(cold.port, `/api/graph/node?${q({ node: f.deepest })}`);
    const search = await get(cold.port, `/api/graph/search?${q({ q: 'mlp.dense_4h', limit: 500 })}`);
    const filter = await get(cold.port, `/api/graph/filter?${q({ precision: '0.8-1', leaves: '1' })}`);
    // The worst-nodes table (issue 14 target: first page ≤ 300 ms): its first page, then a later one.
    const worst = await get(cold.port, `/api/graph/worst?${q({ limit: '100' })}`);
    if (worst.status !== 200) throw new Error(`worst: ${worst.status} ${worst.body.slice(0, 200)}`);
    const worstNext = await get(cold.port, `/api/graph/worst?${q({ limit: '100', offset: '5000' })}`);
    const rss = cold.peakRssMb();
    row = {
      file: `${format} ${nodes.toExponential(0).replace('+', '')}`,
      mb: f.bytes / 1e6,
      openSeconds,
      mbps: format === 'vis' ? f.bytes / 1e6 / openSeconds : null,
      rss,
      rootMs: root.ms,
      expandP50: pct(expands, 50),
      expandP95: pct(expands, 95),
      expandBytes,
      pageMs: page.ms,
      pageBytes: page.body.length,
      nodeMs: node.ms,
      searchMs: search.ms,
      searchTotal: JSON.parse(search.body).total,
      filterMs: filter.ms,
      worstMs: worst.ms,
      worstNextMs: worstNext.ms,
      worstTotal: JSON.parse(worst.body).total,
    };
  } finally {
    await cold.stop();
  }
  if (format === 'vis') {
    const warm = await startServer(f.dir, cacheDir);
    try {
      row.warmSeconds = await firstAnswer(warm.port);
      row.warmRss = warm.peakRssMb();
    } finally {
      await warm.stop();
    }
  }
  return row;
}

const sizes = args.sizes.split(',').map(Number);
const formats = args.formats.split(',');
const rows = [];
for (const nodes of sizes) {
  for (const format of formats) {
    const row = await measure(nodes, format);
    rows.push(row);
    console.error(JSON.stringify(row));
  }
}

const n = (x, d = 0) => (x === null || x === undefined ? '—' : x.toFixed(d));
const lines = [
  `# Viewer server on large files (bench/viewer-server.mjs)`,
  '',
  `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
  'Compare files (NPU + Bench, msprobe indent=4 JSON or the v2 SQLite schema); "nodes" are per side. Open = first',
  'request until the first 200 (the `.vis` index built in a worker; the `.vis.db` opened). Warm = a restarted server',
  'with the index cache. RSS = the server process\'s peak (VmHWM). Expand = children of a 1,000-child module',
  `(p50 / p95 of ${repeat}); page = 100 children of a 5,000-child module at offset 2,000. Worst = the worst-nodes`,
  'table\'s first page of 100 (every rated node sorted) / the page at offset 5,000.',
  '',
  '| file | size MB | open s | MB/s | peak RSS MB | warm open s | expand p50 / p95 ms | expand bytes | page ms / bytes | node ms | search ms | filter ms | worst first / later page ms |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.file} | ${n(r.mb)} | ${n(r.openSeconds, 2)} | ${n(r.mbps)} | ${n(r.rss)} | ${n(r.warmSeconds, 2)} | ` +
      `${n(r.expandP50, 1)} / ${n(r.expandP95, 1)} | ${r.expandBytes} | ${n(r.pageMs, 1)} / ${r.pageBytes} | ${n(r.nodeMs, 1)} | ` +
      `${n(r.searchMs, 1)} | ${n(r.filterMs, 1)} | ${n(r.worstMs, 1)} / ${n(r.worstNextMs, 1)} |`,
  ),
  '',
];
writeResults(path.resolve(args.results), lines);
