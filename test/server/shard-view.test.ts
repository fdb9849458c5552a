import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import type { ChildrenResponse, GraphMeta, NodeDetail, RunsResponse, TagEntry } from '../../src/core/api/types.js';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { registerMergeCommand } from '../../server/cli/merge.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { addP2pRing } from '../helpers/shards.js';

/**
 * Issue 19: `serve` shows a directory's shard files of one `graph --shard` build as one graph, without merging:
 * one listing entry with the union of the shards' steps and ranks, and every answer for a (step, rank) equal to the
 * merged file's, served alone — including a communication peer at a rank another shard holds. The log dir is left
 * as it was (no side files, nothing rewritten). Bad input: a missing shard, a truncated one, an unreadable set.
 */

let tmp: string;
let logdir: string;
let setDir: string;
let mergedDir: string;
let key: string;
let shardFiles: string[];
let shardsApp: ServedApp;
let mergedApp: ServedApp;
let cacheDir: string;

async function cli(argv: string[]): Promise<void> {
  let err = '';
  const io: CliIo = { out: () => {}, err: (t) => void (err += t) };
  const registrars = [registerGraphCommand, registerMergeCommand].map((r) => (p: Parameters<typeof r>[0]) => r(p, io));
  const code = await runCli(argv, registrars, io);
  expect(err, err).toBe('');
  expect(code).toBe(0);
}

/** Every file under `dir` with its size and mtime. */
function snapshot(dir: string): Array<[string, number, number]> {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .sort()
    .map((f) => {
      const st = fs.statSync(path.join(dir, f));
      return [f, st.size, st.mtimeMs] as [string, number, number];
    });
}

const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

async function getJson(app: ServedApp, route: string, params: Record<string, string | number>): Promise<{ status: number; json: any }> {
  const res = await rawGet(app.port, `${route}?${q(params)}`);
  return { status: res.status, json: res.json };
}

function post(app: ServedApp, route: string, params: Record<string, string | number>, body: unknown): Promise<{ status: number; json: any }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: app.port, path: `${route}?${q(params)}`, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** The same request of the shard set and of the merged file, both answered 200; their bodies. */
async function both(route: string, params: Record<string, string | number>): Promise<[any, any]> {
  const a = await getJson(shardsApp, route, { run: 'shards', tag: `compare_${key}`, ...params });
  const b = await getJson(mergedApp, route, { run: '.', tag: 'merged', ...params });
  expect(a.status, JSON.stringify(a.json)).toBe(200);
  expect(b.status, JSON.stringify(b.json)).toBe(200);
  return [a.json, b.json];
}

const withoutFile = ({ run: _r, tag: _t, stamp: _s, ...rest }: GraphMeta) => rest;

async function listing(app: ServedApp, lang = 'en'): Promise<RunsResponse> {
  return (await getJson(app, '/api/runs', { lang })).json as RunsResponse;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'probeboard-shard-view-'));
  const dump = generateDumps({ out: path.join(tmp, 'd8'), layers: 1, ranks: 8, steps: 2, bench: true, seed: 7, log: () => {} });
  addP2pRing(dump.npuPath);
  addP2pRing(dump.benchPath!);
  logdir = path.join(tmp, 'logs');
  setDir = path.join(logdir, 'shards');
  for (let k = 0; k < 4; k++) await cli(['graph', '-i', dump.compareJson, '-o', setDir, '--quiet', '--shard', `${k}/4`]);
  shardFiles = fs.readdirSync(setDir).sort();
  key = /^compare_([0-9a-f]{12})_shard0of4\.vis\.db$/.exec(shardFiles[0])![1];
  mergedDir = path.join(tmp, 'merged');
  fs.mkdirSync(mergedDir);
  await cli(['merge', ...shardFiles.map((f) => path.join(setDir, f)), '-o', path.join(mergedDir, 'merged.vis.db')]);
  // Bad sets beside the good one: shard 2 missing; shard 2 cut short by a killed copy; a set with no readable file.
  const copySet = (dir: string, skip: number | null) => {
    fs.mkdirSync(path.join(logdir, dir));
    shardFiles.forEach((f, k) => k !== skip && fs.copyFileSync(path.join(setDir, f), path.join(logdir, dir, f)));
  };
  copySet('missing', 2);
  copySet('truncated', null);
  const cut = path.join(logdir, 'truncated', shardFiles[2]);
  fs.truncateSync(cut, Math.floor(fs.statSync(cut).size / 2));
  // Shard 1 replaced by a shard of another build (2 shards) under its name; shard 1 twice, under two names.
  copySet('foreign', 1);
  const other = path.join(tmp, 'other');
  await cli(['graph', '-i', dump.compareJson, '-o', other, '--quiet', '--shard', '1/2']);
  fs.copyFileSync(path.join(other, fs.readdirSync(other)[0]), path.join(logdir, 'foreign', shardFiles[1]));
  copySet('twice', null);
  fs.copyFileSync(path.join(setDir, shardFiles[1]), path.join(logdir, 'twice', shardFiles[1].replace('_shard1of4', '_shard01of4')));
  fs.mkdirSync(path.join(logdir, 'garbage'));
  fs.writeFileSync(path.join(logdir, 'garbage', 'build_0123456789ab_shard0of2.vis.db'), 'not a database\n');
  const appDir = path.join(tmp, 'app');
  fs.mkdirSync(appDir);
  fs.writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>probeboard test app</title>');
  cacheDir = path.join(tmp, 'cache-shards');
  shardsApp = await serveApp(createApp({ logdir, appDir, lang: 'en', stores: createStoreCache({ cacheDir }) }));
  mergedApp = await serveApp(createApp({ logdir: mergedDir, appDir, lang: 'en', stores: createStoreCache({ cacheDir: path.join(tmp, 'cache-merged') }) }));
}, 180_000);

afterAll(async () => {
  await shardsApp?.close();
  await mergedApp?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a directory of shards served as one graph', () => {
  let before: Array<[string, number, number]>;
  beforeAll(() => {
    before = snapshot(logdir);
  });

  it('is one listing entry: the set’s tag, format db, the union of the shards’ steps and ranks', async () => {
    const body = await listing(shardsApp);
    const tags = body.runs.find((r) => r.run === 'shards')!.tags;
    expect(tags).toEqual([
      {
        tag: `compare_${key}`,
        format: 'db',
        graphType: 'compare',
        sizeBytes: shardFiles.reduce((n, f) => n + fs.statSync(path.join(setDir, f)).size, 0),
        error: null,
        shards: { count: 4, members: 4, steps: [0, 1], ranks: [0, 1, 2, 3, 4, 5, 6, 7] },
      } satisfies TagEntry,
    ]);
  });

  it('meta: the union of steps, ranks and pairs; each graph’s facts as in the merged file', async () => {
    for (const [step, rank] of [[0, 0], [0, 5], [1, 2], [1, 7]]) {
      const [set, merged] = await both('/api/graph/meta', { step, rank });
      expect(set.steps).toEqual([0, 1]);
      expect(set.ranks).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(set.graphs).toHaveLength(16);
      expect(set.tag).toBe(`compare_${key}`);
      expect(withoutFile(set)).toEqual(withoutFile(merged));
    }
    // No step or rank given: the first pair, as the merged file answers it.
    const [set, merged] = await both('/api/graph/meta', {});
    expect(withoutFile(set)).toEqual(withoutFile(merged));
  });

  it('children, nodes, search, filter and worst nodes equal the merged file’s, rank by rank across the shards', async () => {
    let nodes = 0;
    for (const [step, rank] of [[0, 1], [0, 4], [1, 3], [1, 6]]) {
      for (const side of ['npu', 'bench']) {
        const [root, mergedRoot] = await both('/api/graph/children', { step, rank, side });
        expect(root).toEqual(mergedRoot);
        const ids = (root as ChildrenResponse).children.map((c) => c.id);
        expect(ids.length).toBeGreaterThan(1);
        for (const id of ids.slice(0, 4)) {
          const [kids, mergedKids] = await both('/api/graph/children', { step, rank, side, node: id });
          expect(kids).toEqual(mergedKids);
          const [node, mergedNode] = await both('/api/graph/node', { step, rank, side, node: id });
          expect(node).toEqual(mergedNode);
          nodes++;
        }
      }
      const [found, mergedFound] = await both('/api/graph/search', { step, rank, side: 'npu', q: 'Distributed' });
      expect(found.total).toBeGreaterThan(0);
      expect(found).toEqual(mergedFound);
      const [filtered, mergedFiltered] = await both('/api/graph/filter', { step, rank, side: 'npu', precision: '0-1' });
      expect(filtered).toEqual(mergedFiltered);
      const [worst, mergedWorst] = await both('/api/graph/worst', { step, rank, side: 'npu', limit: 20 });
      expect(worst.total).toBeGreaterThan(0);
      expect(worst).toEqual(mergedWorst);
    }
    expect(nodes).toBeGreaterThan(20);
  });

  it('a communication peer at a rank of another shard opens there: rank 3 (shard 0) sends to rank 4 (shard 1)', async () => {
    const [send, mergedSend] = await both('/api/graph/node', { step: 0, rank: 3, side: 'npu', node: 'Distributed.send.0.forward' });
    expect(send).toEqual(mergedSend);
    const info = (send as NodeDetail).matchedDistributed as { nodes_info: Record<string, [string, string]> };
    expect(Object.keys(info.nodes_info)).toEqual(['4']);
    const peer = info.nodes_info['4'][1];
    const [recv, mergedRecv] = await both('/api/graph/node', { step: 0, rank: 4, side: 'npu', node: peer });
    expect(recv.id).toBe(peer);
    expect(recv).toEqual(mergedRecv);
    // And back: rank 4's receive names rank 3.
    expect(Object.keys((recv as NodeDetail & { matchedDistributed: { nodes_info: object } }).matchedDistributed.nodes_info)).toEqual(['3']);
  });

  it('the heatmap reads each rank from the shard holding it, as from the merged file', async () => {
    let set: any;
    let merged: any;
    // Rows still being read answer `pending`: ask until both are whole.
    for (let i = 0; i < 50; i++) {
      [set, merged] = await both('/api/graph/heatmap', { step: 1 });
      if ([set, merged].every((h) => h.rows.every((r: { state: string }) => r.state === 'ok'))) break;
    }
    expect(set.pending).toBe(false);
    expect(set.modules.length).toBeGreaterThan(0);
    expect(set.rows.every((r: { values?: unknown[] }) => r.values?.some((v) => v !== null))).toBe(true);
    expect(set.rows.map((r: { rank: number }) => r.rank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect({ ...set, rows: set.rows.map(({ tag: _t, ...r }: { tag: string }) => r) }).toEqual({ ...merged, rows: merged.rows.map(({ tag: _t, ...r }: { tag: string }) => r) });
  });

  it('a step × rank the set does not hold is 400, naming the set', async () => {
    const bad = await getJson(shardsApp, '/api/graph/meta', { run: 'shards', tag: `compare_${key}`, step: 2, rank: 0 });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe(`shards/compare_${key}_shard*of4.vis.db holds no graph for step 2, rank 0`);
  });

  it('overlays work on a set (counts and lists as the merged file’s); saving a matched copy is refused, one line', async () => {
    const graph = { step: 1, rank: 6 };
    const set = await post(shardsApp, '/api/overlay', { run: 'shards', tag: `compare_${key}`, ...graph }, { ops: [] });
    const merged = await post(mergedApp, '/api/overlay', { run: '.', tag: 'merged', ...graph }, { ops: [] });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    expect(set.json.counts).toEqual(merged.json.counts);
    // Each server names its own overlay.
    const list = { ...graph, side: 'bench', state: 'matched', limit: 5 };
    const listed = (await getJson(shardsApp, '/api/overlay/nodes', { run: 'shards', tag: `compare_${key}`, ...list, overlay: set.json.overlay })).json;
    const mergedListed = (await getJson(mergedApp, '/api/overlay/nodes', { run: '.', tag: 'merged', ...list, overlay: merged.json.overlay })).json;
    expect(listed.total).toBeGreaterThan(0);
    expect(listed).toEqual(mergedListed);
    const meta = await getJson(shardsApp, '/api/graph/meta', { run: 'shards', tag: `compare_${key}`, ...graph });
    const saved = await post(shardsApp, '/api/overlay/save', { run: 'shards', tag: `compare_${key}`, ...graph, overlay: set.json.overlay }, { mode: 'copy', stamp: meta.json.stamp });
    expect(saved.status).toBe(400);
    expect(saved.json.error).toBe(`shards/compare_${key}_shard*of4.vis.db is a set of shards served as one graph: merge them (probeboard merge) to save a matched file`);
  });

  it('writes nothing into the log dir: file list and mtimes unchanged; derived data in the cache dir', async () => {
    expect(snapshot(logdir)).toEqual(before);
    expect(fs.readdirSync(cacheDir).length).toBeGreaterThan(0);
  });
});

describe('bad input: what is there is served, the entry says what is not', () => {
  it('a missing shard: the entry notes it; its pairs are unknown, the others answer', async () => {
    const entry = (await listing(shardsApp)).runs.find((r) => r.run === 'missing')!.tags;
    expect(entry).toHaveLength(1);
    expect(entry[0].error).toBeNull();
    expect(entry[0].note).toBe(`missing/compare_${key}_shard*of4.vis.db: shard 2 of 4 missing; the graph shows the steps and ranks of the other shards`);
    expect(entry[0].shards).toEqual({ count: 4, members: 3, steps: [0, 1], ranks: [0, 1, 2, 3, 4, 5, 6, 7] });
    const zh = (await listing(shardsApp, 'zh-CN')).runs.find((r) => r.run === 'missing')!.tags[0];
    expect(zh.note).toBe(`missing/compare_${key}_shard*of4.vis.db：共 4 个分片，缺少分片 2；图中只显示其余分片的 step 和 rank`);
    const held = await getJson(shardsApp, '/api/graph/children', { run: 'missing', tag: `compare_${key}`, step: 1, rank: 5 });
    const [whole] = await both('/api/graph/children', { step: 1, rank: 5 });
    expect(held.json).toEqual(whole);
    const lost = await getJson(shardsApp, '/api/graph/children', { run: 'missing', tag: `compare_${key}`, step: 1, rank: 2 });
    expect(lost.status).toBe(400);
    expect(lost.json.error).toMatch(/holds no graph for step 1, rank 2$/);
  });

  it('a truncated shard: left out, named with its problem; the other shards answer', async () => {
    const entry = (await listing(shardsApp)).runs.find((r) => r.run === 'truncated')!.tags;
    expect(entry).toHaveLength(1);
    expect(entry[0].error).toBeNull();
    expect(entry[0].note).toMatch(new RegExp(`^truncated/${shardFiles[2].replace(/\./g, '\\.')} is left out of its shard set: truncated: \\d+ bytes of the \\d+ its header records \\(a copy or a build cut short\\); the graph shows the other shards$`));
    expect(entry[0].shards?.members).toBe(3);
    const held = await getJson(shardsApp, '/api/graph/node', { run: 'truncated', tag: `compare_${key}`, step: 0, rank: 3, node: 'Distributed.send.0.forward' });
    expect(held.status).toBe(200);
    const lost = await getJson(shardsApp, '/api/graph/meta', { run: 'truncated', tag: `compare_${key}`, step: 1, rank: 1 });
    expect(lost.status).toBe(400);
  });

  it('a shard of another build under the set’s name, a slice twice: left out, named; the rest answers', async () => {
    const runs = await listing(shardsApp);
    const foreign = runs.runs.find((r) => r.run === 'foreign')!.tags;
    expect(foreign).toHaveLength(1);
    expect(foreign[0].note).toMatch(new RegExp(`^foreign/${shardFiles[1].replace(/\./g, '\\.')} is left out of its shard set: a shard of another build \\(build [0-9a-f]{12}, 2 shards\\); the graph shows the other shards$`));
    expect(foreign[0].shards?.members).toBe(3);
    const lost = await getJson(shardsApp, '/api/graph/meta', { run: 'foreign', tag: `compare_${key}`, step: 0, rank: 5 });
    expect(lost.status).toBe(400);
    const twice = runs.runs.find((r) => r.run === 'twice')!.tags;
    expect(twice).toHaveLength(1);
    expect(twice[0].note).toBe(`twice/${shardFiles[1].replace('_shard1of4', '_shard01of4')} is left out of its shard set: shard 1 of 4 a second time; the graph shows the other shards`);
    expect(twice[0].shards).toEqual({ count: 4, members: 4, steps: [0, 1], ranks: [0, 1, 2, 3, 4, 5, 6, 7] });
    const [whole] = await both('/api/graph/children', { step: 0, rank: 5 });
    expect((await getJson(shardsApp, '/api/graph/children', { run: 'twice', tag: `compare_${key}`, step: 0, rank: 5 })).json).toEqual(whole);
  });

  it('a set with no readable shard: listed with the file’s error; opening it is 422 naming the file', async () => {
    const entry = (await listing(shardsApp)).runs.find((r) => r.run === 'garbage')!.tags;
    expect(entry.map((t) => [t.tag, t.format, t.error])).toEqual([
      ['build_0123456789ab', 'db', 'garbage/build_0123456789ab_shard0of2.vis.db: not a SQLite database (a .vis.db starts with "SQLite format 3")'],
    ]);
    const res = await getJson(shardsApp, '/api/graph/meta', { run: 'garbage', tag: 'build_0123456789ab' });
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('garbage/build_0123456789ab_shard0of2.vis.db: not a SQLite database (a .vis.db starts with "SQLite format 3")');
  });
});
