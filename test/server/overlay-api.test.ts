import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchOp, OverlayConfigResponse, OverlayConfigsResponse, OverlayNodesResponse, OverlayResponse } from '../../src/core/api/overlay.js';
import type { ChildrenResponse, FindResponse, GraphMeta, NodeDetail, WorstResponse } from '../../src/core/api/types.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { precisionFromMetrics, serializeVisConfig } from '../../src/core/match/index.js';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { registerServeCommand } from '../../server/cli/serve.js';
import { startServe } from '../../server/cli/startServe.js';
import { runCli } from '../../server/cli/program.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { readPackedFile, writePackedFile } from '../../server/store/packedFile.js';
import { UNREACHABLE_GROUP_ID } from '../../server/store/unreachableGroup.js';
import { bundleFindWorker } from '../helpers/workerBundles.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 15's server side (src/core/api/overlay.ts): overlays replayed over a served file and laid over graph answers,
 * the Function tab's lists, `.vis.config` import/export, and saving a matched file — a copy equal to the original plus
 * exactly the overlay's changes, the original untouched, concurrent saves serialised (one 409), writes refused on a
 * read-only server and from other sites.
 */

let tmp: string;
let logdir: string;
let app: ServedApp;
let readOnlyApp: ServedApp;
const caches: StoreCache[] = [];
/** sha256 of every file the tests only read, taken before they run. */
const before = new Map<string, string>();

const SA = 'Module.module.module.decoder.layers.1.self_attention.SelfAttention.forward.0';
const unmatchSA: MatchOp = { op: 'unmatch', npu: SA, bench: SA, children: true };
const matchSA: MatchOp = { op: 'match', npu: SA, bench: SA, children: true };

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

interface Answer {
  status: number;
  json: any;
}

/** An HTTP request with exactly these headers (fetch would add or refuse Origin / Sec-Fetch-*). */
function request(served: ServedApp, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(
      { host: '127.0.0.1', port: served.port, path: p, method, headers: { ...(text !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(raw);
          } catch {
            json = raw;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
const get = (p: string, served = app) => request(served, 'GET', p);
const post = (p: string, body: unknown, served = app, headers?: Record<string, string>) => request(served, 'POST', p, body, headers);

async function register(file: Record<string, string>, body: unknown): Promise<OverlayResponse> {
  const r = await post(`/api/overlay?${q(file)}`, body);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as OverlayResponse;
}

async function node(file: Record<string, string>, side: string, id: string, overlay?: string): Promise<NodeDetail> {
  const r = await get(`/api/graph/node?${q({ ...file, side, node: id, ...(overlay ? { overlay } : {}) })}`);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as NodeDetail;
}

async function stamp(file: Record<string, string>): Promise<string> {
  return ((await get(`/api/graph/meta?${q(file)}`)).json as GraphMeta).stamp!;
}

/** Every node id of a `.vis` side in pre-order from the root (the order filter lists). */
function preorder(vis: any, side: 'NPU' | 'Bench'): string[] {
  const nodes = vis[side].node;
  const out: string[] = [];
  const stack = [vis[side].root as string];
  while (stack.length) {
    const id = stack.pop()!;
    out.push(id);
    for (const c of [...nodes[id].subnodes].reverse()) stack.push(c);
  }
  return out;
}

const VIS = { run: 'vis', tag: 'gpt' };
const DB = { run: 'db', tag: 'gpt' };
const LM = { run: 'lm', tag: 'lm' };

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-overlay-'));
  logdir = path.join(tmp, 'logs');
  // One graph run of real statistics as `.vis` and `.vis.db` (all matched; overlays unmatch and match them).
  const dumps = generateDumps({ layers: 2, bench: true, seed: 11, badLayers: [1], fused: true, stackFrames: 1, out: path.join(tmp, 'dumps'), log: () => {} });
  for (const format of ['vis', 'db'] as const) {
    const out = path.join(tmp, `graph-${format}`);
    const io = { out: () => {}, err: (t: string) => void process.stderr.write(t) };
    expect(await runCli(['graph', '-i', dumps.compareJson, '-o', out, '--format', format, '--quiet'], [(p) => registerGraphCommand(p, io)], io)).toBe(0);
    const file = readdirSync(out).find((f) => f.endsWith(format === 'db' ? '.vis.db' : '.vis'))!;
    for (const run of [format, `ow-${format}`]) {
      mkdirSync(path.join(logdir, run), { recursive: true });
      copyFileSync(path.join(out, file), path.join(logdir, run, format === 'db' ? 'gpt.vis.db' : 'gpt.vis'));
    }
  }
  // A layer-mapping compare (MindSpore vs PyTorch): unmatched nodes, some the root does not reach.
  mkdirSync(path.join(logdir, 'lm'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/graph/golden/lm_ms_vs_pt_compare/vis-202507/compare_20261125220627.vis'), path.join(logdir, 'lm/lm.vis'));
  mkdirSync(path.join(logdir, 'build'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis'), path.join(logdir, 'build/b.vis'));
  for (const run of ['vis', 'db', 'lm', 'build']) for (const f of readdirSync(path.join(logdir, run))) before.set(path.join(logdir, run, f), sha(path.join(logdir, run, f)));

  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>test</title>');
  // The find worker as the real server runs it: graph routes with an overlay patch its answers.
  const findWorkerScript = await bundleFindWorker(path.join(tmp, 'bundle'));
  const stores = () => {
    const c = createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript });
    caches.push(c);
    return c;
  };
  app = await serveApp(createApp({ logdir, appDir, lang: 'en', stores: stores() }));
  readOnlyApp = await serveApp(createApp({ logdir, appDir, lang: 'en', stores: stores(), readOnly: true }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await readOnlyApp?.close();
  for (const c of caches) c.closeAll();
  // Files the tests only read are byte-identical afterwards (saves write copies beside them).
  for (const [file, hash] of before) expect(sha(file), file).toBe(hash);
  for (const run of ['vis', 'db', 'lm', 'build']) {
    expect(readdirSync(path.join(logdir, run)).filter((f) => f.endsWith('-wal') || f.endsWith('-shm') || f.endsWith('.tmp'))).toEqual([]);
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe('POST /api/overlay and graph routes with overlay=', () => {
  it('unmatching a module with its children makes them grey everywhere, and only under that overlay id', async () => {
    const base = await node(VIS, 'npu', SA);
    expect(base.matchedNodeLink.at(-1)).toBe(SA);
    const a = await register(VIS, { ops: [unmatchSA] });
    expect(a.outcomes).toHaveLength(1);
    // The pair, its backward partner and the matched children below it.
    expect(a.outcomes[0].done).toBeGreaterThan(10);
    expect(a.outcomes[0].failed).toEqual([]);
    expect(a.counts.npuUnmatched).toBe(a.outcomes[0].done);
    expect(a.counts.benchUnmatched).toBe(a.outcomes[0].done);

    const grey = await node(VIS, 'npu', SA, a.overlay);
    expect(grey.matchedNodeLink).toEqual([]);
    expect(grey.precisionIndex).toBeNull();
    // Unmatching strips the eight compare cells from the NPU items.
    for (const item of Object.values(grey.outputData)) expect(Object.keys(item)).not.toContain('MaxRelativeErr');
    expect(Object.keys(Object.values(base.outputData)[0])).toContain('MaxRelativeErr');
    expect((await node(VIS, 'bench', SA, a.overlay)).matchedNodeLink).toEqual([]);
    const found = (await get(`/api/graph/search?${q({ ...VIS, side: 'npu', q: 'layers.1.self_attention.SelfAttention', overlay: a.overlay })}`)).json as FindResponse;
    expect(found.results.find((r) => r.id === SA)!.matchedNodeLink).toEqual([]);

    // `/children` answers are cached per store: the overlay's and the file's never mix, whichever comes first.
    const parent = base.path.at(-1)!;
    const kids = (overlay?: string) => get(`/api/graph/children?${q({ ...VIS, side: 'npu', node: parent, ...(overlay ? { overlay } : {}) })}`);
    for (let i = 0; i < 2; i++) {
      const plain = (await kids()).json as ChildrenResponse;
      const over = (await kids(a.overlay)).json as ChildrenResponse;
      expect(plain.children.find((c) => c.id === SA)!.matchedNodeLink.at(-1)).toBe(SA);
      expect(over.children.find((c) => c.id === SA)!.matchedNodeLink).toEqual([]);
      expect(over.children.find((c) => c.id === SA)!.precisionIndex).toBeNull();
    }
  });

  it('filter: unmatched nodes in pre-order with the overlay; precision buckets and worst lose them', async () => {
    const a = await register(VIS, { ops: [unmatchSA] });
    const vis = JSON.parse(readFileSync(path.join(logdir, 'vis/gpt.vis'), 'utf8'));
    const changed = new Set<string>();
    for (const id of preorder(vis, 'NPU')) {
      if ((await node(VIS, 'npu', id, a.overlay)).matchedNodeLink.length === 0) changed.add(id);
    }
    expect(changed.size).toBe(a.counts.npuUnmatched);
    const unmatched = (await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', unmatched: 1, overlay: a.overlay })}`)).json as FindResponse;
    expect(unmatched.total).toBe(changed.size);
    expect(unmatched.results.map((r) => r.id)).toEqual(preorder(vis, 'NPU').filter((id) => changed.has(id)));
    expect(unmatched.results[0].path).toEqual((await node(VIS, 'npu', unmatched.results[0].id)).path);
    expect(((await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', unmatched: 1 })}`)).json as FindResponse).total).toBe(0);

    // A limit smaller than the answer: the first ones, total counting all.
    const page = (await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', unmatched: 1, limit: 3, overflow: 'critical', overlay: a.overlay })}`)).json as FindResponse;
    expect(page.results.map((r) => r.id)).toEqual(unmatched.results.slice(0, 3).map((r) => r.id));

    const all = (overlay?: string) => get(`/api/graph/filter?${q({ ...VIS, side: 'npu', precision: '0-1', limit: 10000, ...(overlay ? { overlay } : {}) })}`);
    const fileAll = (await all()).json as FindResponse;
    const overAll = (await all(a.overlay)).json as FindResponse;
    const rated = [...changed].filter((id) => fileAll.results.some((r) => r.id === id));
    expect(rated.length).toBeGreaterThan(5);
    expect(overAll.total).toBe(fileAll.total - rated.length);
    expect(overAll.results.map((r) => r.id)).toEqual(fileAll.results.map((r) => r.id).filter((id) => !changed.has(id)));

    for (const order of ['precision', 'execution']) {
      const w = (overlay?: string) => get(`/api/graph/worst?${q({ ...VIS, side: 'npu', order, limit: 1000, ...(overlay ? { overlay } : {}) })}`);
      const fileWorst = (await w()).json as WorstResponse;
      const overWorst = (await w(a.overlay)).json as WorstResponse;
      expect(overWorst.total).toBe(fileWorst.total - rated.length);
      expect(overWorst.results.map((r) => r.id)).toEqual(fileWorst.results.map((r) => r.id).filter((id) => !changed.has(id)));
    }
  });

  it('matching again restores the links, recomputes the cells and index, and merges the nodes back in execution order', async () => {
    const b = await register(VIS, { ops: [unmatchSA, matchSA] });
    expect(b.outcomes[1].done).toBe(b.outcomes[0].done);
    expect(b.counts).toEqual({ npuUnmatched: 0, benchUnmatched: 0, matched: (await get(`/api/graph/meta?${q(VIS)}`)).json.nodeCounts.npu });
    const file = await node(VIS, 'npu', SA);
    const again = await node(VIS, 'npu', SA, b.overlay);
    expect(again.matchedNodeLink).toEqual(file.matchedNodeLink);
    expect(again.precisionIndex).not.toBeNull();
    // msprobe's own value to the 6 decimals of the stored statistics.
    expect(again.precisionIndex!).toBeCloseTo(file.precisionIndex!, 4);
    const cell = Object.values(again.outputData)[0] as Record<string, unknown>;
    expect(cell.MaxRelativeErr).toMatch(/^\d+\.\d{4}%$/);
    expect(typeof cell.MaxAbsErr).toBe('number');

    for (const order of ['precision', 'execution']) {
      const w = (overlay?: string) => get(`/api/graph/worst?${q({ ...VIS, side: 'npu', order, limit: 1000, ...(overlay ? { overlay } : {}) })}`);
      const fileWorst = (await w()).json as WorstResponse;
      const overWorst = (await w(b.overlay)).json as WorstResponse;
      expect(overWorst.total).toBe(fileWorst.total);
      if (order === 'execution') expect(overWorst.results.map((r) => r.id)).toEqual(fileWorst.results.map((r) => r.id));
      expect(overWorst.results.find((r) => r.id === SA)!.precisionIndex).toBe(again.precisionIndex);
    }
    const fileAll = (await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', precision: '0-1', limit: 10000 })}`)).json as FindResponse;
    const overAll = (await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', precision: '0-1', limit: 10000, overlay: b.overlay })}`)).json as FindResponse;
    expect(overAll.results.map((r) => r.id)).toEqual(fileAll.results.map((r) => r.id));
    // The divergent walk reads the overlay's rated list and records.
    expect((await get(`/api/graph/divergent?${q({ ...VIS, overlay: b.overlay })}`)).status).toBe(200);
  });

  it('a .vis.db: the same operations, per step and rank', async () => {
    const a = await register(DB, { ops: [unmatchSA] });
    const v = await register(VIS, { ops: [unmatchSA] });
    expect(a.outcomes[0].done).toBe(v.outcomes[0].done);
    expect((await node(DB, 'npu', SA, a.overlay)).matchedNodeLink).toEqual([]);
    const unmatched = (await get(`/api/graph/filter?${q({ ...DB, side: 'bench', unmatched: 1, overlay: a.overlay })}`)).json as FindResponse;
    expect(unmatched.total).toBe(a.counts.benchUnmatched);
    // An id belongs to its graph: another rank (or a file version, a restart) is 409.
    const other = await get(`/api/graph/node?${q({ ...DB, side: 'npu', node: SA, rank: 1, overlay: a.overlay })}`);
    expect([400, 409]).toContain(other.status);
  });

  it('a layer-mapping file: grey nodes the root does not reach are matched with a link of real nodes', async () => {
    const npu = 'Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0';
    const bench = 'Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0';
    const before = (await get(`/api/graph/filter?${q({ ...LM, side: 'npu', unmatched: 1 })}`)).json as FindResponse;
    const r = await register(LM, { ops: [{ op: 'match', npu, bench, children: true }] });
    expect(r.outcomes[0].done).toBeGreaterThanOrEqual(1);
    const n = await node(LM, 'npu', npu, r.overlay);
    expect(n.matchedNodeLink.at(-1)).toBe(bench);
    expect(n.matchedNodeLink.some((id) => id.startsWith(UNREACHABLE_GROUP_ID))).toBe(false);
    expect(n.precisionIndex).not.toBeNull();
    const after = (await get(`/api/graph/filter?${q({ ...LM, side: 'npu', unmatched: 1, overlay: r.overlay })}`)).json as FindResponse;
    expect(after.total).toBe(before.total - r.outcomes[0].done);
    expect(after.results.map((x) => x.id)).not.toContain(npu);
    expect(r.counts.npuUnmatched).toBe(after.total);
  });

  it('the metric choice recomputes the index from the chosen relative errors', async () => {
    const m = await register(VIS, { ops: [], metrics: ['MinRelativeErr'] });
    const file = await node(VIS, 'npu', SA);
    const expected = precisionFromMetrics(file.outputData, ['MinRelativeErr'])!.precisionIndex;
    expect(expected).not.toBeCloseTo(file.precisionIndex!, 3);
    expect((await node(VIS, 'npu', SA, m.overlay)).precisionIndex).toBe(expected);
    const parent = file.path.at(-1)!;
    const kids = (await get(`/api/graph/children?${q({ ...VIS, side: 'npu', node: parent, overlay: m.overlay })}`)).json as ChildrenResponse;
    expect(kids.children.find((c) => c.id === SA)!.precisionIndex).toBe(expected);
    const worst = (await get(`/api/graph/worst?${q({ ...VIS, side: 'npu', limit: 1000, overlay: m.overlay })}`)).json as WorstResponse;
    expect(worst.results.find((r) => r.id === SA)!.precisionIndex).toBe(expected);
    const lo = Math.max(0, expected - 1e-9);
    const bucket = (await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', precision: `${lo}-${expected + 1e-9}`, overlay: m.overlay })}`)).json as FindResponse;
    expect(bucket.results.map((r) => r.id)).toContain(SA);
    // Same metrics in another order and all four (= the file's own index) are canonical.
    expect((await register(VIS, { ops: [], metrics: ['MinRelativeErr'] })).overlay).toBe(m.overlay);
    const four = await register(VIS, { ops: [], metrics: ['NormRelativeErr', 'MeanRelativeErr', 'MinRelativeErr', 'MaxRelativeErr'] });
    expect((await node(VIS, 'npu', SA, four.overlay)).precisionIndex).toBe(file.precisionIndex);
  });

  it('a replay longer than a request may work answers 202 and goes on where it stopped when asked again', async () => {
    const stores = createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript: null });
    caches.push(stores);
    const slow = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), stores, workBudgetMs: 60 }));
    try {
      const ops = Array.from({ length: 30 }, () => [unmatchSA, matchSA]).flat();
      const statuses: number[] = [];
      let r: Answer;
      do {
        r = await post(`/api/overlay?${q(VIS)}`, { ops }, slow);
        statuses.push(r.status);
      } while (r.status === 202 && statuses.length < 200);
      expect(statuses.at(-1), JSON.stringify(r.json)).toBe(200);
      expect(statuses.filter((x) => x === 202).length).toBeGreaterThan(0);
      const whole = await register(VIS, { ops });
      expect(r.json).toEqual(whole);
    } finally {
      await slow.close();
    }
  });

  it('an id the server does not hold is 409 overlayUnknown', async () => {
    const r = await get(`/api/graph/node?${q({ ...VIS, side: 'npu', node: SA, overlay: 'f'.repeat(32) })}`);
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('overlayUnknown');
    expect(r.json.error).toContain('ffff');
    const zh = await get(`/api/graph/filter?${q({ ...VIS, side: 'npu', unmatched: 1, overlay: 'nope', lang: 'zh-CN' })}`);
    expect(zh.status).toBe(409);
    expect(zh.json.error).toContain('覆盖层');
  });

  it('bad bodies are 400 naming the problem; a build file is 400', async () => {
    const cases: Array<[unknown, string]> = [
      ['{not json', 'not JSON'],
      [[], 'must be a JSON object'],
      [{ ops: 'x' }, '"ops" must be a list'],
      [{ ops: [{ op: 'swap', npu: 'a', bench: 'b' }] }, 'ops[0].op'],
      [{ ops: [{ op: 'match', npu: '', bench: 'b' }] }, 'ops[0].npu'],
      [{ ops: [{ op: 'match', npu: 'a', bench: 'x'.repeat(5000) }] }, 'ops[0].bench: longer than 4096'],
      [{ ops: [{ op: 'match', npu: 'a', bench: 'b', children: 'yes' }] }, 'ops[0].children'],
      [{ ops: [], metrics: ['MaxRelativeErr', 'Cosine'] }, '"Cosine"'],
      [{ ops: [], metrics: [] }, '"metrics" must be a non-empty list'],
      [{ ops: [], extra: 1 }, 'unknown key "extra"'],
    ];
    for (const [body, problem] of cases) {
      const r = await post(`/api/overlay?${q(VIS)}`, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.json.error).toContain(problem);
    }
    const build = await post(`/api/overlay?${q({ run: 'build', tag: 'b' })}`, { ops: [] });
    expect(build.status).toBe(400);
    expect(build.json.error).toContain('build/b.vis');
  });
});

describe('GET /api/overlay/nodes', () => {
  it('lists unmatched and matched nodes per side with paths and counterparts, paged', async () => {
    const a = await register(VIS, { ops: [unmatchSA] });
    const list = (params: Record<string, string | number>) => get(`/api/overlay/nodes?${q({ ...VIS, overlay: a.overlay, ...params })}`);
    const un = (await list({ side: 'npu', state: 'unmatched', limit: 1000 })).json as OverlayNodesResponse;
    expect(un.total).toBe(a.counts.npuUnmatched);
    expect(un.results.map((r) => r.id)).toContain(SA);
    expect(un.results.every((r) => r.counterpart === null)).toBe(true);
    const second = (await list({ side: 'npu', state: 'unmatched', offset: 2, limit: 2 })).json as OverlayNodesResponse;
    expect(second.results.map((r) => r.id)).toEqual(un.results.slice(2, 4).map((r) => r.id));
    const matched = (await list({ side: 'bench', state: 'matched', limit: 5 })).json as OverlayNodesResponse;
    const meta = (await get(`/api/graph/meta?${q(VIS)}`)).json as GraphMeta;
    expect(matched.total).toBe(meta.nodeCounts.bench! - a.counts.benchUnmatched);
    expect(matched.results).toHaveLength(5);
    expect(matched.results[0]).toEqual({ id: meta.roots.bench, path: [], counterpart: meta.roots.npu });
    expect((await list({ side: 'npu', state: 'both' })).status).toBe(400);
    expect((await list({ side: 'npu', limit: 5000 })).status).toBe(400);
  });
});

describe('POST /api/overlay/summaries', () => {
  /** Every node's summary as /children answers it (with `overlay`), walked from the side's root. */
  async function childrenSummaries(file: Record<string, string>, side: string, overlay?: string) {
    const meta = (await get(`/api/graph/meta?${q(file)}`)).json as GraphMeta;
    const out = new Map<string, { precisionIndex: number | null; overflowLevel: string | null; matchedNodeLink: string[] }>();
    const stack = [meta.roots[side as 'npu']!];
    while (stack.length) {
      const id = stack.pop()!;
      const r = await get(`/api/graph/children?${q({ ...file, side, node: id, limit: 1000, ...(overlay ? { overlay } : {}) })}`);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      for (const c of (r.json as ChildrenResponse).children) {
        if (c.synthetic) continue;
        out.set(c.id, { precisionIndex: c.precisionIndex, overflowLevel: c.overflowLevel, matchedNodeLink: c.matchedNodeLink });
        if (c.childCount > 0) stack.push(c.id);
      }
    }
    return out;
  }

  it('answers what /children answers under the same overlay, for a match and for a metric choice, .vis and .vis.db', async () => {
    for (const file of [VIS, DB]) {
      const unmatched = await register(file, { ops: [unmatchSA] });
      const metric = await register(file, { ops: [], metrics: ['MinRelativeErr'] });
      // The key of each side's first answer names its ids under every later overlay (what a pane's recolour sends).
      const views: Record<string, string> = {};
      for (const overlay of [undefined, unmatched.overlay, metric.overlay]) {
        for (const side of ['npu', 'bench']) {
          const expected = await childrenSummaries(file, side, overlay);
          const ids = ['no.such.node', ...expected.keys()];
          const r = await post(`/api/overlay/summaries?${q({ ...file, side, ...(overlay ? { overlay } : {}) })}`, { ids });
          expect(r.status, JSON.stringify(r.json).slice(0, 200)).toBe(200);
          expect(r.json.missing).toEqual([0]);
          ids.slice(1).forEach((id, i) => {
            const got = { precisionIndex: r.json.precisionIndex[i + 1], overflowLevel: r.json.overflowLevel[i + 1], matchedNodeLink: r.json.matchedNodeLink[i + 1] };
            expect(got, `${file.run} ${side} ${overlay} ${id}`).toEqual(expected.get(id));
          });
          // The precision-only answer (a metric choice) carries the same indexes and nothing else.
          const lean = await post(`/api/overlay/summaries?${q({ ...file, side, ...(overlay ? { overlay } : {}) })}`, { ids, fields: 'precision' });
          expect(Object.keys(lean.json).sort()).toEqual(['missing', 'precisionIndex', 'view']);
          expect(lean.json.precisionIndex).toEqual(r.json.precisionIndex);
          views[side] ??= r.json.view;
          for (const fields of ['all', 'precision']) {
            const named = await post(`/api/overlay/summaries?${q({ ...file, side, ...(overlay ? { overlay } : {}) })}`, { view: views[side], fields });
            expect(named.status, JSON.stringify(named.json).slice(0, 200)).toBe(200);
            expect(named.json).toEqual({ ...(fields === 'all' ? r.json : lean.json), view: views[side] });
          }
        }
      }
      // The overlays change something these answers carry, so the comparison above can fail.
      const plain = await post(`/api/overlay/summaries?${q({ ...file, side: 'npu' })}`, { ids: [SA] });
      const gone = await post(`/api/overlay/summaries?${q({ ...file, side: 'npu', overlay: unmatched.overlay })}`, { ids: [SA] });
      const recoloured = await post(`/api/overlay/summaries?${q({ ...file, side: 'npu', overlay: metric.overlay })}`, { ids: [SA] });
      expect(plain.json.matchedNodeLink[0].length).toBeGreaterThan(0);
      expect(gone.json.matchedNodeLink[0]).toEqual([]);
      expect(recoloured.json.precisionIndex[0]).not.toBe(plain.json.precisionIndex[0]);
    }
  });

  it('bad bodies are 400 (en/zh) naming the problem; an unknown overlay is 409', async () => {
    const cases: Array<[unknown, string]> = [
      ['{not json', 'not JSON'],
      [{ ids: 'a' }, '"ids" must be a list'],
      [{ ids: ['a', ''] }, 'ids[1]'],
      [{ ids: [7] }, 'ids[0]'],
      [{ ids: [], extra: 1 }, 'unknown key "extra"'],
      [{ ids: [], fields: 'links' }, '"fields" must be'],
      [{ ids: Array.from({ length: 200_001 }, () => 'a') }, 'at most 200000'],
      [{ ids: [SA], view: 'k' }, 'not both'],
      [{ view: 7 }, '"view" must be'],
    ];
    for (const [body, problem] of cases) {
      const r = await post(`/api/overlay/summaries?${q({ ...VIS, side: 'npu' })}`, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.json.error).toContain(problem);
    }
    const zh = await post(`/api/overlay/summaries?${q({ ...VIS, side: 'npu', lang: 'zh-CN' })}`, { ids: 'a' });
    expect(zh.status).toBe(400);
    expect(zh.json.error).toContain('请求体有误');
    const unknown = await post(`/api/overlay/summaries?${q({ ...VIS, side: 'npu', overlay: 'f'.repeat(32) })}`, { ids: [SA] });
    expect(unknown.status).toBe(409);
    expect(unknown.json.code).toBe('overlayUnknown');
    // A view key is unknown to another side or file, and after the server dropped it: the client sends the ids again.
    const made = await post(`/api/overlay/summaries?${q({ ...VIS, side: 'npu' })}`, { ids: [SA] });
    for (const [where, key] of [[{ ...VIS, side: 'bench' }, made.json.view], [{ ...DB, side: 'npu' }, made.json.view], [{ ...VIS, side: 'npu' }, 'no-such-view']] as const) {
      const stale = await post(`/api/overlay/summaries?${q(where)}`, { view: key });
      expect(stale.status).toBe(409);
      expect(stale.json.code).toBe('viewUnknown');
      expect(stale.json.error).toContain('send its ids again');
    }
    expect((await post(`/api/overlay/summaries?${q({ ...VIS, side: 'npu', lang: 'zh-CN' })}`, { view: 'no-such-view' })).json.error).toContain('重新发送');
  });
});

describe('.vis.config files', () => {
  it('export writes the original viewer format and name; the list and the reader see it; importing it gives the same state', async () => {
    const b = await register(VIS, { ops: [unmatchSA, matchSA] });
    const exp = await post(`/api/overlay/export?${q({ ...VIS, overlay: b.overlay })}`, {});
    expect(exp.status, JSON.stringify(exp.json)).toBe(200);
    expect(exp.json.file).toBe('vis/gpt.vis.config');
    const text = readFileSync(path.join(logdir, 'vis/gpt.vis.config'), 'utf8');
    const pairs = Object.entries(JSON.parse(text) as Record<string, string>);
    expect(pairs.length).toBe(b.outcomes[1].done);
    expect(pairs).toContainEqual([SA, SA]);
    // json.dump(pairs, indent=4, ensure_ascii=False): no trailing newline.
    expect(text).toBe(serializeVisConfig(pairs));
    expect(text.startsWith('{\n    "')).toBe(true);
    expect(text.endsWith('"\n}')).toBe(true);

    const configs = (await get(`/api/overlay/configs?${q(VIS)}`)).json as OverlayConfigsResponse;
    expect(configs).toEqual({ files: ['gpt.vis.config'], writable: true });
    const read = (await get(`/api/overlay/config?${q({ ...VIS, file: 'gpt.vis.config' })}`)).json as OverlayConfigResponse;
    expect(read.pairs.map((p) => [p.npu, p.bench])).toEqual(pairs);

    const imported = await register(VIS, { ops: [unmatchSA, ...read.pairs.map((p): MatchOp => ({ op: 'config', npu: p.npu, bench: p.bench, children: false }))] });
    expect(imported.counts).toEqual(b.counts);
    for (const [npu] of pairs) {
      const want = await node(VIS, 'npu', npu, b.overlay);
      const got = await node(VIS, 'npu', npu, imported.overlay);
      expect([got.matchedNodeLink, got.precisionIndex, got.outputData]).toEqual([want.matchedNodeLink, want.precisionIndex, want.outputData]);
    }
    // A config applied twice changes nothing the second time (unchanged, not failed).
    const twice = await register(VIS, { ops: [...read.pairs.map((p): MatchOp => ({ op: 'config', npu: p.npu, bench: p.bench, children: false }))] });
    expect(twice.outcomes.every((o) => o.done === 0 && o.failed.length === 0 && o.unchanged === 1)).toBe(true);
  });

  it('a .vis.db exports {tag}_{step}_{rank}.vis.config', async () => {
    const b = await register(DB, { ops: [unmatchSA, matchSA] });
    const exp = await post(`/api/overlay/export?${q({ ...DB, overlay: b.overlay })}`, {});
    expect(exp.status, JSON.stringify(exp.json)).toBe(200);
    expect(exp.json.file).toBe('db/gpt_0_0.vis.config');
    expect(Object.keys(JSON.parse(readFileSync(path.join(logdir, 'db/gpt_0_0.vis.config'), 'utf8')))).toContain(SA);
  });

  it('reading refuses paths, other names, missing and malformed files, naming the file', async () => {
    writeFileSync(path.join(logdir, 'lm/bad.vis.config'), '{"a": 1}');
    writeFileSync(path.join(logdir, 'lm/broken.vis.config'), '{"a": ');
    const read = (file: string) => get(`/api/overlay/config?${q({ ...LM, file })}`);
    for (const [file, status, text] of [
      ['../vis/gpt.vis.config', 400, 'a file name, not a path'],
      ['notes.txt', 400, '.vis.config'],
      ['.hidden.vis.config', 400, 'hidden'],
      ['missing.vis.config', 404, 'lm/missing.vis.config'],
      ['bad.vis.config', 422, 'lm/bad.vis.config'],
      ['broken.vis.config', 422, 'lm/broken.vis.config: not valid JSON'],
    ] as const) {
      const r = await read(file);
      expect(r.status, file).toBe(status);
      expect(r.json.error).toContain(text);
    }
    expect(((await get(`/api/overlay/configs?${q(LM)}`)).json as OverlayConfigsResponse).files).toEqual(['bad.vis.config', 'broken.vis.config']);
    rmSync(path.join(logdir, 'lm/bad.vis.config'));
    rmSync(path.join(logdir, 'lm/broken.vis.config'));
  });
});

describe('POST /api/overlay/save', () => {
  it('a .vis copy is the original plus exactly the overlay changes; the original is untouched', async () => {
    const a = await register(VIS, { ops: [unmatchSA, matchSA, { op: 'unmatch', npu: 'Torch.split.1.forward', bench: 'Torch.split.1.forward', children: false }] });
    const r = await post(`/api/overlay/save?${q({ ...VIS, overlay: a.overlay })}`, { mode: 'copy', stamp: await stamp(VIS) });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.file).toBe('vis/gpt.matched.vis');
    const origText = readFileSync(path.join(logdir, 'vis/gpt.vis'), 'utf8');
    const savedText = readFileSync(path.join(logdir, 'vis/gpt.matched.vis'), 'utf8');
    const orig = parsePyJson(origText, { mode: 'python' }) as Map<string, any>;
    const saved = parsePyJson(savedText, { mode: 'python' }) as Map<string, any>;
    expect([...saved.keys()]).toEqual([...orig.keys()]);
    for (const [key, value] of orig) if (key !== 'NPU' && key !== 'Bench') expect(saved.get(key)).toEqual(value);
    let changedNodes = 0;
    let firstChanged: string | null = null;
    for (const side of ['NPU', 'Bench'] as const) {
      const o = orig.get(side).get('node') as Map<string, Map<string, unknown>>;
      const s = saved.get(side).get('node') as Map<string, Map<string, unknown>>;
      expect([...s.keys()]).toEqual([...o.keys()]);
      for (const [id, on] of o) {
        const sn = s.get(id)!;
        const over = await node(VIS, side === 'NPU' ? 'npu' : 'bench', id, a.overlay);
        const file = await node(VIS, side === 'NPU' ? 'npu' : 'bench', id);
        if (JSON.stringify(over) === JSON.stringify(file)) {
          // Untouched: the same keys, values and Python types (ints stay ints, floats floats).
          expect(sn, id).toEqual(on);
          continue;
        }
        changedNodes++;
        firstChanged ??= id;
        expect([...sn.keys()], id).toEqual([...on.keys()]);
        for (const [k, v] of on) if (!['matched_node_link', 'input_data', 'output_data', 'data'].includes(k)) expect(sn.get(k), `${id} ${k}`).toEqual(v);
        expect(sn.get('matched_node_link')).toEqual(over.matchedNodeLink);
        const js = JSON.parse(JSON.stringify(Object.fromEntries([...sn].map(([k, v]) => [k, toJs(v)]))));
        expect(js.input_data, id).toEqual(over.inputData);
        expect(js.output_data, id).toEqual(over.outputData);
        expect(js.data.precision_index ?? null, id).toBe(over.precisionIndex);
      }
    }
    // SelfAttention's subtree and partner re-matched (values may move in the last digits) and Torch.split.1 unmatched.
    expect(changedNodes).toBeGreaterThan(2);
    const split = (saved.get('NPU').get('node') as Map<string, Map<string, any>>).get('Torch.split.1.forward')!;
    expect(split.get('matched_node_link')).toEqual([]);
    expect(split.get('data').has('precision_index')).toBe(false);
    // Written as json.dump(indent=4) writes a node: the bytes before the first changed node are the original's.
    const firstChange = savedText.indexOf(`"${firstChanged}": {`);
    expect(firstChange).toBeGreaterThan(0);
    expect(savedText.slice(0, firstChange)).toBe(origText.slice(0, firstChange));
    expect(savedText.slice(firstChange, firstChange + 600)).toMatch(/^"[^"]+": \{\n {16}"id": "[^"]+",\n {16}"node_type": \d+,\n/);
    expect(sha(path.join(logdir, 'vis/gpt.vis'))).toBe(before.get(path.join(logdir, 'vis/gpt.vis')));

    // Saving a copy again onto the one just written needs `replace`.
    const again = await post(`/api/overlay/save?${q({ ...VIS, overlay: a.overlay })}`, { mode: 'copy', stamp: await stamp(VIS) });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('targetExists');
    const replaced = await post(`/api/overlay/save?${q({ ...VIS, overlay: a.overlay })}`, { mode: 'copy', stamp: await stamp(VIS), replace: true });
    expect(replaced.status).toBe(200);
    expect(readFileSync(path.join(logdir, 'vis/gpt.matched.vis'), 'utf8')).toBe(savedText);
    rmSync(path.join(logdir, 'vis/gpt.matched.vis'));
  });

  it('a .vis.db copy differs from the original in exactly the changed rows, each with modified = 1', async () => {
    const ops: MatchOp[] = [unmatchSA, matchSA, { op: 'unmatch', npu: 'Torch.split.1.forward', bench: 'Torch.split.1.forward', children: false }];
    const a = await register(DB, { ops });
    const r = await post(`/api/overlay/save?${q({ ...DB, overlay: a.overlay })}`, { mode: 'copy', stamp: await stamp(DB) });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.file).toBe('db/gpt.matched.vis.db');
    const rows = (file: string, table: string) => {
      const db = new Database(path.join(logdir, file), { readonly: true });
      try {
        return db.prepare(`SELECT * FROM ${table} ORDER BY id`).all() as Array<Record<string, any>>;
      } finally {
        db.close();
      }
    };
    expect(rows('db/gpt.matched.vis.db', 'tb_config')).toEqual(rows('db/gpt.vis.db', 'tb_config'));
    expect(rows('db/gpt.matched.vis.db', 'tb_stack')).toEqual(rows('db/gpt.vis.db', 'tb_stack'));
    const orig = rows('db/gpt.vis.db', 'tb_nodes');
    const saved = rows('db/gpt.matched.vis.db', 'tb_nodes');
    expect(saved.map((x) => x.id)).toEqual(orig.map((x) => x.id));
    let changed = 0;
    for (let i = 0; i < orig.length; i++) {
      const o = orig[i];
      const s = saved[i];
      const side = o.data_source === 'NPU' ? 'npu' : 'bench';
      const over = await node({ ...DB }, side, o.node_name, a.overlay);
      const file = await node({ ...DB }, side, o.node_name);
      if (JSON.stringify(over) === JSON.stringify(file)) {
        // Untouched, or (un)matched back to what it was: then only marked modified, as the original marks it.
        const operated = [SA, SA.replace('forward', 'backward'), 'Torch.split.1.forward'].some((id) => o.node_name === id || file.path.includes(id));
        expect(s, o.id).toEqual(operated && s.modified === 1 ? { ...o, modified: 1 } : o);
        continue;
      }
      changed++;
      for (const k of Object.keys(o)) {
        if (['matched_node_link', 'input_data', 'output_data', 'precision_index', 'modified'].includes(k)) continue;
        expect(s[k], `${o.id} ${k}`).toEqual(o[k]);
      }
      expect(s.modified).toBe(1);
      expect(JSON.parse(s.matched_node_link)).toEqual(over.matchedNodeLink);
      expect(JSON.parse(s.input_data)).toEqual(over.inputData);
      expect(JSON.parse(s.output_data)).toEqual(over.outputData);
      expect(s.precision_index).toBe(over.precisionIndex);
    }
    expect(changed).toBeGreaterThan(2);
    const dir = readdirSync(path.join(logdir, 'db'));
    expect(dir.filter((f) => f.includes('matched'))).toEqual(['gpt.matched.vis.db']);
    rmSync(path.join(logdir, 'db/gpt.matched.vis.db'));
  });

  it('two overwrites of one file at once: one wins, the other is 409; a .bak keeps the original', async () => {
    for (const [file, name] of [
      [{ run: 'ow-vis', tag: 'gpt' }, 'gpt.vis'],
      [{ run: 'ow-db', tag: 'gpt' }, 'gpt.vis.db'],
    ] as const) {
      const abs = path.join(logdir, file.run, name);
      const original = readFileSync(abs);
      const a = await register(file, { ops: [unmatchSA] });
      const s = await stamp(file);
      const saves = await Promise.all([0, 1].map(() => post(`/api/overlay/save?${q({ ...file, overlay: a.overlay })}`, { mode: 'overwrite', stamp: s })));
      expect(saves.map((x) => x.status).sort()).toEqual([200, 409]);
      expect(saves.find((x) => x.status === 409)!.json.code).toBe('fileChanged');
      expect(readFileSync(`${abs}.bak`).equals(original)).toBe(true);
      // The store cache reopened the new file: its own answers now hold the overlay's changes.
      const now = await stamp(file);
      expect(now).not.toBe(s);
      expect((await node(file, 'npu', SA)).matchedNodeLink).toEqual([]);
      // The old overlay belonged to the old version.
      expect((await get(`/api/graph/node?${q({ ...file, side: 'npu', node: SA, overlay: a.overlay })}`)).json.code).toBe('overlayUnknown');
      expect(readdirSync(path.join(logdir, file.run)).sort()).toEqual([name, `${name}.bak`]);
    }
  });

  it('a stale stamp, a missing overlay and a copy raced by another copy', async () => {
    const a = await register(VIS, { ops: [unmatchSA] });
    const stale = await post(`/api/overlay/save?${q({ ...VIS, overlay: a.overlay })}`, { mode: 'copy', stamp: '1:2:3' });
    expect(stale.status).toBe(409);
    expect(stale.json.code).toBe('fileChanged');
    expect((await post(`/api/overlay/save?${q(VIS)}`, { mode: 'copy', stamp: await stamp(VIS) })).status).toBe(400);
    expect((await post(`/api/overlay/save?${q({ ...VIS, overlay: a.overlay })}`, { mode: 'move', stamp: 'x' })).json.error).toContain('"mode"');
    const s = await stamp(VIS);
    const copies = await Promise.all([0, 1].map(() => post(`/api/overlay/save?${q({ ...VIS, overlay: a.overlay })}`, { mode: 'copy', stamp: s })));
    expect(copies.map((x) => x.status).sort()).toEqual([200, 409]);
    expect(copies.find((x) => x.status === 409)!.json.code).toBe('targetExists');
    rmSync(path.join(logdir, 'vis/gpt.matched.vis'));
  });
});

describe('write safety', () => {
  it('a read-only server answers every write 403 (en/zh) and still serves overlays', async () => {
    const a = await register(VIS, { ops: [unmatchSA] });
    const onRo = await post(`/api/overlay?${q(VIS)}`, { ops: [unmatchSA] }, readOnlyApp);
    expect(onRo.status).toBe(200);
    for (const [route, body] of [
      ['export', {}],
      ['save', { mode: 'copy', stamp: await stamp(VIS) }],
    ] as const) {
      const r = await post(`/api/overlay/${route}?${q({ ...VIS, overlay: onRo.json.overlay })}`, body, readOnlyApp);
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ code: 'readOnly' });
      expect(r.json.error).toContain('read-only');
      const zh = await post(`/api/overlay/${route}?${q({ ...VIS, overlay: a.overlay, lang: 'zh-CN' })}`, body, readOnlyApp);
      expect(zh.json.error).toContain('只读');
    }
    expect(((await get(`/api/overlay/configs?${q(VIS)}`, readOnlyApp)).json as OverlayConfigsResponse).writable).toBe(false);
    expect(existsSync(path.join(logdir, 'vis/gpt.matched.vis'))).toBe(false);
  });

  it('writes from another site, without JSON, or by GET are refused', async () => {
    const exportUrl = `/api/overlay/export?${q(VIS)}`;
    const refused: Array<[string, Record<string, string>, unknown]> = [
      ['POST', { origin: 'http://evil.example' }, {}],
      ['POST', { origin: `http://localhost:${app.port + 1}` }, {}],
      ['POST', { 'sec-fetch-site': 'cross-site' }, {}],
      ['POST', { 'sec-fetch-site': 'same-site' }, {}],
      ['POST', { origin: 'null' }, {}],
      ['POST', { 'content-type': 'text/plain' }, '{}'],
      ['POST', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b'],
    ];
    for (const [method, headers, body] of refused) {
      const r = await request(app, method, exportUrl, body, headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.json.code).toBe('notSameOrigin');
    }
    expect((await get(exportUrl)).status).toBe(404);
    // The page itself: same origin (its Referrer-Policy makes browsers send Origin: null with Sec-Fetch-Site).
    for (const headers of [{ origin: app.origin }, { origin: 'null', 'sec-fetch-site': 'same-origin' }, {}] as Array<Record<string, string>>) {
      expect((await request(app, 'POST', exportUrl, {}, headers)).status, JSON.stringify(headers)).toBe(200);
    }
    rmSync(path.join(logdir, 'vis/gpt.vis.config'), { force: true });
  });
});

describe('serve --read_only / --writable', () => {
  it('a server bound to other machines is read-only unless told otherwise; the flags conflict', async () => {
    const appDir = path.join(tmp, 'app');
    const cacheDir = path.join(tmp, 'serve-cache');
    const cases: Array<[string, boolean | undefined, boolean]> = [
      ['0.0.0.0', undefined, true],
      ['0.0.0.0', false, false],
      ['127.0.0.1', undefined, false],
      ['127.0.0.1', true, true],
    ];
    for (const [host, readOnly, expected] of cases) {
      const running = await startServe({ logdir, port: 0, host, appDir, cacheDir, readOnly });
      try {
        expect(running.readOnly, `${host} ${readOnly}`).toBe(expected);
        const served = { port: (running.server.address() as AddressInfo).port } as ServedApp;
        const r = await request(served, 'POST', `/api/overlay/export?${q(LM)}`, {});
        expect(r.status, `${host} ${readOnly}`).toBe(expected ? 403 : 200);
      } finally {
        await running.close();
      }
    }
    rmSync(path.join(logdir, 'lm/lm.vis.config'));
    const err: string[] = [];
    const io = { out: () => {}, err: (t: string) => void err.push(t) };
    expect(await runCli(['serve', '--logdir', logdir, '--read_only', '--writable'], [(p) => registerServeCommand(p, io)], io)).toBe(2);
    expect(err.join('')).toMatch(/--read_only.*--writable|--writable.*--read_only/);
  });
});

/** A python-mode parse as plain JSON values (bigint → number, Map → object). */
function toJs(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, toJs(x)]));
  return v;
}

describe('derived cache', () => {
  it('a reopened file takes its metric cells and unmatched counts from the cache instead of reading them again', async () => {
    const cacheDir = path.join(tmp, 'kept-cache');
    mkdirSync(path.join(logdir, 'kept'), { recursive: true });
    copyFileSync(path.join(logdir, 'vis/gpt.vis'), path.join(logdir, 'kept/gpt.vis'));
    const KEPT = { run: 'kept', tag: 'gpt' };
    const appDir = path.join(tmp, 'app');
    const findWorkerScript = await bundleFindWorker(path.join(tmp, 'bundle-kept'));
    /** One server process's answers: the counts of a metric choice and the NPU indexes under it. */
    const session = async () => {
      const stores = createStoreCache({ cacheDir, indexWorkerScript: null, findWorkerScript });
      const served = await serveApp(createApp({ logdir, appDir, lang: 'en', stores }));
      try {
        const meta = (await get(`/api/graph/meta?${q(KEPT)}`, served)).json as GraphMeta;
        const reg = await post(`/api/overlay?${q(KEPT)}`, { ops: [], metrics: ['MinRelativeErr'] }, served);
        expect(reg.status, JSON.stringify(reg.json)).toBe(200);
        const ids = (JSON.parse(readFileSync(path.join(logdir, 'kept/gpt.vis'), 'utf8').replace(/\bNaN\b/g, 'null')).NPU.node as Record<string, unknown>) ?? {};
        const r = await post(`/api/overlay/summaries?${q({ ...KEPT, side: 'npu', overlay: reg.json.overlay })}`, { ids: [meta.roots.npu, ...Object.keys(ids)], fields: 'precision' }, served);
        expect(r.status, JSON.stringify(r.json).slice(0, 200)).toBe(200);
        return { counts: reg.json.counts as OverlayResponse['counts'], values: r.json.precisionIndex as Array<number | null> };
      } finally {
        await served.close();
        stores.closeAll();
      }
    };
    const first = await session();
    const kept = (kind: string) => {
      const dir = path.join(cacheDir, 'derived', kind);
      const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.bin')) : [];
      expect(files, kind).toHaveLength(1);
      return path.join(dir, files[0]);
    };
    // Change what the cache holds (a real read would give the first answers again): every maximum 0.25, one more
    // unmatched NPU node.
    const cellsFile = kept('overlay-metric-cells-v1');
    const cells = readPackedFile(cellsFile)!;
    (cells.arrays[1] as Float64Array).fill(0.25);
    writePackedFile(cellsFile, cells.header, cells.arrays, { digest: true });
    const countsFile = kept('overlay-base-counts-v1');
    const counts = readPackedFile(countsFile)!;
    const data = counts.header.data as Record<string, number>;
    writePackedFile(countsFile, { ...counts.header, data: { ...data, npuUnmatched: data.npuUnmatched + 1 } }, counts.arrays, { digest: true });
    const second = await session();
    expect(second.counts.npuUnmatched).toBe(first.counts.npuUnmatched + 1);
    expect(first.values.filter((v) => v === 0.25)).toHaveLength(0);
    expect(second.values.filter((v) => v === 0.25).length).toBeGreaterThan(10);
  }, 60_000);
});
