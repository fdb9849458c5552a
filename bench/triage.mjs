#!/usr/bin/env node
// node bench/triage.mjs [--sizes 1e6] [--formats vis,db] [--repeat 5] [--restarts 3] [--work DIR] [--bin FILE] [--results FILE]
//
// Issue 14's triage answers on large compare files (bench/visgen, the viewer benchmark's files, shared through --work):
// the worst-nodes table's first page (100 rows) worst first and in execution order, and the first divergent node.
// Each query gets a fresh `probeboard serve` (opening is not measured: a `.vis` is indexed by the first server, and
// its index cache kept): its first answer with the cache directory emptied of derived data (cold: the server builds
// its list), the median of --repeat more (warm), then the first answer of another fresh server over the cache the
// first left (reopened: a server restart; median of --restarts servers). Target: first page ≤ 300 ms.
// Prints a markdown table and writes it to bench/results/triage.md.
import { existsSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { largeVisFile, machineLine, median, startServer, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e6' },
    formats: { type: 'string', default: 'vis,db' },
    repeat: { type: 'string', default: '5' },
    restarts: { type: 'string', default: '3' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-viewer') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/triage.md') },
  },
});
const bin = path.resolve(args.bin);
const work = path.resolve(args.work);
const repeat = Number(args.repeat);
const restarts = Number(args.restarts);
if (!existsSync(bin)) {
  console.error(`bench:triage: ${bin} is missing: run "npm run build" first`);
  process.exit(2);
}

/** @returns {Promise<{ status: number, body: string, ms: number }>} */
function get(port, p) {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: p }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 }));
      })
      .on('error', reject);
  });
}

/** Until the file answers 200 (a `.vis` is indexed on first open), in seconds. */
async function opened(port, query) {
  const t0 = performance.now();
  for (;;) {
    const res = await get(port, `/api/graph/meta?${query}`);
    if (res.status === 200) return (performance.now() - t0) / 1000;
    if (res.status !== 202) throw new Error(`meta: ${res.status} ${res.body.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The viewer's wait between two asks while the server answers 202 (src/app/api/client.ts INDEXING_POLL_MS). */
const POLL_MS = 300;

/** Asks until the answer is ready (a `.vis.db` list is read across requests, 202 meanwhile): total ms and asks. */
async function ready(port, url) {
  const t0 = performance.now();
  for (let asks = 1; ; asks++) {
    const res = await get(port, url);
    if (res.status === 200) return { ...res, ms: performance.now() - t0, asks };
    if (res.status !== 202) throw new Error(`${url}: ${res.status} ${res.body.slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

const QUERIES = [
  { name: 'worst', route: 'worst', params: { order: 'precision', limit: '100' } },
  { name: 'worstExecution', route: 'worst', params: { order: 'execution', limit: '100' } },
  { name: 'divergent', route: 'divergent', params: {} },
];

async function measure(nodes, format) {
  const f = await largeVisFile(work, nodes, format);
  const tag = path.basename(f.out).replace(/\.vis(\.db)?$/, '');
  const q = (o) => new URLSearchParams({ run: '.', tag, format, ...o }).toString();
  const cacheDir = path.join(work, 'cache', `triage-${format}-${nodes}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const row = { file: `${format} ${nodes.toExponential(0).replace('+', '')}`, mb: f.bytes / 1e6 };
  /** One fresh server: its first answer (and, with `warm`, the median of --repeat more). */
  const run = async (query, warm) => {
    const server = await startServer(bin, f.dir, cacheDir);
    try {
      const openSeconds = await opened(server.port, q({}));
      row.openSeconds ??= openSeconds;
      const url = `/api/graph/${query.route}?${q(query.params)}`;
      const first = await ready(server.port, url);
      const times = [];
      for (let i = 0; warm && i < repeat; i++) times.push((await ready(server.port, url)).ms);
      return { first, warm: warm ? median(times) : null };
    } finally {
      await server.stop();
    }
  };
  for (const query of QUERIES) {
    // The first ever: no list kept by an earlier server (derivedCache.ts; a `.vis` keeps its list in its index).
    rmSync(path.join(cacheDir, 'derived'), { recursive: true, force: true });
    const cold = await run(query, true);
    const reopened = [];
    for (let i = 0; i < restarts; i++) reopened.push((await run(query, false)).first);
    row[query.name] = {
      cold: cold.first.ms,
      asks: cold.first.asks,
      warm: cold.warm,
      reopened: median(reopened.map((r) => r.ms)),
      reopenedAsks: Math.max(...reopened.map((r) => r.asks)),
      reopenedAll: reopened.map((r) => Math.round(r.ms)),
    };
    if (query.route === 'divergent') {
      const answer = JSON.parse(cold.first.body);
      row.divergentNode = answer.node?.id ?? '—';
      row.examined = answer.examined;
    } else if (query.name === 'worst') row.total = JSON.parse(cold.first.body).total;
  }
  return row;
}

const rows = [];
for (const nodes of args.sizes.split(',').map(Number)) {
  for (const format of args.formats.split(',')) {
    const row = await measure(nodes, /** @type {'vis' | 'db'} */ (format));
    rows.push(row);
    console.error(JSON.stringify(row));
  }
}

const n = (x, d = 0) => (x === null || x === undefined ? '—' : x.toFixed(d));
const asks = (k) => (k > 1 ? ` (${k} asks)` : '');
const triple = (m) => `${n(m.cold, 0)}${asks(m.asks)} / ${n(m.reopened, 0)}${asks(m.reopenedAsks)} / ${n(m.warm, 1)}`;
writeResults(path.resolve(args.results), [
  '# Triage on large files (bench/triage.mjs)',
  '',
  `${machineLine()}. Compare files from bench/visgen (wide, nodes per side); a fresh server per measurement, opening`,
  'not measured. Cold = the first request after opening until the answer, the cache directory emptied of derived data',
  `(the server builds its list; a \`.vis.db\` answers 202 while it reads it, asked again every ${POLL_MS} ms as the viewer`,
  'does; a `.vis` keeps its list in its index, so its cold and reopened runs differ only by chance); reopened = the',
  `same in another fresh server over the cache the first left (a server restart; median of ${restarts}); warm = median of ${repeat} more in the`,
  "first server. Worst = the worst-nodes table's first page of 100, worst first / in execution order; divergent =",
  '`/api/graph/divergent` (examined = candidate records read). Target: first page ≤ 300 ms.',
  '',
  '| file | size MB | rated nodes | worst first page cold / reopened / warm ms | execution-order page cold / reopened / warm ms | first divergent cold / reopened / warm ms | examined |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.file} | ${n(r.mb)} | ${r.total} | ${triple(r.worst)} | ${triple(r.worstExecution)} | ${triple(r.divergent)} | ${r.examined} |`),
  '',
]);
