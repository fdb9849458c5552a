#!/usr/bin/env node
// node bench/save.mjs [--sizes 1e6] [--modes copy] [--repeat 2] [--walk] [--work DIR] [--bin FILE] [--results FILE]
//
// Issue 15's "Save as…" / "Overwrite" of a large compare `.vis.db` and what other users see meanwhile. The viewer
// benchmark's file (bench/visgen, shared through --work) is hard-linked (else copied) into a temp log dir; `probeboard
// serve` registers an overlay that matches up to 20 unmatched pairs, then saves it as the viewer does (asked
// again every 300 ms while it answers 202). During the save another client asks `/api/graph/meta` in a loop (each ask
// 50 ms after the last answer): its slowest answer is how long any other request waited behind the save.
// With --walk it also times the matched-nodes list of each side (the side walk, server/overlay/sideWalk.ts) and the
// server's peak RSS growth over it.
// Prints a markdown table and writes it to bench/results/save.md.
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { httpJson, largeVisFile, machineLine, median, startServer, untilReady, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e6' },
    modes: { type: 'string', default: 'copy' },
    repeat: { type: 'string', default: '2' },
    walk: { type: 'boolean', default: false },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-viewer') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/save.md') },
  },
});
const bin = path.resolve(args.bin);
const work = path.resolve(args.work);
const repeat = Math.max(1, Number(args.repeat));
/** @param {string} m @returns {never} */
const fail = (m) => {
  console.error(`bench:save: ${m}`);
  process.exit(2);
};
if (bin === path.join(repo, 'bin/probeboard.js') && !existsSync(path.join(repo, 'dist/server/cli/main.js'))) fail('dist/ is missing: run "npm run build" first');

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));
const request = httpJson;
/** As the viewer: 202 again after 300 ms; 503 (a cold registration counting the file's unmatched nodes) for 2 minutes. */
const ready = (port, method, p, body) => untilReady(port, method, p, body, { pollMs: 300, retry503Ms: 120_000 });

/** `/api/graph/meta` asked in a loop until `stop()`: every answer's ms. */
function metaLoop(port, q) {
  const times = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const r = await request(port, 'GET', `/api/graph/meta?${q}`);
      if (r.status !== 200) throw new Error(`meta: ${r.status}`);
      times.push(performance.now() - t0);
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return times;
    },
  };
}

/**
 * Up to 20 unmatched NPU nodes of the first graph whose Bench namesake is unmatched too (bench/visgen leaves Bench
 * links empty): the overlay matches each pair, so the save rewrites their rows.
 */
function pickPairs(file) {
  const db = new Database(file, { readonly: true });
  try {
    const { step, rank } = db.prepare('SELECT step, rank FROM tb_nodes LIMIT 1').get();
    const ids = db
      .prepare(
        `SELECT n.node_name FROM tb_nodes n WHERE n.step = ? AND n.rank = ? AND n.data_source = 'NPU' AND n.matched_node_link = '[]' AND EXISTS
         (SELECT 1 FROM tb_nodes b WHERE b.step = n.step AND b.rank = n.rank AND b.data_source = 'Bench' AND b.node_name = n.node_name AND b.matched_node_link = '[]') LIMIT 20`,
      )
      .pluck()
      .all(step, rank);
    if (ids.length === 0) fail(`${file}: no unmatched pair to match`);
    return { step, rank, ops: ids.map((id) => ({ op: 'match', npu: id, bench: id, children: true })) };
  } finally {
    db.close();
  }
}

async function measure(/** @type {number} */ nodes, /** @type {'copy' | 'overwrite'} */ mode) {
  const f = await largeVisFile(work, nodes, 'db');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'probeboard-bench-save-'));
  try {
    const logdir = path.join(scratch, 'logs');
    mkdirSync(logdir);
    const file = path.join(logdir, path.basename(f.out));
    // A hard link costs nothing; saves never write the served file in place (overwrite renames a new one over it).
    try {
      linkSync(f.out, file);
    } catch {
      copyFileSync(f.out, file);
    }
    const p = pickPairs(file);
    const tag = path.basename(file).replace(/\.vis\.db$/, '');
    const q = new URLSearchParams({ run: '.', tag, format: 'db', step: String(p.step), rank: String(p.rank) }).toString();
    const server = await startServer(bin, logdir, mkdtempSync(path.join(scratch, 'cache-')));
    const saves = [];
    const walks = [];
    try {
      const idle = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await ready(server.port, 'GET', `/api/graph/meta?${q}`);
        idle.push(performance.now() - t0);
      }
      for (let i = 0; i < repeat; i++) {
        const meta = (await ready(server.port, 'GET', `/api/graph/meta?${q}`)).json;
        const overlay = (await ready(server.port, 'POST', `/api/overlay?${q}`, { ops: p.ops })).json;
        const loop = metaLoop(server.port, q);
        await sleep(200);
        const saved = await ready(server.port, 'POST', `/api/overlay/save?${q}&overlay=${overlay.overlay}`, { mode, stamp: meta.stamp, replace: true });
        const times = await loop.stop();
        saves.push({ ms: saved.ms, asks: saved.asks, metaMax: Math.max(...times), metaMedian: median(times), metaAsks: times.length, changed: overlay.outcomes.reduce((n, o) => n + o.done, 0) });
        for (const name of readdirSync(logdir)) if (name.includes('.matched.') || name.endsWith('.bak')) rmSync(path.join(logdir, name));
      }
      if (args.walk) {
        const meta = (await ready(server.port, 'GET', `/api/graph/meta?${q}`)).json;
        const overlay = (await ready(server.port, 'POST', `/api/overlay?${q}`, { ops: p.ops })).json;
        for (const side of ['npu', 'bench']) {
          const before = server.peakRssMb();
          const r = await ready(server.port, 'GET', `/api/overlay/nodes?${q}&overlay=${overlay.overlay}&side=${side}&state=matched&limit=10`);
          walks.push({ side, ms: r.ms, asks: r.asks, total: r.json.total, rssMb: server.peakRssMb() - before, nodes: meta.nodeCounts[side] });
        }
      }
      return { nodes, mode, mb: statSync(file).size / 1e6, idle: median(idle), saves, walks };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const rows = [];
for (const size of String(args.sizes).split(',')) for (const mode of String(args.modes).split(',')) rows.push(await measure(Number(size), /** @type {any} */ (mode)));

writeResults(args.results, [
  '# Saving a matched .vis.db (bench/save.mjs)',
  '',
  `${machineLine()}; load average ${os.loadavg()[0].toFixed(1)} after the run.`,
  "The viewer benchmark's compare `.vis.db` (bench/visgen). One overlay matching up to 20 unmatched pairs, saved",
  '(`POST /api/overlay/save`, asked again every 300 ms while it answers 202) while another client asks',
  '`/api/graph/meta` in a loop (50 ms after each answer). Save ms = until the 200; meta max = the slowest meta answer',
  'during the save (idle = a meta answer with nothing else running).',
  '',
  '| file | mode | pairs matched | save ms (asks) | meta max ms | meta median ms | meta asks | idle meta ms |',
  '|---|---|---:|---:|---:|---:|---:|---:|',
  ...rows.flatMap((r) =>
    r.saves.map((s) =>
      [
        `| db ${r.nodes.toExponential(0).replace('+', '')} (${r.mb.toFixed(0)} MB)`,
        r.mode,
        s.changed,
        `${s.ms.toFixed(0)} (${s.asks})`,
        s.metaMax.toFixed(0),
        s.metaMedian.toFixed(1),
        s.metaAsks,
        `${r.idle.toFixed(1)} |`,
      ].join(' | '),
    ),
  ),
  ...(rows.some((r) => r.walks.length > 0)
    ? [
        '',
        'Matched-nodes list (`GET /api/overlay/nodes?state=matched`, the side walk, asked again while 202) and the',
        "server's peak RSS (VmHWM) growth over it:",
        '',
        '| file | side | nodes | walk ms (asks) | matched | peak RSS growth MB |',
        '|---|---|---:|---:|---:|---:|',
        ...rows.flatMap((r) => r.walks.map((w) => `| db ${r.nodes.toExponential(0).replace('+', '')} | ${w.side} | ${w.nodes} | ${w.ms.toFixed(0)} (${w.asks}) | ${w.total} | ${w.rssMb.toFixed(0)} |`)),
      ]
    : []),
  '',
]);
