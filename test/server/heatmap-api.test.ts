import Database from 'better-sqlite3';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEATMAP_MAX_RANK_LIMIT, type HeatmapResponse } from '../../src/core/api/types.js';
import { parseRankTag, rankSiblings } from '../../src/core/ranks/rankTag.js';
import { createApp } from '../../server/http/app.js';
import { readDerived, writeDerived } from '../../server/store/derivedCache.js';
import { heatmap as heatmapQuery, type HeatmapQuery } from '../../server/store/heatmapQuery.js';
import { createStoreCache, type GraphFileRef, type StoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { dbOracle, visOracle, type RankCells } from '../helpers/rankOracle.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { bundleFindWorker } from '../helpers/workerBundles.js';

/**
 * Issue 14's rank × top-level-module heatmap (`/api/graph/heatmap`) on the graph command's own multi-rank output
 * (test/fixtures/e2e/ranks): every cell equals the worst precision_index of the module's subtree that this test
 * computes from the file by walking the tree (up_node / subnodes), for the `.vis.db` and for the run of per-rank
 * `.vis`; columns are matched by name across ranks, a rewritten file is read again, a broken one is a row error.
 * Answers are windows of ranks (rankOffset / rankLimit); cells read once are kept in the cache directory, and a
 * second server on the same cache directory answers from there until the file changes.
 */

const FIXTURE = path.join(repoRoot, 'test/fixtures/e2e/ranks');
let tmp: string;
let logdir: string;
let workerScript: string;
const servers: ServedApp[] = [];
const caches: StoreCache[] = [];

type Oracle = Map<number, RankCells>;

/** The answer's cells as the oracle's shape (absent cells left out). */
function cellsOf(h: HeatmapResponse): Oracle {
  const out: Oracle = new Map();
  for (const row of h.rows) {
    const absent = new Set(row.absent ?? []);
    const cells = new Map<string, number | null>();
    h.modules.forEach((id, c) => {
      if (!absent.has(c)) cells.set(id, row.values![c]);
    });
    out.set(row.rank, cells);
  }
  return out;
}

/**
 * The oracle's ranks are in the answer with its cells. Values are sent with 6 significant digits when that keeps their
 * colour bucket and 4-digit display (heatmapQuery.compactor), else as they are: the oracle's values the same way.
 */
function expectCells(h: HeatmapResponse, oracle: Oracle): void {
  const got = cellsOf(h);
  for (const [rank, cells] of oracle) {
    const mine = got.get(rank)!;
    expect(mine, `rank ${rank}`).toBeDefined();
    expect([...mine.keys()], `rank ${rank}`).toEqual([...cells.keys()]);
    for (const [id, v] of cells) {
      const sent = mine.get(id)!;
      if (v === null || sent === null) expect(sent, `rank ${rank} ${id}`).toBe(v);
      else if (sent !== v) expect(sent, `rank ${rank} ${id} = ${v}`).toBe(Number(v.toPrecision(6)));
    }
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-heatmap-'));
  logdir = path.join(tmp, 'logs');
  cpSync(FIXTURE, path.join(logdir, 'ranks'), { recursive: true });
  const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
  // Rank 2 without its last root child: that column stays (other ranks have it) and its cell is absent.
  const cut = path.join(logdir, 'cut');
  mkdirSync(cut);
  cpSync(path.join(logdir, 'ranks/db', dbFile), path.join(cut, 'cut.vis.db'));
  const db = new Database(path.join(cut, 'cut.vis.db'));
  db.pragma('journal_mode = DELETE');
  const root = db.prepare("SELECT node_name FROM tb_nodes WHERE rank = 2 AND data_source = 'NPU' AND up_node = ''").pluck().get() as string;
  const last = db.prepare("SELECT node_name, node_order FROM tb_nodes WHERE rank = 2 AND data_source = 'NPU' AND up_node = ? ORDER BY node_order DESC LIMIT 1").get(root) as { node_name: string; node_order: number };
  const prev = db.prepare("SELECT max(node_order) FROM tb_nodes WHERE rank = 2 AND data_source = 'NPU' AND up_node = ? AND node_order < ?").pluck().get(root, last.node_order) as number;
  db.prepare("DELETE FROM tb_nodes WHERE rank = 2 AND data_source = 'NPU' AND node_order > ? AND node_order <= ?").run(prev, last.node_order);
  db.close();
  // The same db with task md5: the worst end is the lowest value.
  cpSync(path.join(cut, 'cut.vis.db'), path.join(cut, 'md5.vis.db'));
  const md5 = new Database(path.join(cut, 'md5.vis.db'));
  md5.prepare("UPDATE tb_config SET task = 'md5'").run();
  md5.close();
  mkdirSync(path.join(tmp, 'bundle'));
  workerScript = await bundleFindWorker(path.join(tmp, 'bundle'));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of caches) c.closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

async function serve(inline: boolean): Promise<ServedApp> {
  const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache'), indexWorkerScript: null, findWorkerScript: inline ? null : workerScript });
  caches.push(stores);
  const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores }));
  servers.push(served);
  return served;
}

/** The answer once no row is pending: ranks not read within the server's short read are asked again, as the panel does. */
async function heatmap(served: ServedApp, params: Record<string, string>): Promise<HeatmapResponse> {
  for (let tries = 0; ; tries++) {
    const res = await rawGet(served.port, `/api/graph/heatmap?${new URLSearchParams(params)}`);
    expect(res.status, res.body).toBe(200);
    if (!(res.json as HeatmapResponse).pending || tries >= 200) return res.json as HeatmapResponse;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const visFiles = () => readdirSync(path.join(logdir, 'ranks/vis')).filter((f) => f.endsWith('.vis')).sort();

describe('rank tags (msprobe-format.md §4.4)', () => {
  it('reads step and rank and keeps one graph command and step together', () => {
    expect(parseRankTag('compare_rank3_20250114093000')).toEqual({ kind: 'compare', step: 0, rank: 3, ts: '20250114093000' });
    expect(parseRankTag('build_step2_rank10_20250114093000')).toEqual({ kind: 'build', step: 2, rank: 10, ts: '20250114093000' });
    expect(parseRankTag('compare_merged0_20250114093000')).toBeNull();
    expect(parseRankTag('compare_20250114093000')).toBeNull();
    const files = ['compare_rank1_20250114093000', 'compare_rank0_20250114093000', 'compare_rank2_20250101000000', 'compare_step1_rank0_20250114093000', 'build_rank3_20250114093000']
      .map((tag): { tag: string; format: 'vis' | 'db' } => ({ tag, format: 'vis' }))
      .concat([{ tag: 'compare_rank4_20250114093000', format: 'db' }]);
    expect(rankSiblings(files, 'compare_rank1_20250114093000')).toEqual([
      { rank: 0, tag: 'compare_rank0_20250114093000' },
      { rank: 1, tag: 'compare_rank1_20250114093000' },
    ]);
  });
});

describe.each([
  ['find worker', false],
  ['inline', true],
])('/api/graph/heatmap (%s)', (_name, inline) => {
  let served: ServedApp;
  beforeAll(async () => {
    served = await serve(inline);
  });

  it('gives every rank of a .vis.db its worst value per root child', async () => {
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    const h = await heatmap(served, { run: 'ranks/db', tag: dbFile.replace(/\.vis\.db$/, '') });
    const oracle = dbOracle(path.join(logdir, 'ranks/db', dbFile));
    expect(h.rows.map((r) => r.rank)).toEqual([...oracle.keys()].sort((a, b) => a - b));
    expect(h.rows.every((r) => r.state === 'ok' && r.format === 'db')).toBe(true);
    expect([h.totalRanks, h.rankOffset]).toEqual([oracle.size, 0]);
    expectCells(h, oracle);
    // Not a constant: the ranks differ somewhere, and some cells carry values.
    expect(h.rows.flatMap((r) => r.values!).filter((v) => v !== null).length).toBeGreaterThan(h.rows.length);
    expect(h.worst).toBe('high');
    expect(h.colors.length).toBeGreaterThan(0);
    expect(h.pending).toBe(false);
  });

  it('matches columns by name: a rank without a module has that cell absent', async () => {
    const h = await heatmap(served, { run: 'cut', tag: 'cut' });
    const oracle = dbOracle(path.join(logdir, 'cut/cut.vis.db'));
    expectCells(h, oracle);
    expect(oracle.get(2)!.size).toBe(oracle.get(0)!.size - 1);
    const missing = h.modules.findIndex((m) => !oracle.get(2)!.has(m));
    expect(h.rows.map((r) => r.absent)).toEqual([undefined, undefined, [missing]]);
    expect(h.rows[2].values![missing]).toBeNull();
  });

  it('takes the lowest value for md5', async () => {
    const h = await heatmap(served, { run: 'cut', tag: 'md5' });
    expect(h.worst).toBe('low');
    expectCells(h, dbOracle(path.join(logdir, 'cut/md5.vis.db'), 'low'));
  });

  it('reads the run of per-rank .vis files, whichever rank is open', async () => {
    const files = visFiles();
    const h = await heatmap(served, { run: 'ranks/vis', tag: files[1].replace(/\.vis$/, '') });
    expect(h.rows.map((r) => [r.rank, r.tag, r.state])).toEqual(files.map((f, k) => [k, f.replace(/\.vis$/, ''), 'ok']));
    expectCells(h, new Map(files.map((f, k) => [k, visOracle(path.join(logdir, 'ranks/vis', f))])));
  });

  it('answers windows of ranks: totals, offsets and the same cells as the whole', async () => {
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    const tag = dbFile.replace(/\.vis\.db$/, '');
    const oracle = dbOracle(path.join(logdir, 'ranks/db', dbFile));
    const whole = await heatmap(served, { run: 'ranks/db', tag });
    for (let k = 0; k < oracle.size; k++) {
      const one = await heatmap(served, { run: 'ranks/db', tag, rankOffset: String(k), rankLimit: '1' });
      expect([one.totalRanks, one.rankOffset, one.rows.map((r) => r.rank)]).toEqual([oracle.size, k, [[...oracle.keys()][k]]]);
      // The window's columns are its own rank's, in its order.
      expect(one.modules).toEqual([...oracle.get(one.rows[0].rank)!.keys()]);
      expect(cellsOf(one).get(one.rows[0].rank)).toEqual(cellsOf(whole).get(one.rows[0].rank));
    }
    const tail = await heatmap(served, { run: 'ranks/db', tag, rankOffset: '1', rankLimit: '5' });
    expect(tail.rows.map((r) => r.rank)).toEqual([...oracle.keys()].slice(1));
    // Past the end: no rows, the total still said.
    const past = await heatmap(served, { run: 'ranks/db', tag, rankOffset: '99' });
    expect([past.rows, past.modules, past.totalRanks, past.pending]).toEqual([[], [], oracle.size, false]);

    const files = visFiles();
    const vis = await heatmap(served, { run: 'ranks/vis', tag: files[0].replace(/\.vis$/, ''), rankOffset: '1', rankLimit: '1' });
    expect([vis.totalRanks, vis.rankOffset, vis.rows.map((r) => [r.rank, r.tag])]).toEqual([files.length, 1, [[1, files[1].replace(/\.vis$/, '')]]]);
    expectCells(vis, new Map([[1, visOracle(path.join(logdir, 'ranks/vis', files[1]))]]));
  });

  it('bad input is a 4xx with one line', async () => {
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    const bad = await rawGet(served.port, `/api/graph/heatmap?run=ranks/db&tag=${dbFile.replace(/\.vis\.db$/, '')}&step=7`);
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toMatch(/step 7/);
    expect((await rawGet(served.port, '/api/graph/heatmap?run=ranks/vis&tag=nope')).status).toBe(404);
    const base = `/api/graph/heatmap?run=ranks/db&tag=${dbFile.replace(/\.vis\.db$/, '')}`;
    for (const [query, name] of [
      ['rankOffset=-1', 'rankOffset'],
      ['rankOffset=x', 'rankOffset'],
      ['rankLimit=0', 'rankLimit'],
      [`rankLimit=${HEATMAP_MAX_RANK_LIMIT + 1}`, 'rankLimit'],
      ['rankLimit=1.5', 'rankLimit'],
      ['rankLimit=1&rankLimit=2', 'rankLimit'],
    ]) {
      const en = await rawGet(served.port, `${base}&${query}`);
      expect([en.status, Object.keys(en.json)], query).toEqual([400, ['error']]);
      expect(en.json.error, query).toMatch(new RegExp(`^query parameter "${name}" must be `));
      const zh = await rawGet(served.port, `${base}&${query}`, { 'Accept-Language': 'zh-CN' });
      expect([zh.status, zh.json.error], query).toEqual([400, expect.stringMatching(new RegExp(`^查询参数 "${name}" 必须是`))]);
    }
    expect((await rawGet(served.port, `${base}&rankLimit=${HEATMAP_MAX_RANK_LIMIT}`)).status).toBe(200);
  });
});

describe('per-rank .vis files change on disk', () => {
  it('reads a rewritten file again and lists a broken one as its row error', async () => {
    const served = await serve(false);
    const files = visFiles();
    const own = files[0].replace(/\.vis$/, '');
    const first = await heatmap(served, { run: 'ranks/vis', tag: own });
    // Rank 1: one leaf of its first module gets a value above every other (a new worst there).
    const file1 = path.join(logdir, 'ranks/vis', files[1]);
    const doc = JSON.parse(readFileSync(file1, 'utf8'));
    const top = doc.NPU.node[doc.NPU.root].subnodes[1] as string;
    let leaf = top;
    while ((doc.NPU.node[leaf].subnodes ?? []).length > 0) leaf = doc.NPU.node[leaf].subnodes[0];
    doc.NPU.node[leaf].data = { ...doc.NPU.node[leaf].data, precision_index: 7 };
    writeFileSync(file1, JSON.stringify(doc));
    utimesSync(file1, new Date(), new Date(Date.now() + 5000));
    const ts = parseRankTag(own)!.ts;
    writeFileSync(path.join(logdir, 'ranks/vis', `compare_rank9_${ts}.vis`), '{"NPU": {"root": ');
    const second = await heatmap(served, { run: 'ranks/vis', tag: own });
    expect(first.rows[1].values![first.modules.indexOf(top)]).not.toBe(7);
    expect(second.rows[1].values![second.modules.indexOf(top)]).toBe(7);
    const broken = second.rows.find((r) => r.rank === 9)!;
    expect(broken.state).toBe('error');
    expect(broken.error).toMatch(/compare_rank9_/);
    expect(second.rows.filter((r) => r.state === 'ok').length).toBe(files.length);
    rmSync(path.join(logdir, 'ranks/vis', `compare_rank9_${ts}.vis`));
  });
});

describe('pending ranks', () => {
  it('answers the ranks not read within softMs pending, and reads them when asked again', () => {
    const stores = createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript: null });
    caches.push(stores);
    const open = (ref: GraphFileRef) => stores.open(ref);
    mkdirSync(path.join(logdir, 'pend'));
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    cpSync(path.join(logdir, 'ranks/db', dbFile), path.join(logdir, 'pend/p.vis.db'));
    const db: GraphFileRef = { absPath: path.join(logdir, 'pend/p.vis.db'), relPath: 'pend/p.vis.db', format: 'db', run: 'pend', tag: 'p' };
    const store = (ref: GraphFileRef) => {
      const opened = open(ref);
      if (!('store' in opened)) throw new Error('not open');
      return opened.store;
    };
    const q: HeatmapQuery = { step: 0, rankOffset: 1, rankLimit: 2, softMs: -1 };
    const late = heatmapQuery(store(db), db, q, open);
    expect([late.pending, late.totalRanks, late.rows.map((r) => [r.rank, r.state, r.values])]).toEqual([
      true,
      3,
      [
        [1, 'pending', undefined],
        [2, 'pending', undefined],
      ],
    ]);
    const oracle = dbOracle(db.absPath);
    const read = heatmapQuery(store(db), db, { ...q, softMs: 60_000 }, open);
    expect(read.pending).toBe(false);
    expectCells(read, new Map([1, 2].map((r) => [r, oracle.get(r)!])));

    const files = visFiles().map((f, rank) => {
      const tag = f.replace(/\.vis$/, '');
      return { rank, ref: { absPath: path.join(logdir, 'ranks/vis', f), relPath: `ranks/vis/${f}`, format: 'vis' as const, run: 'ranks/vis', tag } };
    });
    // Files read by earlier tests are known in this process (the inline server's): a run of copies is not.
    mkdirSync(path.join(logdir, 'pendvis'));
    for (const f of files) cpSync(f.ref.absPath, path.join(logdir, 'pendvis', path.basename(f.ref.absPath)));
    const copies = files.map((f) => ({ rank: f.rank, ref: { ...f.ref, absPath: path.join(logdir, 'pendvis', path.basename(f.ref.absPath)), run: 'pendvis' } }));
    const vq: HeatmapQuery = { step: 0, rankOffset: 0, rankLimit: 3, files: copies, totalFiles: copies.length, softMs: -1 };
    const visLate = heatmapQuery(store(copies[0].ref), copies[0].ref, vq, open);
    expect(visLate.rows.map((r) => r.state)).toEqual(copies.map(() => 'pending'));
    const visRead = heatmapQuery(store(copies[0].ref), copies[0].ref, { ...vq, softMs: 60_000 }, open);
    expect(visRead.rows.map((r) => r.state)).toEqual(copies.map(() => 'ok'));
    expectCells(visRead, new Map(copies.map((f) => [f.rank, visOracle(f.ref.absPath)])));
  });
});

describe('cells kept in the cache directory', () => {
  const cacheDir = () => path.join(tmp, 'cache-kept');
  /** A server with its own find worker (its own memory) on the shared cache directory: a restarted server. */
  async function restarted(): Promise<ServedApp> {
    const stores = createStoreCache({ cacheDir: cacheDir(), indexWorkerScript: null, findWorkerScript: workerScript });
    caches.push(stores);
    const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores }));
    servers.push(served);
    return served;
  }
  const stampOf = (file: string) => {
    const st = statSync(file);
    return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
  };
  const touch = (file: string, ahead: number) => utimesSync(file, new Date(), new Date(Date.now() + ahead));
  /** The cells once the find worker has written all `count` ranks (files): it writes when it has no request. */
  async function stored(kind: string, absPath: string, key: string, stamp: { size: number; mtimeMs: number; ino: number }, count: number) {
    const entries = () => {
      const header = readDerived(cacheDir(), kind, absPath, key, stamp)?.header;
      return ((header?.ranks ?? header?.files ?? []) as unknown[]).length;
    };
    await expect.poll(entries).toBe(count);
    return readDerived(cacheDir(), kind, absPath, key, stamp)!;
  }

  it('a .vis.db: a second server answers from the cache until the file changes', async () => {
    mkdirSync(path.join(logdir, 'kept'));
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    const file = path.join(logdir, 'kept/k.vis.db');
    cpSync(path.join(logdir, 'ranks/db', dbFile), file);
    const oracle = dbOracle(file);
    expectCells(await heatmap(await restarted(), { run: 'kept', tag: 'k' }), oracle);

    // The stored cells (heatmapQuery.ts: names, per rank the end of its cells, per cell name number and value) get a
    // value no rank has: a server that answers it read the cache, not the file.
    const cells = await stored('heatmap-db-v1', file, 'step=0', stampOf(file), oracle.size);
    expect(cells.header.ranks).toEqual([...oracle.keys()]);
    const [, columns, values] = cells.arrays as [Int32Array, Int32Array, Float64Array];
    const module0 = (cells.header.names as string[])[columns[0]];
    expect(oracle.get(0)!.get(module0)).not.toBe(0.5);
    values[0] = 0.5;
    writeDerived(cacheDir(), 'heatmap-db-v1', file, 'step=0', stampOf(file), cells.header, cells.arrays);

    const second = await restarted();
    const h = await heatmap(second, { run: 'kept', tag: 'k' });
    expect(h.rows[0].values![h.modules.indexOf(module0)]).toBe(0.5);
    expectCells(h, new Map([1, 2].map((r) => [r, oracle.get(r)!])));

    // Another version of the file (mtime): read again, and stored again for it.
    touch(file, 5000);
    expectCells(await heatmap(second, { run: 'kept', tag: 'k' }), oracle);
    await stored('heatmap-db-v1', file, 'step=0', stampOf(file), oracle.size);
    expectCells(await heatmap(await restarted(), { run: 'kept', tag: 'k' }), oracle);
  });

  it('a .vis.db: the find worker reads the step’s other ranks while idle, into the cache', async () => {
    mkdirSync(path.join(logdir, 'idle'));
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    const file = path.join(logdir, 'idle/i.vis.db');
    cpSync(path.join(logdir, 'ranks/db', dbFile), file);
    const oracle = dbOracle(file);
    const one = await heatmap(await restarted(), { run: 'idle', tag: 'i', rankOffset: '1', rankLimit: '1' });
    expect(one.rows.map((r) => r.rank)).toEqual([1]);
    // Asked for rank 1 only: the others follow, and the cache holds the whole step.
    await expect.poll(() => readDerived(cacheDir(), 'heatmap-db-v1', file, 'step=0', stampOf(file))?.header.ranks).toEqual([1, 0, 2]);
    const cells = readDerived(cacheDir(), 'heatmap-db-v1', file, 'step=0', stampOf(file))!;
    const [ends, columns, values] = cells.arrays as [Int32Array, Int32Array, Float64Array];
    const names = cells.header.names as string[];
    const rank2 = new Map([...columns.subarray(ends[1], ends[2])].map((c, k) => [names[c], Number.isNaN(values[ends[1] + k]) ? null : values[ends[1] + k]]));
    expect([...rank2.keys()]).toEqual([...oracle.get(2)!.keys()]);
    for (const [id, v] of oracle.get(2)!) expect(rank2.get(id), id).toEqual(v === null ? null : expect.closeTo(v, 5));
  });

  it('a run of per-rank .vis files: each file’s cells hold while that file is unchanged', async () => {
    const dir = path.join(logdir, 'keptvis');
    mkdirSync(dir);
    for (const f of visFiles()) cpSync(path.join(logdir, 'ranks/vis', f), path.join(dir, f));
    const files = visFiles();
    const own = files[0].replace(/\.vis$/, '');
    const oracle = new Map(files.map((f, k) => [k, visOracle(path.join(dir, f))]));
    expectCells(await heatmap(await restarted(), { run: 'keptvis', tag: own }), oracle);

    // Rank 1's first stored cell gets a value no file has.
    const key = `compare_step0_${parseRankTag(own)!.ts}`;
    const cells = await stored('heatmap-vis-v1', dir, key, { size: 0, mtimeMs: 0, ino: 0 }, files.length);
    const at = (cells.header.files as string[]).indexOf(files[1]);
    expect(at).toBeGreaterThanOrEqual(0);
    const [ends, columns, values] = cells.arrays as [Int32Array, Int32Array, Float64Array];
    const cell = at === 0 ? 0 : ends[at - 1];
    const module0 = (cells.header.names as string[])[columns[cell]];
    values[cell] = 0.5;
    writeDerived(cacheDir(), 'heatmap-vis-v1', dir, key, { size: 0, mtimeMs: 0, ino: 0 }, cells.header, cells.arrays);

    const second = await restarted();
    const h = await heatmap(second, { run: 'keptvis', tag: own });
    expect(h.rows[1].values![h.modules.indexOf(module0)]).toBe(0.5);
    // Rank 0 rewritten: read again; rank 1's stored cells still hold.
    touch(path.join(dir, files[0]), 5000);
    const after0 = await heatmap(second, { run: 'keptvis', tag: own });
    expect(after0.rows[1].values![after0.modules.indexOf(module0)]).toBe(0.5);
    expectCells(after0, new Map([0, 2].map((r) => [r, oracle.get(r)!])));
    // Rank 1 rewritten: its own cells again, here and in the next server.
    touch(path.join(dir, files[1]), 6000);
    expectCells(await heatmap(second, { run: 'keptvis', tag: own }), oracle);
    expectCells(await heatmap(await restarted(), { run: 'keptvis', tag: own }), oracle);
  });
});
