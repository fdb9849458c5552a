import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorstResponse } from '../../src/core/api/types.js';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { generateVis } from '../../bench/visgen/index.mjs';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { runCli } from '../../server/cli/program.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { bundleFindWorker } from '../helpers/workerBundles.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 14's worst-nodes table (`/api/graph/worst`): every node with a precision value, worst first (md5: 0 first) or
 * in output order, paged, with paths; the `.vis` index, the whole-file reference store and the `.vis.db` agree, and
 * the find worker answers as the inline store does.
 */

let tmp: string;
let logdir: string;
let workerScript: string;
const servers: ServedApp[] = [];
const caches: StoreCache[] = [];
const golden = path.join(repoRoot, 'test/fixtures/graph/golden');

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-worst-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  // One graph as `.vis` and `.vis.db` (the same seed): NPU values with a tail of 1s (ties) and unmatched nodes.
  await generateVis({ nodes: 3000, out: path.join(logdir, 'ms.vis'), seed: 7 });
  await generateVis({ nodes: 3000, out: path.join(logdir, 'ms.vis.db'), seed: 7 });
  await generateVis({ nodes: 500, out: path.join(logdir, 'ranks.vis.db'), seed: 3, ranks: [0, 1] });
  // One run of the graph command written as `.vis` and as `.vis.db`: real statistics with two diverging layers.
  const dumps = generateDumps({ layers: 4, bench: true, seed: 11, badLayers: [1, 3], fused: true, stackFrames: 1, out: path.join(tmp, 'dumps'), log: () => {} });
  for (const format of ['vis', 'db']) {
    const out = path.join(tmp, `graph-${format}`);
    const io = { out: () => {}, err: (t: string) => void process.stderr.write(t) };
    expect(await runCli(['graph', '-i', dumps.compareJson, '-o', out, '--format', format, '--quiet'], [(p) => registerGraphCommand(p, io)], io)).toBe(0);
    const file = readdirSync(out).find((f) => f.endsWith(`.${format === 'db' ? 'vis.db' : 'vis'}`))!;
    copyFileSync(path.join(out, file), path.join(logdir, format === 'db' ? 'gpt.vis.db' : 'gpt.vis'));
  }
  // The graph command's golden outputs of one run, as `.vis` and `.vis.db` (layer mapping: unreachable nodes).
  copyFileSync(path.join(golden, 'lm_pt_vs_pt_compare/vis-202507/compare_20261125220621.vis'), path.join(logdir, 'lm.vis'));
  copyFileSync(path.join(golden, 'lm_pt_vs_pt_compare/db/compare_20261125220617.vis.db'), path.join(logdir, 'lm.vis.db'));
  // Hand-made values of the legacy test file.
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/mock_compare_statis_graph.vis'), path.join(logdir, 'mock.vis'));
  // md5 files: the same graph with task md5, where 0 (some md5 differs) is the worst value.
  writeFileSync(path.join(logdir, 'md5.vis'), readFileSync(path.join(logdir, 'ms.vis'), 'utf8').replace(/"task": *"summary"/, '"task": "md5"'));
  copyFileSync(path.join(logdir, 'ms.vis.db'), path.join(logdir, 'md5.vis.db'));
  const db = new Database(path.join(logdir, 'md5.vis.db'));
  db.prepare("UPDATE tb_config SET task = 'md5'").run();
  db.close();
  mkdirSync(path.join(tmp, 'bundle'));
  workerScript = await bundleFindWorker(path.join(tmp, 'bundle'));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of caches) c.closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

async function serve(inline = false): Promise<ServedApp> {
  const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache'), indexWorkerScript: null, findWorkerScript: inline ? null : workerScript });
  caches.push(stores);
  const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores }));
  servers.push(served);
  return served;
}

let served: ServedApp;
beforeAll(async () => {
  served = await serve();
});

async function worst(params: Record<string, string | number>): Promise<WorstResponse> {
  const res = await rawGet(served.port, `/api/graph/worst?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);
  expect(res.status, res.body).toBe(200);
  return res.json as WorstResponse;
}

/** Every page of `limit`, concatenated. */
async function allPages(params: Record<string, string | number>, limit: number): Promise<WorstResponse['results']> {
  const out: WorstResponse['results'] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await worst({ ...params, offset, limit });
    expect(page.offset).toBe(offset);
    out.push(...page.results);
    if (offset + limit >= page.total) return out;
  }
}

/** Precision values of the side's nodes, read from the `.vis` file itself. */
function visValues(file: string, side: 'NPU' | 'Bench'): Map<string, number> {
  const doc = parsePyJson(readFileSync(file, 'utf8')) as Record<string, any>;
  const out = new Map<string, number>();
  for (const [id, node] of Object.entries(doc[side].node as Record<string, any>)) {
    const v = node?.data?.precision_index;
    if (typeof v === 'number' && Number.isFinite(v)) out.set(id, v);
  }
  return out;
}

function dbValues(file: string, source: 'NPU' | 'Bench', step = 0, rank = 0): Map<string, number> {
  const db = new Database(file, { readonly: true });
  const rows = db
    .prepare("SELECT node_name, precision_index FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND typeof(precision_index) IN ('integer', 'real')")
    .all(step, rank, source) as Array<{ node_name: string; precision_index: number }>;
  db.close();
  return new Map(rows.map((r) => [r.node_name, r.precision_index]));
}

/** Position of each id in the list: the list is in output order when every node comes after its descendants. */
function expectOutputOrder(results: WorstResponse['results']): void {
  const at = new Map(results.map((r, k) => [r.id, k]));
  let checked = 0;
  for (const [k, r] of results.entries()) {
    for (const ancestor of r.path) {
      const a = at.get(ancestor);
      if (a === undefined) continue;
      expect(a, `${ancestor} (an ancestor of ${r.id}) is listed before it`).toBeGreaterThan(k);
      checked++;
    }
  }
  expect(checked).toBeGreaterThan(0);
}

describe('/api/graph/worst', () => {
  for (const [tag, format, values] of [
    ['ms', 'vis', () => visValues(path.join(logdir, 'ms.vis'), 'NPU')],
    ['ms', 'db', () => dbValues(path.join(logdir, 'ms.vis.db'), 'NPU')],
  ] as const) {
    it(`.${format === 'db' ? 'vis.db' : 'vis'}: every rated node, worst first, ties in output order, paged`, async () => {
      const expected = values();
      expect(expected.size).toBeGreaterThan(5);
      const base = { run: '.', tag, format, side: 'npu' };
      const first = await worst(base);
      expect(first).toMatchObject({ total: expected.size, offset: 0, order: 'precision', worst: 'high' });
      const all = await allPages(base, 97);
      expect(all.map((r) => r.id).sort()).toEqual([...expected.keys()].sort());
      for (const r of all) expect(r.precisionIndex).toBe(expected.get(r.id));
      // The first row is the worst value of the file.
      expect(all[0].precisionIndex).toBe(Math.max(...expected.values()));
      for (let k = 1; k < all.length; k++) expect(all[k].precisionIndex!).toBeLessThanOrEqual(all[k - 1].precisionIndex!);
      // Pages of 97 join up into one big page.
      expect(all.slice(0, 1000)).toEqual((await worst({ ...base, limit: 1000 })).results);
      // Execution order: the same nodes, each after its descendants; ties of the worst order follow it.
      const exec = await allPages({ ...base, order: 'execution' }, 500);
      expect(exec.map((r) => r.id).sort()).toEqual(all.map((r) => r.id).sort());
      expectOutputOrder(exec);
      const pos = new Map(exec.map((r, k) => [r.id, k]));
      for (let k = 1; k < all.length; k++) {
        if (all[k].precisionIndex === all[k - 1].precisionIndex) expect(pos.get(all[k].id)!).toBeGreaterThan(pos.get(all[k - 1].id)!);
      }
      // Paths locate the node: the root first.
      const meta = (await rawGet(served.port, `/api/graph/meta?run=.&tag=${tag}&format=${format}`)).json;
      for (const r of all) if (r.id !== meta.roots.npu) expect(r.path[0]).toBe(meta.roots.npu);
    });
  }

  it('md5: 0 (some md5 differs) is worst, so the table is ascending', async () => {
    for (const format of ['vis', 'db']) {
      const page = await worst({ run: '.', tag: 'md5', format, side: 'npu', limit: 1000 });
      expect(page.worst).toBe('low');
      const v = page.results.map((r) => r.precisionIndex!);
      expect(v.length).toBeGreaterThan(5);
      expect(v[0]).toBe(Math.min(...v));
      for (let k = 1; k < v.length; k++) expect(v[k]).toBeGreaterThanOrEqual(v[k - 1]);
      expect(v[v.length - 1]).toBeGreaterThan(v[0]);
    }
  });

  it('a .vis and a .vis.db of the same graph answer the same, and so does the whole-file reference store', async () => {
    for (const tag of ['gpt', 'lm']) {
      for (const order of ['precision', 'execution']) {
        const q = { run: '.', tag, side: 'npu', order, limit: 1000 };
        const vis = await worst({ ...q, format: 'vis' });
        const db = await worst({ ...q, format: 'db' });
        expect(vis.total).toBeGreaterThan(tag === 'gpt' ? 20 : 0);
        // The `.vis` era had no parameters_grad nodes (msprobe-format.md §0): without them the `.vis.db` answers the same.
        const visIds = new Set(vis.results.map((r) => r.id));
        expect(db.results.filter((r) => !visIds.has(r.id)).every((r) => r.id.includes('.parameters_grad'))).toBe(true);
        const rows = (w: WorstResponse) => w.results.filter((r) => visIds.has(r.id)).map(({ id, precisionIndex, path }) => ({ id, precisionIndex, path }));
        expect(rows(db)).toEqual(rows(vis));
        expect(db.total - db.results.length).toBe(vis.total - vis.results.length);
        const ref = new VisJsonStore(readFileSync(path.join(logdir, `${tag}.vis`), 'utf8'), { file: `${tag}.vis`, run: '.', tag });
        expect(JSON.parse(JSON.stringify(ref.worst({ side: 'npu', order: order as 'precision', offset: 0, limit: 1000 })))).toEqual(vis);
      }
    }
  });

  it("a legacy file's hand-made values: worst first, the legacy `B___` links and string ids kept", async () => {
    const page = await worst({ run: '.', tag: 'mock', side: 'npu' });
    const values = visValues(path.join(logdir, 'mock.vis'), 'NPU');
    expect(page.results.map((r) => r.precisionIndex)).toEqual([...values.values()].sort((a, b) => b - a));
    expect(page.results[0].id).toBe([...values.entries()].find(([, v]) => v === 1)![0]);
  });

  it('the bench side (no precision values) and offsets past the end answer empty pages', async () => {
    const bench = await worst({ run: '.', tag: 'ms', format: 'db', side: 'bench' });
    expect(bench.total).toBe(dbValues(path.join(logdir, 'ms.vis.db'), 'Bench').size);
    const past = await worst({ run: '.', tag: 'ms', format: 'vis', side: 'npu', offset: 100000 });
    expect(past.results).toEqual([]);
    expect(past.total).toBeGreaterThan(0);
  });

  it('another step and rank of a .vis.db is another table', async () => {
    const r0 = await worst({ run: '.', tag: 'ranks', side: 'npu', limit: 1000 });
    const r1 = await worst({ run: '.', tag: 'ranks', side: 'npu', rank: 1, limit: 1000 });
    const values = dbValues(path.join(logdir, 'ranks.vis.db'), 'NPU', 0, 1);
    expect(r1.total).toBe(values.size);
    for (const r of r1.results) expect(r.precisionIndex).toBe(values.get(r.id));
    expect(r1.results.map((r) => r.precisionIndex)).not.toEqual(r0.results.map((r) => r.precisionIndex));
  });

  it('inline (no find worker) answers byte for byte as the worker', async () => {
    const inline = await serve(true);
    for (const p of ['run=.&tag=ms&format=vis&side=npu&limit=9&offset=3', 'run=.&tag=ms&format=db&side=npu&order=execution&limit=9&offset=3']) {
      const a = await rawGet(served.port, `/api/graph/worst?${p}`);
      const b = await rawGet(inline.port, `/api/graph/worst?${p}`);
      expect(a.status).toBe(200);
      expect(b.body).toBe(a.body);
    }
  });

  it('bad parameters are 400 with the JSON error shape', async () => {
    for (const p of ['order=name2', 'limit=0', 'limit=1001', 'offset=-1', 'side=left']) {
      const res = await rawGet(served.port, `/api/graph/worst?run=.&tag=ms&format=vis&${p}`);
      expect(res.status, p).toBe(400);
      expect(typeof res.json.error).toBe('string');
    }
  });
});
