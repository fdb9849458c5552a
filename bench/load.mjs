#!/usr/bin/env node
// node bench/load.mjs [--nodes 20000] [--clients 50] [--requests 200] [--work DIR] [--bin FILE] [--results FILE]
//
// Many users on one server (issue 12): `probeboard serve` in a child process over a log dir with a large `.vis`
// (indexed on first use, in a worker) and a `.vis.db`. 50 clients send 200 requests each — children, node, meta,
// search and filter on both files — while the `.vis` is first indexed, then rewritten, and a third file deleted.
// Every answer is checked against the file and node it asked for (no cross-talk); any 5xx but the work budget's 503
// fails the run. Then the warm phase: /children p50 / p95 / p99 with the index cached, and /children while other
// clients run searches that hit every node (one slow request must not hold the others up).
// Prints a markdown table and writes it to bench/results/load.md.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineLine, startServer, writeResults } from './lib/benchKit.mjs';
import { generateVis } from './visgen/index.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '20000' },
    clients: { type: 'string', default: '50' },
    requests: { type: 'string', default: '200' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-load') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/load.md') },
  },
});
const nodes = Number(args.nodes);
const clients = Number(args.clients);
const perClient = Number(args.requests);
const work = path.resolve(args.work);
const bin = path.resolve(args.bin);
if (!existsSync(bin)) {
  console.error(`bench:load: ${bin} is missing: run "npm run build" first`);
  process.exit(2);
}

/** One GET with a keep-alive agent per client; resolves with status, parsed body and milliseconds. */
function get(agent, port, p) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: p, agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          let json = null;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            // checked below: every answer must be JSON
          }
          resolve({ status: res.statusCode ?? 0, json, ms: performance.now() - t0 });
        });
      })
      .on('error', (e) => resolve({ status: 0, json: { error: e.message }, ms: performance.now() - t0 }));
  });
}

const pct = (list, p) => {
  if (!list.length) return NaN;
  const s = list.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function main() {
  rmSync(work, { recursive: true, force: true });
  const logdir = path.join(work, 'logs');
  mkdirSync(path.join(logdir, 'big'), { recursive: true });
  mkdirSync(path.join(logdir, 'db'), { recursive: true });
  mkdirSync(path.join(logdir, 'gone'), { recursive: true });
  console.error(`generating ${nodes} nodes per side (.vis, its rewrite, .vis.db) …`);
  const vis = await generateVis({ nodes, wide: 2000, out: path.join(logdir, 'big/graph.vis'), seed: 1 });
  const rewrite = await generateVis({ nodes, wide: 2000, out: path.join(work, 'rewrite.vis'), seed: 2 });
  const db = await generateVis({ nodes, wide: 2000, out: path.join(logdir, 'db/graph.vis.db'), format: 'db', seed: 3 });
  copyFileSync(path.join(repo, 'test/fixtures/vis/builder_build-202507.vis'), path.join(logdir, 'gone/build.vis'));
  const files = [
    { run: 'big', tag: 'graph', info: vis },
    { run: 'db', tag: 'graph', info: db },
    { run: 'gone', tag: 'build', info: null },
  ];

  const server = await startServer(bin, logdir, path.join(work, 'cache'));
  const byRoute = new Map();
  const problems = [];
  let done = 0;
  let budget503 = 0;
  const total = clients * perClient;
  const record = (route, r) => {
    if (!byRoute.has(route)) byRoute.set(route, []);
    byRoute.get(route).push(r.ms);
  };

  /** One request of a client, checked against what it asked for. */
  async function one(agent, rand) {
    const f = files[Math.floor(rand() * (files[2].deleted ? 2 : 3))];
    const q = (extra) => new URLSearchParams({ run: f.run, tag: f.tag, ...extra }).toString();
    const kind = rand();
    const ids = f.info ? [f.info.rootId, ...f.info.wideModules, f.info.thousandModule, f.info.deepest].filter(Boolean) : [];
    let route;
    let r;
    let expect = null;
    if (kind < 0.5 && ids.length) {
      const id = ids[Math.floor(rand() * ids.length)];
      route = 'children';
      r = await get(agent, server.port, `/api/graph/children?${q({ node: id, limit: '400' })}`);
      expect = (j) => j.node === id;
    } else if (kind < 0.65 && ids.length) {
      const id = ids[Math.floor(rand() * ids.length)];
      route = 'node';
      r = await get(agent, server.port, `/api/graph/node?${q({ node: id })}`);
      expect = (j) => j.id === id;
    } else if (kind < 0.8) {
      route = 'meta';
      r = await get(agent, server.port, `/api/graph/meta?${q({})}`);
      expect = (j) => j.run === f.run && j.tag === f.tag;
    } else if (kind < 0.9) {
      route = 'search';
      r = await get(agent, server.port, `/api/graph/search?${q({ q: String(Math.floor(rand() * 100)), limit: '50' })}`);
    } else {
      route = 'filter';
      r = await get(agent, server.port, `/api/graph/filter?${q({ precision: '0.8-1', limit: '50' })}`);
    }
    done++;
    if (r.status === 200) {
      record(route, r);
      if (expect && !expect(r.json)) problems.push(`cross-talk: ${route} on ${f.run}/${f.tag} answered ${JSON.stringify(r.json).slice(0, 200)}`);
    } else if (r.status === 503 && /ms/.test(r.json?.error ?? '')) budget503++;
    else if (r.status >= 500 || r.status === 0 || !r.json) problems.push(`${route} on ${f.run}/${f.tag}: ${r.status} ${JSON.stringify(r.json).slice(0, 200)}`);
  }

  const seeded = (seed) => {
    let s = seed >>> 0;
    return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  };
  const t0 = performance.now();
  let rewritten = false;
  const storm = Array.from({ length: clients }, async (_, c) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const rand = seeded(c + 1);
    for (let k = 0; k < perClient; k++) {
      await one(agent, rand);
      // Mid-way, the .vis is replaced (tmp + rename, as a writer would) and another file is deleted.
      if (!rewritten && done > total / 3) {
        rewritten = true;
        copyFileSync(rewrite.out, path.join(logdir, 'big/.graph.vis.tmp'));
        renameSync(path.join(logdir, 'big/.graph.vis.tmp'), path.join(logdir, 'big/graph.vis'));
        files[0].info = rewrite;
      }
      if (!files[2].deleted && done > (2 * total) / 3) {
        rmSync(path.join(logdir, 'gone/build.vis'));
        files[2].deleted = true;
      }
    }
    agent.destroy();
  });
  await Promise.all(storm);
  const stormSeconds = (performance.now() - t0) / 1000;
  const stormChildren = byRoute.get('children') ?? [];

  // Warm: once both files answer (the rewritten .vis indexed again), every client asks for children only.
  for (const f of files.slice(0, 2)) {
    const agent = new http.Agent({ keepAlive: false });
    for (let t0 = performance.now(); performance.now() - t0 < 120_000; ) {
      const r = await get(agent, server.port, `/api/graph/meta?${new URLSearchParams({ run: f.run, tag: f.tag })}`);
      if (r.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const warm = [];
  const warmStart = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const rand = seeded(1000 + c);
      for (let k = 0; k < 40; k++) {
        const f = files[Math.floor(rand() * 2)];
        const ids = [f.info.rootId, ...f.info.wideModules, f.info.thousandModule].filter(Boolean);
        const id = ids[Math.floor(rand() * ids.length)];
        const r = await get(agent, server.port, `/api/graph/children?${new URLSearchParams({ run: f.run, tag: f.tag, node: id, limit: '400' })}`);
        if (r.status === 200) warm.push(r.ms);
        else problems.push(`warm children: ${r.status}`);
      }
      agent.destroy();
    }),
  );

  const warmSeconds = (performance.now() - warmStart) / 1000;

  // Heavy searches (every node matches) from 5 clients while 5 others expand.
  const besideSearch = [];
  let searchMs = [];
  let stop = false;
  const searchers = Array.from({ length: 5 }, async (_, c) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (!stop) {
      const f = files[c % 2];
      const r = await get(agent, server.port, `/api/graph/search?${new URLSearchParams({ run: f.run, tag: f.tag, q: '.', limit: '1000' })}`);
      searchMs.push(r.ms);
      if (r.status >= 500 && r.status !== 503) problems.push(`search: ${r.status}`);
    }
    agent.destroy();
  });
  await Promise.all(
    Array.from({ length: 5 }, async (_, c) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let k = 0; k < 40; k++) {
        const f = files[c % 2];
        const r = await get(agent, server.port, `/api/graph/children?${new URLSearchParams({ run: f.run, tag: f.tag, node: f.info.rootId })}`);
        besideSearch.push(r.ms);
      }
      agent.destroy();
    }),
  );
  stop = true;
  await Promise.all(searchers);
  const peak = server.peakRssMb();
  await server.stop();

  const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
  const lines = [
    `# Load: ${clients} clients × ${perClient} requests (bench/load.mjs)`,
    '',
    `${machineLine()}; \`.vis\` of ${nodes} nodes a side (${(vis.bytes / 1e6).toFixed(0)} MB, indexed on first use, rewritten after a third`,
    `of the requests), \`.vis.db\` of ${nodes} nodes a side, a third file deleted after two thirds.`,
    '',
    '| phase | requests | wall | /children p50 / p95 / p99 (ms) | other routes p99 (ms) | 503 budget | problems |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| storm (cold, rewrite, delete) | ${total} | ${stormSeconds.toFixed(1)} s | ${f1(pct(stormChildren, 50))} / ${f1(pct(stormChildren, 95))} / ${f1(pct(stormChildren, 99))} | ${['node', 'meta', 'search', 'filter'].map((k) => `${k} ${f1(pct(byRoute.get(k) ?? [], 99))}`).join(', ')} | ${budget503} | ${problems.length} |`,
    `| warm /children | ${warm.length} | ${warmSeconds.toFixed(1)} s | ${f1(pct(warm, 50))} / ${f1(pct(warm, 95))} / ${f1(pct(warm, 99))} | — | — | — |`,
    `| /children beside full-graph searches | ${besideSearch.length} | — | ${f1(pct(besideSearch, 50))} / ${f1(pct(besideSearch, 95))} / ${f1(pct(besideSearch, 99))} | search p50 ${f1(pct(searchMs, 50))} | — | — |`,
    '',
    `Server peak RSS ${peak.toFixed(0)} MB. Target: warm /children p99 ≤ 300 ms; no cross-talk, no 5xx but the budget's 503.`,
  ];
  if (problems.length) lines.push('', 'Problems:', ...problems.slice(0, 20).map((p) => `- ${p}`));
  writeResults(path.resolve(args.results), lines);
  rmSync(work, { recursive: true, force: true });
  if (problems.length || pct(warm, 99) > 300) process.exit(1);
}

main().catch((e) => {
  console.error(`bench:load: ${e instanceof Error ? e.message : e}`);
  process.exit(2);
});
