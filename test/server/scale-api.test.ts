import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateVis } from '../../bench/visgen/index.mjs';
import type { ChildrenResponse, FindResponse, GraphMeta, IndexingResponse, NodeDetail, RunsResponse } from '../../src/core/api/types.js';
import { createApp } from '../../server/http/app.js';
import { StaleFileError } from '../../server/store/graphStore.js';
import { createStoreCache, type IndexEvent, type StoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { bundleIndexWorker } from '../helpers/workerBundles.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 4 over real HTTP: a large `.vis` indexed in a worker thread (202 with progress, one job per file, the other
 * files answering meanwhile, the index cached and reused), `.vis.db` files of every kind (steps and ranks, v1, an
 * unknown schema, damaged, locked), files rewritten while served, and a cache directory that cannot be written.
 */

let tmp: string;
let logdir: string;
let worker: string;
const servers: Server[] = [];
const q = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

interface Running {
  port: number;
  stores: StoreCache;
  events: IndexEvent[];
  logs: string[];
}

async function serve(options: Parameters<typeof createStoreCache>[0] = {}): Promise<Running> {
  const events: IndexEvent[] = [];
  const logs: string[] = [];
  const stores = createStoreCache({
    cacheDir: path.join(tmp, 'cache'),
    indexWorkerScript: worker,
    inThreadBytes: 1024 * 1024,
    onIndex: (e) => events.push(e),
    log: (l) => logs.push(l),
    ...options,
  });
  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir, { recursive: true });
  const app = createApp({ logdir, appDir, lang: 'en', stores });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, stores, events, logs };
}

const get = (r: Running, route: string, params: Record<string, string | number>) =>
  rawGet(r.port, `/api/graph/${route}?${q(params)}`);

/** Polls until the file answers something other than 202; returns the percents seen on the way. */
async function untilIndexed(r: Running, params: Record<string, string>): Promise<{ status: number; json: any; percents: number[] }> {
  const percents: number[] = [];
  for (let i = 0; i < 600; i++) {
    const res = await get(r, 'meta', params);
    if (res.status !== 202) return { status: res.status, json: res.json, percents };
    percents.push((res.json as IndexingResponse).indexing.percent);
    await new Promise((ok) => setTimeout(ok, 50));
  }
  throw new Error('still indexing after 30 s');
}

const big = { run: 'big', tag: 'large' };
let bigInfo: Awaited<ReturnType<typeof generateVis>>;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-scale-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  worker = await bundleIndexWorker(tmp);
  bigInfo = await generateVis({ nodes: 3000, wide: 1200, out: path.join(logdir, 'big/large.vis'), microSteps: 2 });
  await generateVis({ nodes: 1500, out: path.join(logdir, 'big/replacement.vis'), graphType: 'build' });
  mkdirSync(path.join(logdir, 'small'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/mock_compare_statis_graph.vis'), path.join(logdir, 'small/legacy.vis'));
  await generateVis({ nodes: 2500, wide: 700, out: path.join(logdir, 'db/multi.vis.db'), steps: [0, 2], ranks: [0, 1], microSteps: 2 });
  const bigBytes = readFileSync(path.join(logdir, 'big/large.vis'));
  writeFileSync(path.join(logdir, 'big/truncated.vis'), bigBytes.subarray(0, bigBytes.length - 777));
  makeBadDbs();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  rmSync(tmp, { recursive: true, force: true });
});

function makeBadDbs(): void {
  const dir = path.join(logdir, 'baddb');
  mkdirSync(dir);
  // Damaged: a valid header, then garbage where the schema page should be; the file keeps its length (a file cut
  // short is reported as truncated instead: test/server/shard-view.test.ts).
  const good = readFileSync(path.join(logdir, 'db/multi.vis.db'));
  const damaged = Buffer.from(good);
  for (let i = 100; i < 8192; i++) damaged[i] = (i * 7919) & 0xff;
  writeFileSync(path.join(dir, 'damaged.vis.db'), damaged);
  // Unknown schema: msprobe's tables without node_order.
  const unknown = new Database(path.join(dir, 'unknown.vis.db'));
  unknown.exec("CREATE TABLE tb_nodes (id TEXT, node_name TEXT, node_type TEXT, up_node TEXT, data_source TEXT, step INT, rank INT)");
  unknown.exec("CREATE TABLE tb_config (id TEXT, graph_type TEXT)");
  unknown.close();
  // v1 (2025-07-30 → 09-01): inline stack_info, no tb_stack, rollback journal.
  const v1 = new Database(path.join(dir, 'v1.vis.db'));
  v1.exec(`CREATE TABLE tb_nodes (id TEXT PRIMARY KEY, graph_id TEXT, node_order INTEGER, node_name TEXT, node_type TEXT,
    up_node TEXT, sub_nodes TEXT, precision_index INTEGER, overflow_level TEXT, micro_step_id INTEGER, matched_node_link TEXT,
    stack_info TEXT, parallel_merge_info TEXT, matched_distributed TEXT, modified INTEGER, input_data TEXT, output_data TEXT,
    data_source TEXT, dump_data_dir TEXT, step INTEGER, rank INTEGER)`);
  v1.exec(`CREATE TABLE tb_config (id TEXT PRIMARY KEY, graph_type TEXT, task TEXT, tool_tip TEXT, micro_steps INTEGER,
    overflow_check INTEGER, node_colors TEXT, rank_list TEXT, step_list TEXT)`);
  const ins = v1.prepare('INSERT INTO tb_nodes VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, ?, ?, \'\', \'{}\', 0, \'{}\', \'{}\', \'NPU\', NULL, 0, 0)');
  ins.run('NPU_0_0_A', 'NPU_0_0', 0, 'A', '1', 'R', '', '[]', '["File a.py, line 1"]');
  ins.run('NPU_0_0_R', 'NPU_0_0', 1, 'R', '0', '', '["A"]', '[]', '[]');
  v1.exec("INSERT INTO tb_config VALUES ('1', 'build', '', NULL, 1, 0, 'null', '[0]', '[0]')");
  v1.close();
  // Locked: a rollback-journal copy that a test holds an exclusive lock on.
  copyFileSync(path.join(logdir, 'db/multi.vis.db'), path.join(dir, 'locked.vis.db'));
  const l = new Database(path.join(dir, 'locked.vis.db'));
  l.pragma('journal_mode = DELETE');
  l.close();
}

describe('a large .vis is indexed in a worker', () => {
  it('answers 202 with progress on every route, one job for all requests, while another file answers at once', async () => {
    const r = await serve({ chunkSize: 16 });
    const first = await Promise.all(
      ['meta', 'children', 'node', 'search', 'filter'].map((route) => get(r, route, { ...big, node: 'DefaultModel', q: 'x' })),
    );
    for (const res of first) {
      expect(res.status).toBe(202);
      expect(res.headers['retry-after']).toBe('1');
      const body = res.json as IndexingResponse;
      expect(body.indexing.file).toBe('big/large.vis');
      expect(body.indexing.bytesTotal).toBe(statSync(path.join(logdir, 'big/large.vis')).size);
      expect(body.indexing.percent).toBeGreaterThanOrEqual(0);
      expect(body.indexing.percent).toBeLessThan(100);
    }
    // The other file does not wait for the first.
    const t0 = performance.now();
    const other = await get(r, 'children', { run: 'small', tag: 'legacy' });
    expect(other.status).toBe(200);
    expect((other.json as ChildrenResponse).children.length).toBe(4);
    const dbMeta = await get(r, 'meta', { run: 'db', tag: 'multi' });
    expect(dbMeta.status).toBe(200);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect((await get(r, 'meta', big)).status).toBe(202);

    const done = await untilIndexed(r, big);
    expect(done.status).toBe(200);
    expect(done.percents.length).toBeGreaterThan(2);
    expect(done.percents).toEqual([...done.percents].sort((a, b) => a - b));
    expect(done.percents.at(-1)!).toBeGreaterThan(0);
    expect((done.json as GraphMeta).nodeCounts).toEqual({ npu: 3000, bench: 3000 });
    expect(r.events.filter((e) => e.phase === 'start')).toHaveLength(1);
    expect(r.events.find((e) => e.phase === 'done')).toMatchObject({ file: 'big/large.vis', fromCache: false });
  });

  it('a second server reuses the cached index; nothing is written beside the user\'s files', async () => {
    const before = readdirSync(path.join(logdir, 'big')).sort();
    const r = await serve();
    expect((await untilIndexed(r, big)).status).toBe(200);
    expect(r.events.find((e) => e.phase === 'done')).toMatchObject({ fromCache: true });
    expect(readdirSync(path.join(tmp, 'cache', 'vis-index')).filter((f) => f.endsWith('.idx')).length).toBeGreaterThan(0);
    expect(readdirSync(path.join(logdir, 'big')).sort()).toEqual(before);
  });

  it('children come in pages with a total, proportional in size to the page', async () => {
    const r = await serve();
    await untilIndexed(r, big);
    const wide = bigInfo.wideModules[0];
    const page = async (offset: number, limit: number) => {
      const res = await get(r, 'children', { ...big, node: wide, offset, limit });
      expect(res.status).toBe(200);
      return { body: res.json as ChildrenResponse, bytes: res.body.length };
    };
    const all = await get(r, 'children', { ...big, node: wide });
    const everything = (all.json as ChildrenResponse).children;
    expect(everything).toHaveLength(1200);
    const a = await page(0, 100);
    const b = await page(1100, 500);
    expect(a.body.total).toBe(1200);
    expect(a.body.children.map((c) => c.id)).toEqual(everything.slice(0, 100).map((c) => c.id));
    expect(b.body.children.map((c) => c.id)).toEqual(everything.slice(1100).map((c) => c.id));
    expect(a.bytes).toBeLessThan(all.body.length / 8);
    expect(Math.abs(a.bytes - b.bytes) / a.bytes).toBeLessThan(0.1);
    const bad = await get(r, 'children', { ...big, node: wide, offset: -1 });
    expect(bad.status).toBe(400);
  });

  it('search and filter answer from the index, in execution order with paths', async () => {
    const r = await serve();
    await untilIndexed(r, big);
    const found = (await get(r, 'search', { ...big, q: 'WIDEBLOCK', limit: 5 })).json as FindResponse;
    expect(found.total).toBe(1);
    expect(found.results[0]).toMatchObject({ id: bigInfo.wideModules[0], path: ['DefaultModel'], childCount: 1200 });
    const deep = (await get(r, 'search', { ...big, q: bigInfo.deepest })).json as FindResponse;
    expect(deep.results[0].path).toEqual(bigInfo.paths[bigInfo.deepest]);
    const leaves = (await get(r, 'filter', { ...big, precision: '0.8-1', leaves: 1, limit: 3 })).json as FindResponse;
    expect(leaves.total).toBeGreaterThan(3);
    expect(leaves.results).toHaveLength(3);
    for (const n of leaves.results) {
      expect(n.childCount).toBe(0);
      expect(n.precisionIndex!).toBeGreaterThanOrEqual(0.8);
    }
    const unmatched = (await get(r, 'filter', { ...big, unmatched: 1, limit: 10_000 })).json as FindResponse;
    expect(unmatched.results.every((n) => n.matchedNodeLink.length === 0)).toBe(true);
    expect((await get(r, 'filter', { ...big, precision: '0.5-0.2' })).status).toBe(400);
    expect((await get(r, 'search', big)).status).toBe(400);
  });

  it('a truncated large .vis fails with the file and the byte offset where it stops', async () => {
    const r = await serve();
    const params = { run: 'big', tag: 'truncated' };
    const res = await untilIndexed(r, params);
    const size = statSync(path.join(logdir, 'big/truncated.vis')).size;
    expect(res.status).toBe(422);
    expect(res.json.error).toMatch(new RegExp(`^big/truncated\\.vis: line \\d+:\\d+: (unexpected end of file|unterminated string) \\(file truncated\\?\\) \\(byte ${size}\\)$`));
    const runs = (await rawGet(r.port, '/api/runs')).json as RunsResponse;
    expect(runs.runs.find((x) => x.run === 'big')!.tags.find((t) => t.tag === 'truncated')!.error).toBe(res.json.error);
    expect((await get(r, 'meta', { run: 'small', tag: 'legacy' })).status).toBe(200);
  });

  it('a file replaced while served is indexed again', async () => {
    const r = await serve();
    await untilIndexed(r, big);
    const file = path.join(logdir, 'big/large.vis');
    const keep = path.join(tmp, 'large.keep');
    copyFileSync(file, keep);
    try {
      copyFileSync(path.join(logdir, 'big/replacement.vis'), `${file}.tmp`);
      renameSync(`${file}.tmp`, file);
      const res = await untilIndexed(r, big);
      expect(res.status).toBe(200);
      expect((res.json as GraphMeta).graphType).toBe('build');
      expect((res.json as GraphMeta).nodeCounts).toEqual({ npu: 1500 });
    } finally {
      renameSync(keep, file);
    }
  });

  it('an unwritable cache directory: one log line, the index kept in memory, requests still answered', async () => {
    const notADir = path.join(tmp, 'cache-is-a-file');
    writeFileSync(notADir, 'x');
    const r = await serve({ cacheDir: notADir });
    expect((await untilIndexed(r, big)).status).toBe(200);
    expect((await untilIndexed(r, { run: 'big', tag: 'replacement' })).status).toBe(200);
    expect(r.logs).toHaveLength(1);
    expect(r.logs[0]).toMatch(/^cannot write the index cache in .*cache-is-a-file \(E\w+\); keeping it in memory$/);
    expect(readFileSync(notADir, 'utf8')).toBe('x');
  });
});

describe('.vis.db over HTTP', () => {
  const db = { run: 'db', tag: 'multi' };

  it('lists every .vis.db with its type or its problem', async () => {
    const r = await serve();
    const runs = (await rawGet(r.port, '/api/runs')).json as RunsResponse;
    const tags = (run: string) => Object.fromEntries(runs.runs.find((x) => x.run === run)!.tags.map((t) => [t.tag, t]));
    expect(tags('db').multi).toMatchObject({ format: 'db', graphType: 'compare', error: null });
    const bad = tags('baddb');
    expect(bad.v1).toMatchObject({ graphType: 'build', error: null });
    expect(bad.damaged.error).toMatch(/^baddb\/damaged\.vis\.db: the database is damaged: .*\(SQLITE_(CORRUPT|NOTADB)\w*\)$/);
    expect(bad.unknown.error).toBe(
      'baddb/unknown.vis.db: unknown .vis.db schema: table tb_nodes has no column "node_order" (probeboard reads msprobe\'s v1 and v2, msprobe-format.md §4.2)',
    );
  });

  it('steps and ranks: meta lists them, each graph answers for itself, an unknown one is 400', async () => {
    const r = await serve();
    const meta = (await get(r, 'meta', db)).json as GraphMeta;
    expect(meta).toMatchObject({ format: 'db', graphType: 'compare', steps: [0, 2], ranks: [0, 1], microSteps: 2 });
    expect(meta.nodeCounts).toEqual({ npu: 2500, bench: 2500 });
    const g = (await get(r, 'meta', { ...db, step: 2, rank: 1 })).json as GraphMeta;
    expect(g.roots).toEqual({ npu: 'DefaultModel', bench: 'DefaultModel' });
    const wide = 'Module.wide.0.WideBlock.forward.0';
    const a = (await get(r, 'children', { ...db, node: wide, step: 2, rank: 1, offset: 690, limit: 50 })).json as ChildrenResponse;
    expect(a.total).toBe(700);
    expect(a.children).toHaveLength(10);
    const detail = (await get(r, 'node', { ...db, side: 'bench', node: a.children[0].id, step: 2, rank: 1 })).json as NodeDetail;
    expect(detail.path).toEqual(['DefaultModel', wide]);
    expect(detail.stackInfo.length).toBeGreaterThan(0);
    const micro = (await get(r, 'children', { ...db, micro: 1 })).json as ChildrenResponse;
    expect(micro.children.every((c) => c.microStepId === 1)).toBe(true);
    expect(micro.total).toBeLessThan(((await get(r, 'children', db)).json as ChildrenResponse).total!);
    const unknown = await get(r, 'meta', { ...db, step: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toBe('db/multi.vis.db holds no graph for step 1, rank 0');
    const search = (await get(r, 'search', { ...db, q: 'no-such-node', step: 2 })).json as FindResponse;
    expect(search).toEqual({ total: 0, results: [] });
    const thousand = (await get(r, 'search', { ...db, q: 'THOUSAND', step: 2, side: 'bench' })).json as FindResponse;
    expect(thousand.results.map((n) => n.childCount)).toEqual([1000]);
    const found = (await get(r, 'search', { ...db, q: 'wideblock', rank: 1 })).json as FindResponse;
    expect(found.results.map((n) => [n.id, n.path])).toEqual([[wide, ['DefaultModel']]]);
  });

  it('v1 schema reads its inline stacks; damaged, unknown and locked files fail alone with clear errors', async () => {
    const r = await serve();
    const v1 = (await get(r, 'node', { run: 'baddb', tag: 'v1', node: 'A' })).json as NodeDetail;
    expect(v1).toMatchObject({ stackInfo: ['File a.py, line 1'], path: ['R'], nodeType: 1 });
    const damaged = await get(r, 'meta', { run: 'baddb', tag: 'damaged' });
    expect(damaged.status).toBe(422);
    expect(damaged.json.error).toMatch(/^baddb\/damaged\.vis\.db: the database is damaged/);
    const unknown = await get(r, 'children', { run: 'baddb', tag: 'unknown' });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatch(/unknown \.vis\.db schema: table tb_nodes has no column "node_order"/);

    const lockedPath = path.join(logdir, 'baddb/locked.vis.db');
    const writer = new Database(lockedPath);
    writer.exec('BEGIN EXCLUSIVE');
    try {
      const locked = await get(r, 'meta', { run: 'baddb', tag: 'locked' });
      expect(locked.status).toBe(422);
      expect(locked.json.error).toMatch(/^baddb\/locked\.vis\.db: the database is locked by another process \(SQLITE_BUSY\w*\)/);
      expect((await get(r, 'meta', db)).status).toBe(200);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    // Once the writer is gone the same file opens.
    expect((await get(r, 'meta', { run: 'baddb', tag: 'locked' })).status).toBe(200);
  });

  it('reading leaves the database folder exactly as it was (no -wal / -shm, same bytes and mtime)', async () => {
    const dir = path.join(logdir, 'db');
    const snap = () => readdirSync(dir).map((f) => [f, statSync(path.join(dir, f)).mtimeMs, readFileSync(path.join(dir, f)).toString('base64').length]);
    const before = snap();
    const r = await serve();
    await get(r, 'meta', db);
    await get(r, 'children', { ...db, step: 2 });
    await get(r, 'search', { ...db, q: 'layer' });
    await get(r, 'filter', { ...db, unmatched: 1 });
    r.stores.closeAll();
    expect(snap()).toEqual(before);
    expect(readdirSync(dir)).toEqual(['multi.vis.db']);
  });
});

describe('a node read from a file that changed under the server', () => {
  it('the store notices and the route answers 409 naming the file', async () => {
    const r = await serve();
    await untilIndexed(r, { run: 'big', tag: 'replacement' });
    const opened = r.stores.open({
      absPath: path.join(logdir, 'big/replacement.vis'),
      relPath: 'big/replacement.vis',
      format: 'vis',
      run: 'big',
      tag: 'replacement',
    });
    if (!('store' in opened)) throw new Error('not indexed');
    // Rewritten in place: same inode, new bytes. The store's next read checks the file it holds open.
    const file = path.join(logdir, 'big/replacement.vis');
    const bytes = readFileSync(file);
    writeFileSync(file, Buffer.concat([bytes, Buffer.from(' ')]));
    try {
      expect(() => opened.store.node({ side: 'npu', nodeId: 'DefaultModel' })).toThrow(StaleFileError);
    } finally {
      writeFileSync(file, bytes);
    }

    const stale = Object.assign(Object.create(opened.store), {
      node: () => {
        throw new StaleFileError('big/replacement.vis');
      },
    });
    const fake: StoreCache = { ...r.stores, open: () => ({ store: stale, stamp: 'fake' }) };
    const app = createApp({ logdir, appDir: path.join(tmp, 'app'), stores: fake });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    servers.push(server);
    const res = await rawGet((server.address() as AddressInfo).port, `/api/graph/node?${q({ run: 'big', tag: 'replacement', node: 'X' })}`);
    expect(res.status).toBe(409);
    expect(res.json).toEqual({ error: 'big/replacement.vis changed on disk while it was being read; reload to open the new version' });
  });
});
