#!/usr/bin/env node
// node bench/recolour.mjs [--nodes 1e5] [--formats vis,db] [--ways summaries,pages] [--work DIR] [--bin FILE] [--results FILE]
//
// Recolouring a fully expanded view after an overlay change (issue 15): from registering the new overlay until every
// loaded node of both sides has its link and precision index under it (202 answers waited out as the viewer does).
// Ways: `summaries` — one `POST /api/overlay/summaries` per side with every loaded id the first time, then the view key
// it answered (what the viewer does); `pages`
// — every loaded children page asked for again, 4 at once (what it did before). Each way on a fresh server, after
// expanding everything. The first metric choice reads the matched nodes' outputs once; later ones recolour from the
// kept cells. Target: ≤ 300 ms for 10^5 nodes. Prints a markdown table and writes it to bench/results/recolour.md.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { largeVisFile, machineLine, startServer, untilReady, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1e5' },
    formats: { type: 'string', default: 'vis,db' },
    ways: { type: 'string', default: 'summaries,pages' },
    work: { type: 'string', default: path.join(os.tmpdir(), 'probeboard-bench-viewer') },
    bin: { type: 'string', default: path.join(repo, 'bin/probeboard.js') },
    results: { type: 'string', default: path.join(repo, 'bench/results/recolour.md') },
  },
});
const bin = path.resolve(args.bin);
if (!existsSync(bin)) {
  console.error(`bench:recolour: ${bin} is missing: run "npm run build" first`);
  process.exit(2);
}
const PARALLEL = 4;

/** Asked again while 202, as the viewer does, and after a 503 (a loaded machine); anything else but 200 fails. */
const answer = async (port, method, p, body) => (await untilReady(port, method, p, body, { pollMs: 100, retry503Ms: 60_000 })).json;

const q = (o) => new URLSearchParams(Object.entries(o).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)])).toString();

/** Every page of a fully expanded side (group, total) and every loaded id, walked from the root. */
async function expandAll(port, file, side, root) {
  const pages = [];
  const ids = [root];
  const stack = [root];
  while (stack.length) {
    const node = stack.pop();
    const page = await answer(port, 'GET', `/api/graph/children?${q({ ...file, side, node })}`);
    if (page.children.length === 0) continue;
    pages.push({ node, limit: page.children.length });
    for (const c of page.children) {
      if (c.synthetic) continue;
      ids.push(c.id);
      if (c.childCount > 0) stack.push(c.id);
    }
  }
  return { pages, ids };
}

const rows = [];
/** The changes measured, in this order on each server (each a new overlay): the first metric choice reads outputs. */
const changes = (someModule) => [
  ['first metric choice', { ops: [], metrics: ['MinRelativeErr'] }],
  ['another metric choice', { ops: [], metrics: ['MaxRelativeErr'] }],
  ['another metric choice', { ops: [], metrics: ['MeanRelativeErr', 'NormRelativeErr'] }],
  ['another metric choice', { ops: [], metrics: ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr'] }],
  ['unmatch a module', { ops: [{ op: 'unmatch', npu: someModule, bench: someModule, children: true }] }],
];
const ways = args.ways.split(',');
for (const format of args.formats.split(',')) {
  const nodes = Number(args.nodes);
  const gen = await largeVisFile(path.resolve(args.work), nodes, /** @type {'vis' | 'db'} */ (format));
  for (const way of ways) {
    // A fresh server and cache per way: one way's reads do not warm the other's.
    const cache = mkdtempSync(path.join(os.tmpdir(), 'probeboard-bench-recolour-'));
    let server = await startServer(bin, gen.dir, cache);
    try {
      const file = { run: '.', tag: `vis-${nodes}`, format };
      const meta = await answer(server.port, 'GET', `/api/graph/meta?${q(file)}`);
      const views = {};
      // The view the user expanded, as the viewer loads it (children pages).
      for (const side of ['npu', 'bench']) views[side] = await expandAll(server.port, file, side, meta.roots[side]);
      const someModule = views.npu.pages[1]?.node ?? views.npu.ids[1];
      const loaded = views.npu.ids.length + views.bench.ids.length;
      for (const [change, body] of changes(someModule)) {
        const t0 = performance.now();
        const { overlay } = await answer(server.port, 'POST', `/api/overlay?${q(file)}`, body);
        let requests = 1;
        // As the viewer: a metric choice can move NPU indexes only, so it asks for those alone (overlayActions.ts).
        const metricsOnly = body.ops.length === 0;
        for (const side of way === 'summaries' && metricsOnly ? ['npu'] : ['npu', 'bench']) {
          if (way === 'pages') {
            const { pages } = views[side];
            for (let i = 0; i < pages.length; i += PARALLEL) {
              const batch = pages.slice(i, i + PARALLEL);
              requests += batch.length;
              await Promise.all(batch.map((p) => answer(server.port, 'GET', `/api/graph/children?${q({ ...file, side, node: p.node, limit: p.limit, overlay })}`)));
            }
          } else {
            requests++;
            // As the viewer: the ids once, then the key the server gave them (a server without keys gets the ids).
            const fields = metricsOnly ? 'precision' : 'all';
            const r = await answer(server.port, 'POST', `/api/overlay/summaries?${q({ ...file, side, overlay })}`, views[side].key ? { view: views[side].key, fields } : { ids: views[side].ids, fields });
            views[side].key = r.view;
            if (r.precisionIndex.length !== views[side].ids.length || r.missing.length > 0) throw new Error(`summaries answered ${r.precisionIndex.length - r.missing.length} of ${views[side].ids.length} ids`);
          }
        }
        const ms = performance.now() - t0;
        rows.push(`| ${format} | ${nodes} | ${loaded} | ${change} | ${way === 'pages' ? 'children pages again' : 'POST summaries'} | ${requests} | ${ms.toFixed(0)} |`);
        console.error(rows.at(-1));
      }
      if (way === 'summaries') {
        // The file reopened: a new server on the cache the first one left, the same view's first metric choice.
        await server.stop();
        server = await startServer(bin, gen.dir, cache);
        await answer(server.port, 'GET', `/api/graph/meta?${q(file)}`);
        // The reloaded viewer's panes load their nodes first (the file's values; not measured).
        await answer(server.port, 'POST', `/api/overlay/summaries?${q({ ...file, side: 'npu' })}`, { ids: views.npu.ids, fields: 'precision' });
        const t0 = performance.now();
        const { overlay } = await answer(server.port, 'POST', `/api/overlay?${q(file)}`, { ops: [], metrics: ['MinRelativeErr'] });
        const r = await answer(server.port, 'POST', `/api/overlay/summaries?${q({ ...file, side: 'npu', overlay })}`, { ids: views.npu.ids, fields: 'precision' });
        if (r.precisionIndex.length !== views.npu.ids.length) throw new Error('summaries answered too few ids');
        rows.push(`| ${format} | ${nodes} | ${loaded} | first metric choice, file reopened (new server, same cache) | POST summaries | 2 | ${(performance.now() - t0).toFixed(0)} |`);
        console.error(rows.at(-1));
      }
    } finally {
      await server.stop();
      rmSync(cache, { recursive: true, force: true });
    }
  }
}

writeResults(args.results, [
  '# Recolour after an overlay change (bench/recolour.mjs)',
  '',
  machineLine(),
  '',
  'Both panes fully expanded; the time until every loaded node of both sides has its value under a new overlay.',
  'Target (issue 15): ≤ 300 ms for 10^5 nodes.',
  '',
  '| format | nodes/side | loaded ids | change | way | requests | ms |',
  '|---|---|---|---|---|---|---|',
  ...rows,
]);
