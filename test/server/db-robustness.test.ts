import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsResponse } from '../../src/core/api/types.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { VisDbStore } from '../../server/store/visDb/visDbStore.js';
import { rawGet, type RawResponse } from '../helpers/httpGet.js';
import { seededRandom } from '../helpers/seededRandom.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';

/**
 * Issue 12 over real HTTP, `.vis.db` side: a damaged database fails alone (the run listing still answers, #1), every
 * graph route answers 4xx JSON naming a page-corrupted or ill-typed file (#7), up_node cycles and deep chains answer
 * quickly and small (#3), and a database with a live write-ahead log is read without touching anything beside it (#8).
 */

const GOOD = '/work/shared/data/golden/synth_2layer_compare/db/compare_20261125220635.vis.db';
const PAGE = 4096;

let tmp: string;
let logdir: string;
const served: ServedApp[] = [];

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-dbrobust-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(path.join(tmp, 'app'), { recursive: true });
  mkdirSync(path.join(logdir, 'good'), { recursive: true });
  copyFileSync(GOOD, path.join(logdir, 'good/g.vis.db'));
});

afterAll(async () => {
  for (const s of served) await s.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function serve(): Promise<ServedApp & { stores: StoreCache }> {
  const stores = createStoreCache({ cacheDir: null, indexWorkerScript: null });
  const s = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), stores }));
  served.push(s);
  return { ...s, stores };
}

const get = (s: ServedApp, route: string, params: Record<string, string | number>) =>
  rawGet(s.port, `/api/${route}?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`);

/** A copy of the good file at `logdir/<rel>`. */
function copyGood(rel: string): string {
  const file = path.join(logdir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(GOOD, file);
  return file;
}

/** Root pages of a table and its indexes. */
function rootPages(file: string, table: string): number[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT rootpage FROM sqlite_master WHERE tbl_name = ?').pluck().all(table) as number[];
  } finally {
    db.close();
  }
}

/** Overwrites whole pages (1-based) with seeded bytes. */
function overwritePages(file: string, pages: number[], seed: number): void {
  const random = seededRandom(seed);
  const fd = openSync(file, 'r+');
  try {
    for (const p of pages) {
      const bytes = Buffer.alloc(PAGE);
      for (let i = 0; i < PAGE; i++) bytes[i] = Math.floor(random() * 256);
      writeSync(fd, bytes, 0, PAGE, (p - 1) * PAGE);
    }
  } finally {
    closeSync(fd);
  }
}

function expectFileError(res: RawResponse, file: string): void {
  expect(res.status, res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(res.status, res.body.slice(0, 300)).toBeLessThan(500);
  expect(res.json?.error, res.body.slice(0, 300)).toContain(file);
}

async function expectListing(s: ServedApp, run: string, tag: string, error: RegExp): Promise<void> {
  const res = await get(s, 'runs', {});
  expect(res.status, res.body.slice(0, 300)).toBe(200);
  const runs = (res.json as RunsResponse).runs;
  expect(runs.find((r) => r.run === 'good')?.tags[0]).toMatchObject({ tag: 'g', graphType: 'compare', error: null });
  expect(runs.find((r) => r.run === run)?.tags.find((t) => t.tag === tag)?.error).toMatch(error);
}

describe('#1: one damaged .vis.db never fails the run listing', () => {
  it('tb_nodes pages overwritten after the store opened: /api/runs lists the file with its error', async () => {
    const file = copyGood('one/nodes.vis.db');
    overwritePages(file, rootPages(file, 'tb_nodes'), 1);
    const s = await serve();
    // The store opens (tb_config is intact) and is cached; its meta() then fails on tb_nodes.
    expectFileError(await get(s, 'graph/meta', { run: 'one', tag: 'nodes' }), 'one/nodes.vis.db');
    await expectListing(s, 'one', 'nodes', /^one\/nodes\.vis\.db: the database is damaged/);
    // A second listing answers from what is remembered.
    await expectListing(s, 'one', 'nodes', /^one\/nodes\.vis\.db: the database is damaged/);
  });

  it('tb_config overwritten or dropped: listed with its error, before and after a graph request', async () => {
    const broken = copyGood('one/config.vis.db');
    overwritePages(broken, rootPages(broken, 'tb_config'), 2);
    const dropped = copyGood('one/dropped.vis.db');
    const w = new Database(dropped);
    w.exec('DROP TABLE tb_config');
    w.close();
    const s = await serve();
    await expectListing(s, 'one', 'config', /^one\/config\.vis\.db: the database is damaged/);
    expectFileError(await get(s, 'graph/meta', { run: 'one', tag: 'config' }), 'one/config.vis.db');
    expectFileError(await get(s, 'graph/meta', { run: 'one', tag: 'dropped' }), 'one/dropped.vis.db');
    await expectListing(s, 'one', 'config', /^one\/config\.vis\.db: the database is damaged/);
    await expectListing(s, 'one', 'dropped', /^one\/dropped\.vis\.db: unknown \.vis\.db schema: no table tb_config/);
  });
});

/** A database made from the good one without its NOT NULL constraints (after `first`), then changed by `mutate`. */
function handMade(rel: string, mutate: string, first = ''): string {
  const source = path.join(tmp, 'source.vis.db');
  copyFileSync(GOOD, source);
  const file = path.join(logdir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.exec(`ATTACH '${source}' AS g`);
    db.exec(first);
    for (const t of ['tb_nodes', 'tb_stack', 'tb_config']) db.exec(`CREATE TABLE ${t} AS SELECT * FROM g.${t}`);
    db.exec('CREATE INDEX index1 ON tb_nodes (step, rank, data_source, up_node, node_order)');
    db.exec('CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name)');
    db.exec(mutate);
    db.exec('DETACH g');
  } finally {
    db.close();
  }
  return file;
}

/** Every graph route, with the parameters that reach each store path. */
function everyRoute(run: string, tag: string, node: string): Array<[string, Record<string, string | number>]> {
  const f = { run, tag };
  return [
    ['graph/meta', f],
    ['graph/children', f],
    ['graph/children', { ...f, node }],
    ['graph/children', { ...f, side: 'bench' }],
    ['graph/node', { ...f, node }],
    ['graph/node', { ...f, node: 'DefaultModel' }],
    ['graph/search', { ...f, q: 'layer' }],
    ['graph/search', { ...f, q: '\0' }],
    ['graph/search', { ...f, q: '.', limit: 10_000 }],
    ['graph/filter', f],
    ['graph/filter', { ...f, unmatched: 1 }],
    ['graph/filter', { ...f, leaves: 1 }],
    ['graph/filter', { ...f, precision: '0-0.5,0.5-1', overflow: 'medium,high' }],
  ];
}

describe('#7: a damaged .vis.db answers every route with 4xx JSON naming the file', () => {
  let node: string;
  beforeAll(() => {
    const db = new Database(copyGood('probe/p.vis.db'), { readonly: true });
    node = db.prepare("SELECT node_name FROM tb_nodes WHERE up_node != '' AND data_source = 'NPU' ORDER BY node_order LIMIT 1").pluck().get() as string;
    db.close();
  });

  const cases: Array<[string, () => void]> = [];
  // Random pages of the file overwritten with seeded bytes (page 1, the header, stays: that is "not a database").
  for (const seed of [11, 12, 13, 14, 15, 16, 17, 18]) {
    cases.push([
      `pages${seed}`,
      () => {
        const file = copyGood(`damaged/pages${seed}.vis.db`);
        const random = seededRandom(seed);
        const pages = Array.from({ length: 1 + (seed % 4) }, () => 2 + Math.floor(random() * 857));
        overwritePages(file, pages, seed);
      },
    ]);
  }
  // Rows gone from tb_nodes that index2 still lists (the "reading 'node_name'" TypeError of the attack pass): the
  // index is handed to another table while the rows are deleted, then given back.
  cases.push([
    'ghostRows',
    () => {
      const file = handMade('damaged/ghostRows.vis.db', '', 'CREATE TABLE other (step, rank, data_source, node_name)');
      const retarget = (from: string, to: string) => {
        const db = new Database(file);
        db.unsafeMode(true);
        db.pragma('writable_schema = ON');
        db.prepare("UPDATE sqlite_master SET tbl_name = ?, sql = replace(sql, 'ON ' || ?, 'ON ' || ?) WHERE name = 'index2'").run(to, from, to);
        db.close();
      };
      retarget('tb_nodes', 'other');
      const db = new Database(file);
      db.exec('DELETE FROM tb_nodes WHERE rowid % 3 = 0');
      db.close();
      retarget('other', 'tb_nodes');
    },
  ]);
  const mutations: Record<string, string> = {
    nullNames: 'UPDATE tb_nodes SET node_name = NULL WHERE rowid % 5 = 0',
    blobNames: "UPDATE tb_nodes SET node_name = x'00ff00' WHERE rowid % 5 = 1",
    wrongTypes:
      "UPDATE tb_nodes SET up_node = x'01', node_order = 'x', precision_index = 'abc', matched_node_link = 12, " +
      "input_data = x'ff', micro_step_id = 'q', node_type = x'00' WHERE rowid % 3 = 0",
    realUpNodes: 'UPDATE tb_nodes SET up_node = 3.5 WHERE rowid % 4 = 0',
    nullEverything: 'UPDATE tb_nodes SET node_name = NULL, up_node = NULL, node_order = NULL, step = NULL WHERE rowid % 2 = 0',
    badConfig: "UPDATE tb_config SET step_list = x'00', rank_list = 5, node_colors = NULL, tool_tip = 7, task = x'01'",
  };
  for (const [name, sql] of Object.entries(mutations)) cases.push([name, () => handMade(`damaged/${name}.vis.db`, sql)]);

  it.each(cases)('%s: every route answers < 500 with JSON naming the file; the listing still answers', async (name, make) => {
    make();
    const s = await serve();
    const file = `damaged/${name}.vis.db`;
    for (const [route, params] of everyRoute('damaged', name, node)) {
      const res = await get(s, route, params);
      const what = `${route} ${JSON.stringify(params)}: ${res.status} ${res.body.slice(0, 300)}`;
      expect(res.status, what).toBeLessThan(500);
      expect(res.json, what).toBeTypeOf('object');
      if (res.status >= 400) expect(res.json.error, what).toContain(file);
      // A 200 keeps to the API types: every listed node has a string id (an `id: null` leaves the viewer blank).
      for (const n of [...(res.json.children ?? []), ...(res.json.results ?? [])]) expect(typeof n.id, what).toBe('string');
    }
    const runs = await get(s, 'runs', {});
    expect(runs.status).toBe(200);
    expect((runs.json as RunsResponse).runs.find((r) => r.run === 'good')?.tags[0].error).toBeNull();
  });
});

/** A minimal v2 database (msprobe-format.md §4.2) of one build graph: [name, up_node, node_order] rows. */
function syntheticDb(rel: string, rows: Array<[string, string, number]>): void {
  const file = path.join(logdir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.exec(`CREATE TABLE tb_nodes (id TEXT PRIMARY KEY, node_order INTEGER, node_name TEXT, node_type TEXT, up_node TEXT,
      sub_nodes TEXT, precision_index REAL, matched_node_link TEXT, stack_id TEXT, input_data TEXT, output_data TEXT,
      data_source TEXT, step INTEGER, rank INTEGER);
      CREATE TABLE tb_stack (id TEXT PRIMARY KEY, stack_info TEXT);
      CREATE TABLE tb_config (id TEXT PRIMARY KEY, graph_type TEXT, task TEXT, node_colors TEXT, rank_list TEXT, step_list TEXT);
      CREATE INDEX index1 ON tb_nodes (step, rank, data_source, up_node, node_order);
      CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name);`);
    db.prepare("INSERT INTO tb_config VALUES ('1', 'build', 'summary', '{}', '[0]', '[0]')").run();
    const insert = db.prepare("INSERT INTO tb_nodes VALUES (?, ?, ?, '0', ?, NULL, 0.5, '[]', NULL, '{}', '{}', 'NPU', 0, 0)");
    db.transaction(() => rows.forEach(([name, up, order], i) => insert.run(String(i), order, name, up)))();
  } finally {
    db.close();
  }
}

describe('#3: up_node cycles and deep chains answer quickly, small and bounded', () => {
  const N = 50_000;
  beforeAll(() => {
    // k0 → k1 → … → k50000 → k0, beside a root that is not on the cycle.
    const cycle: Array<[string, string, number]> = [['DefaultModel', '', N + 1]];
    for (let i = 0; i <= N; i++) cycle.push([`k${i}`, `k${(i + 1) % (N + 1)}`, i]);
    cycle.push(['c0', 'c1', N + 2], ['c1', 'c2', N + 3], ['c2', 'c0', N + 4], ['c3', 'c3', N + 5]);
    syntheticDb('chains/cycle.vis.db', cycle);
    // d0 (root) ← d1 ← … ← d49999, node_order in post-order as msprobe writes it.
    const deep: Array<[string, string, number]> = [];
    for (let i = 0; i < N; i++) deep.push([`d${i}`, i === 0 ? '' : `d${i - 1}`, N - 1 - i]);
    syntheticDb('chains/deep.vis.db', deep);
  });

  const requests: Array<[string, string, Record<string, string | number>]> = [
    ['cycle', 'graph/search', { q: 'k' }],
    ['cycle', 'graph/search', { q: 'k4999' }],
    ['cycle', 'graph/search', { q: 'k', limit: 10_000 }],
    ['cycle', 'graph/filter', { leaves: 1 }],
    ['cycle', 'graph/filter', { precision: '0-1', limit: 10_000 }],
    ['cycle', 'graph/node', { node: 'k17' }],
    ['cycle', 'graph/children', { node: 'k17' }],
    ['deep', 'graph/search', { q: 'd' }],
    ['deep', 'graph/search', { q: 'd', limit: 10_000 }],
    ['deep', 'graph/search', { q: 'd4999' }],
    ['deep', 'graph/search', { q: 'd4' }],
    ['deep', 'graph/filter', { leaves: 1, limit: 10_000 }],
    ['deep', 'graph/filter', { precision: '0.5-0.5' }],
    ['deep', 'graph/node', { node: 'd49999' }],
    ['deep', 'graph/node', { node: 'd5000' }],
  ];

  it('every search, filter and node answer takes < 2 s and < 5 MB, and memory stays flat', async () => {
    const s = await serve();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    for (const [tag, route, params] of requests) {
      const started = performance.now();
      const res = await get(s, route, { run: 'chains', tag, ...params });
      const ms = performance.now() - started;
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      const what = `${tag} ${route} ${JSON.stringify(params)}: ${res.status} in ${ms.toFixed(0)} ms, ${res.body.length} bytes ${res.body.slice(0, 200)}`;
      expect(ms, what).toBeLessThan(2000);
      expect(res.body.length, what).toBeLessThan(5_000_000);
      expect([200, 400, 404, 413, 422, 503], what).toContain(res.status);
      expect(res.json, what).toBeTypeOf('object');
      if (res.status !== 200) expect(res.json.error, what).toContain(`chains/${tag}.vis.db`);
    }
    expect(rssPeak - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('a cycle or a chain deeper than 10,000 levels is reported as damage; shallower nodes still answer with their path', async () => {
    const s = await serve();
    const cycle = await get(s, 'graph/search', { run: 'chains', tag: 'cycle', q: 'k' });
    expect(cycle.status).toBe(422);
    expect(cycle.json.error).toMatch(/^chains\/cycle\.vis\.db: the database is damaged: the up_node chain of "k\d+" (loops back|is deeper than 10000 levels)/);
    const small = await get(s, 'graph/node', { run: 'chains', tag: 'cycle', node: 'c1' });
    expect(small.json.error).toBe('chains/cycle.vis.db: the database is damaged: the up_node chain of "c1" loops back to "c1"');
    const selfLoop = await get(s, 'graph/search', { run: 'chains', tag: 'cycle', q: 'c3' });
    expect(selfLoop.json.error).toBe('chains/cycle.vis.db: the database is damaged: the up_node chain of "c3" loops back to "c3"');
    const deep = await get(s, 'graph/node', { run: 'chains', tag: 'deep', node: 'd20000' });
    expect(deep.json.error).toMatch(/^chains\/deep\.vis\.db: the database is damaged: the up_node chain of "d20000" is deeper than 10000 levels/);
    const shallow = await get(s, 'graph/node', { run: 'chains', tag: 'deep', node: 'd5000' });
    expect(shallow.status).toBe(200);
    expect(shallow.json.path).toHaveLength(5000);
    expect(shallow.json.path.slice(0, 3)).toEqual(['d0', 'd1', 'd2']);
    // The first 500 hits in execution order are the top of the chain: d0, d1, … with paths of their ancestors.
    const top = await get(s, 'graph/search', { run: 'chains', tag: 'deep', q: 'd' });
    expect(top.status).toBe(200);
    expect(top.json.total).toBe(N);
    expect(top.json.results.map((r: { id: string }) => r.id).slice(0, 3)).toEqual(['d0', 'd1', 'd2']);
    expect(top.json.results[499].path).toHaveLength(499);
  });
});

describe('#8: nothing beside a .vis.db is ever written', () => {
  /** Every file of a directory: name, bytes (hashed) and mtime. */
  const snapshot = (dir: string) =>
    readdirSync(dir)
      .sort()
      .map((f) => {
        const file = path.join(dir, f);
        return [f, createHash('sha256').update(readFileSync(file)).digest('hex'), statSync(file).mtimeMs];
      });
  const privateCopies = () => readdirSync(os.tmpdir()).filter((f) => f.startsWith('probeboard-db-'));

  it('a WAL database with a live writer: served from a private copy with the log\'s rows, its folder untouched', async () => {
    const dir = path.join(logdir, 'wal');
    mkdirSync(dir, { recursive: true });
    syntheticDb('wal/live.vis.db', [['DefaultModel', '', 2], ['Module.a', 'DefaultModel', 0], ['Module.b', 'DefaultModel', 1]]);
    const writer = new Database(path.join(dir, 'live.vis.db'));
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      // Rows committed to the log only: the database file does not hold them.
      const insert = writer.prepare("INSERT INTO tb_nodes VALUES (?, ?, ?, '0', 'DefaultModel', NULL, 0.5, '[]', NULL, '{}', '{}', 'NPU', 0, 0)");
      for (let i = 0; i < 50; i++) insert.run(`w${i}`, 10 + i, `Module.walOnly${i}`);
      expect(statSync(path.join(dir, 'live.vis.db-wal')).size).toBeGreaterThan(0);
      expect(readdirSync(dir).sort()).toEqual(['live.vis.db', 'live.vis.db-shm', 'live.vis.db-wal']);
      const before = snapshot(dir);
      const copiesBefore = privateCopies();

      const s = await serve();
      const f = { run: 'wal', tag: 'live' };
      expect((await get(s, 'runs', {})).status).toBe(200);
      for (const [route, params] of everyRoute('wal', 'live', 'Module.walOnly7')) {
        const res = await get(s, route, params);
        expect(res.status, `${route} ${res.body.slice(0, 200)}`).toBeLessThan(500);
      }
      const found = await get(s, 'graph/search', { ...f, q: 'walOnly' });
      expect(found.json.total).toBe(50);
      expect((await get(s, 'graph/node', { ...f, node: 'Module.walOnly7' })).json).toMatchObject({ id: 'Module.walOnly7', path: ['DefaultModel'] });
      expect(snapshot(dir)).toEqual(before);
      expect(privateCopies().length).toBeGreaterThan(copiesBefore.length);

      // A crashed writer's leftovers: the database and its log, no -shm. Read the same, and no -shm appears.
      const crashed = path.join(logdir, 'walcrash');
      mkdirSync(crashed);
      for (const f of ['live.vis.db', 'live.vis.db-wal']) copyFileSync(path.join(dir, f), path.join(crashed, f));
      const crashedBefore = snapshot(crashed);
      expect((await get(s, 'graph/search', { run: 'walcrash', tag: 'live', q: 'walOnly' })).json.total).toBe(50);
      expect(snapshot(crashed)).toEqual(crashedBefore);

      // The writer commits again: the live log changed, so the file is copied and opened anew.
      insert.run('w-late', 99, 'Module.late');
      const late = await get(s, 'graph/search', { ...f, q: 'late' });
      expect(late.json.total).toBe(1);
      s.stores.closeAll();
      // Closing the stores removes their private copies.
      expect(privateCopies()).toEqual(copiesBefore);
    } finally {
      writer.close();
    }
  });

  it('rollback-journal and immutable-opened databases get no -wal or -shm beside them', async () => {
    const dir = path.join(logdir, 'plain');
    mkdirSync(dir, { recursive: true });
    syntheticDb('plain/rollback.vis.db', [['DefaultModel', '', 1], ['Module.a', 'DefaultModel', 0]]);
    copyFileSync(GOOD, path.join(dir, 'walmode.vis.db'));
    const before = snapshot(dir);
    const s = await serve();
    for (const tag of ['rollback', 'walmode']) {
      for (const [route, params] of everyRoute('plain', tag, 'Module.a')) {
        const res = await get(s, route, params);
        expect(res.status, `${tag} ${route} ${res.body.slice(0, 200)}`).toBeLessThan(500);
      }
    }
    expect(snapshot(dir)).toEqual(before);
    s.stores.closeAll();
    expect(readdirSync(dir).sort()).toEqual(['rollback.vis.db', 'walmode.vis.db']);
  });
});

describe('#10: any number of precision buckets', () => {
  it('1,000 buckets tiling [0, 1] find what one bucket 0-1 finds (no "unreadable file" from SQLite limits)', () => {
    // The route caps the count (400); the store itself must not depend on that cap.
    const store = new VisDbStore(path.join(logdir, 'good/g.vis.db'), { file: 'good/g.vis.db', run: 'good', tag: 'g' });
    try {
      const q = { side: 'npu' as const, unmatched: false, overflow: ['medium', 'high'], leaves: false, limit: 10_000 };
      const buckets = Array.from({ length: 1000 }, (_, i): [number, number] => [i / 1000, (i + 1) / 1000]);
      const one = store.filter({ ...q, precision: [[0, 1]] });
      expect(one.total).toBeGreaterThan(0);
      expect(store.filter({ ...q, precision: [...buckets, ...buckets] })).toEqual(one);
      // Exact buckets ([x, x], md5's pass / diff) through the same path.
      const exact = store.filter({ ...q, precision: [[0, 0]] });
      expect(store.filter({ ...q, precision: [[0, 0], ...Array.from({ length: 999 }, (_, i): [number, number] => [7 + i, 7 + i])] })).toEqual(exact);
    } finally {
      store.close();
    }
  });
});
