import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorstResponse } from '../../src/core/api/types.js';
import { generateVis } from '../../bench/visgen/index.mjs';
import { createApp } from '../../server/http/app.js';
import { derivedCachePath, readDerived, writeDerived } from '../../server/store/derivedCache.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { RATED_KIND } from '../../server/store/visDb/ratedScan.js';
import { VisDbStore } from '../../server/store/visDb/visDbStore.js';
import { VisJsonStore } from '../../server/store/visJson/visJsonStore.js';
import { indexCachePath, readIndexCache, writeIndexCache } from '../../server/store/visJsonIndex/indexCache.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { bundleFindWorker } from '../helpers/workerBundles.js';

/**
 * Issue 14's worst table and first divergent node on a reopened file: the rated list a server built is kept in the
 * cache directory (a `.vis.db`'s in derived/, derivedCache.ts; a `.vis`'s in its index), so the next server process
 * answers the first page from it instead of reading every row again. Proved without timing: a `.vis.db` large enough
 * to be read across several 202 answers answers 200 at the first request once cached, and a cached `.vis` list
 * altered on disk is what the reopened server answers. Stale and damaged cache files are read again.
 */

let tmp: string;
let logdir: string;
let dbFile: string;
let workerScript: string;
const servers: ServedApp[] = [];
const caches: StoreCache[] = [];
const WORST = '/api/graph/worst?run=.&tag=big&format=db&limit=50';

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-rated-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  dbFile = path.join(logdir, 'big.vis.db');
  // 12,000 rows a side: three slices of RatedScan, so a tight budget answers 202 at least twice before the list.
  await generateVis({ nodes: 12_000, out: dbFile, seed: 5 });
  await generateVis({ nodes: 2_000, out: path.join(logdir, 'small.vis'), seed: 9 });
  mkdirSync(path.join(tmp, 'bundle'));
  workerScript = await bundleFindWorker(path.join(tmp, 'bundle'));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of caches) c.closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

/**
 * A fresh server process as far as the stores go (its own store cache, nothing in memory), over one cache dir. The
 * 250 ms budget leaves no time after a first slice: an uncached list takes several requests. The find worker gets
 * the default budget (starting it takes a few hundred ms).
 */
async function serve(cacheDir: string | null, findWorkerScript: string | null = null, workBudgetMs = 250): Promise<ServedApp> {
  const stores = createStoreCache({ cacheDir, indexWorkerScript: null, findWorkerScript, inThreadBytes: 0 });
  caches.push(stores);
  const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores, workBudgetMs }));
  servers.push(served);
  return served;
}

/**
 * Asks until 200, as the viewer does: the answer and how many 202s came first. A 503 (a loaded machine spent the
 * 250 ms budget before the first slice was read) is asked again too, without counting.
 */
async function untilReady(served: ServedApp, url: string): Promise<{ json: unknown; waits: number }> {
  let waits = 0;
  for (let asks = 0; asks < 500; asks++) {
    const res = await rawGet(served.port, url);
    if (res.status === 200) return { json: res.json, waits };
    expect([202, 503], res.body).toContain(res.status);
    if (res.status === 202) waits++;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url}: no answer after 500 asks`);
}

const stampOf = (file: string) => {
  const st = statSync(file);
  return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
};

/** Every file under `dir`, relative. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath ?? d.path, d.name)))
    .sort();
}

/** The NPU list of a fresh scan (no cache): node names and values in execution order. */
function freshScan(): { ids: string[]; values: number[] } {
  const store = new VisDbStore(dbFile, { file: 'big.vis.db', run: '.', tag: 'big' });
  try {
    const rated = store.rated({ side: 'npu' });
    return { ids: Array.from(rated.values, (_, k) => rated.idAt(k)), values: Array.from(rated.values) };
  } finally {
    store.close();
  }
}

/** The list a cache file holds, its rowids turned into node names. */
function cachedList(cacheDir: string): { ids: string[]; values: number[] } | null {
  const hit = readDerived(cacheDir, RATED_KIND, dbFile, '0/0/NPU', stampOf(dbFile));
  if (!hit) return null;
  const db = new Database(dbFile, { readonly: true });
  try {
    const name = db.prepare('SELECT node_name FROM tb_nodes WHERE rowid = ?').pluck();
    return { ids: Array.from(hit.arrays[0], (r) => name.get(r) as string), values: Array.from(hit.arrays[1]) };
  } finally {
    db.close();
  }
}

describe('.vis.db: the rated list is kept in the cache directory', () => {
  let expected: WorstResponse;
  beforeAll(() => {
    const store = new VisDbStore(dbFile, { file: 'big.vis.db', run: '.', tag: 'big' });
    expected = store.worst({ side: 'npu', order: 'precision', offset: 0, limit: 50 });
    store.close();
  });

  it('read once in slices and written; a second server over the same cache answers 200 at the first request', async () => {
    const cacheDir = path.join(tmp, 'cache-db');
    const first = await untilReady(await serve(cacheDir), WORST);
    expect(first.json).toEqual(expected);
    expect(first.waits).toBeGreaterThanOrEqual(2);
    // The list on disk is the one a fresh scan reads, in the same order.
    expect(cachedList(cacheDir)).toEqual(freshScan());
    // With it, the graph's roots and node counts (meta), as the store counts them.
    const graphFacts = derivedCachePath(cacheDir, 'db-graph-v1', dbFile, '0/0');
    expect(tree(cacheDir)).toEqual([graphFacts, derivedCachePath(cacheDir, RATED_KIND, dbFile, '0/0/NPU')].map((f) => path.relative(cacheDir, f)));
    const { roots, nodeCounts } = (await rawGet((await serve(null)).port, '/api/graph/meta?run=.&tag=big&format=db')).json;
    expect(readDerived(cacheDir, 'db-graph-v1', dbFile, '0/0', stampOf(dbFile))?.header).toEqual({ roots, nodeCounts });

    // A restarted server (its default budget) answers from it, whatever the budget.
    const again = await serve(cacheDir, null, 2000);
    const res = await rawGet(again.port, WORST);
    expect(res.status, res.body).toBe(200);
    expect(res.json).toEqual(expected);
    const divergent = await rawGet(again.port, '/api/graph/divergent?run=.&tag=big&format=db');
    expect(divergent.status, divergent.body).toBe(200);

    // Proof that the answer comes from the file and not from a scan: a list written there (ten rows, reversed) is
    // what the next server answers.
    const db = new Database(dbFile, { readonly: true });
    const firstTen = db.prepare("SELECT rowid, node_name FROM tb_nodes WHERE data_source = 'NPU' AND precision_index IS NOT NULL ORDER BY node_order LIMIT 10").raw().all() as Array<[number, string]>;
    db.close();
    const rowids = Float64Array.from(firstTen, ([r]) => r).reverse();
    writeDerived(cacheDir, RATED_KIND, dbFile, '0/0/NPU', stampOf(dbFile), {}, [rowids, rowids.map((_, k) => k / 10)]);
    const planted = (await rawGet((await serve(cacheDir, null, 2000)).port, `${WORST}&order=execution`)).json as WorstResponse;
    expect(planted.total).toBe(10);
    expect(planted.results.map((r) => r.id)).toEqual(firstTen.map(([, name]) => name).reverse());
    writeDerived(cacheDir, 'db-graph-v1', dbFile, '0/0', stampOf(dbFile), { roots, nodeCounts: { npu: 7, bench: 9 } }, []);
    const meta = (await rawGet((await serve(cacheDir, null, 2000)).port, '/api/graph/meta?run=.&tag=big&format=db')).json;
    expect(meta.nodeCounts).toEqual({ npu: 7, bench: 9 });
    // Facts that do not fit the file (a side it does not have) are counted again.
    writeDerived(cacheDir, 'db-graph-v1', dbFile, '0/0', stampOf(dbFile), { roots, nodeCounts: { npu: 7, other: 9 } }, []);
    expect((await rawGet((await serve(cacheDir, null, 2000)).port, '/api/graph/meta?run=.&tag=big&format=db')).json.nodeCounts).toEqual(nodeCounts);
  });

  it('the find worker writes and reads it too (the cache directory reaches the worker)', async () => {
    const cacheDir = path.join(tmp, 'cache-worker');
    expect((await untilReady(await serve(cacheDir, workerScript, 2000), WORST)).json).toEqual(expected);
    expect(cachedList(cacheDir)).toEqual(freshScan());
    const res = await rawGet((await serve(cacheDir, workerScript, 2000)).port, WORST);
    expect(res.status, res.body).toBe(200);
    expect(res.json).toEqual(expected);
  });

  it('a stale list (the database changed: mtime, size) is not used, and is replaced', async () => {
    const cacheDir = path.join(tmp, 'cache-stale');
    const copy = path.join(tmp, 'stale-src.vis.db');
    copyFileSync(dbFile, copy);
    await untilReady(await serve(cacheDir), WORST);
    const cacheFile = derivedCachePath(cacheDir, RATED_KIND, dbFile, '0/0/NPU');
    const before = readFileSync(cacheFile);
    try {
      // Same bytes, another mtime.
      const t = new Date(Date.now() - 3600_000);
      utimesSync(dbFile, t, t);
      const touched = await untilReady(await serve(cacheDir), WORST);
      expect(touched.waits).toBeGreaterThanOrEqual(2);
      expect(touched.json).toEqual(expected);
      expect(readDerived(cacheDir, RATED_KIND, dbFile, '0/0/NPU', stampOf(dbFile))).not.toBeNull();
      expect(readFileSync(cacheFile).equals(before)).toBe(false);
      // Another size (a page appended; SQLite ignores bytes past its page count).
      writeFileSync(dbFile, Buffer.concat([readFileSync(dbFile), Buffer.alloc(4096)]));
      const grown = await untilReady(await serve(cacheDir), WORST);
      expect(grown.waits).toBeGreaterThanOrEqual(2);
      expect(grown.json).toEqual(expected);
      expect(cachedList(cacheDir)).toEqual(freshScan());
    } finally {
      copyFileSync(copy, dbFile);
    }
  });

  it('a damaged list is not used, and is replaced', async () => {
    const cacheDir = path.join(tmp, 'cache-damaged');
    await untilReady(await serve(cacheDir), WORST);
    const cacheFile = derivedCachePath(cacheDir, RATED_KIND, dbFile, '0/0/NPU');
    const bytes = readFileSync(cacheFile);
    // A value changed in place (still finite): the sizes and header still fit, the digest does not.
    bytes[bytes.length - 8 * 1000] ^= 0x01;
    writeFileSync(cacheFile, bytes);
    expect(cachedList(cacheDir)).toBeNull();
    const reread = await untilReady(await serve(cacheDir), WORST);
    expect(reread.waits).toBeGreaterThanOrEqual(2);
    expect(reread.json).toEqual(expected);
    expect(cachedList(cacheDir)).toEqual(freshScan());
    // Cut short: the same.
    writeFileSync(cacheFile, readFileSync(cacheFile).subarray(0, 100));
    expect((await untilReady(await serve(cacheDir), WORST)).waits).toBeGreaterThanOrEqual(2);
    expect(cachedList(cacheDir)).toEqual(freshScan());
  });

  it('without a cache directory, or with one that cannot be written, every server reads the rows again', async () => {
    expect((await untilReady(await serve(null), WORST)).waits).toBeGreaterThanOrEqual(2);
    expect((await untilReady(await serve(null), WORST)).waits).toBeGreaterThanOrEqual(2);
    const blocked = path.join(tmp, 'not-a-dir');
    writeFileSync(blocked, '');
    const lines: string[] = [];
    const stores = createStoreCache({ cacheDir: blocked, indexWorkerScript: null, findWorkerScript: null, log: (l) => lines.push(l) });
    caches.push(stores);
    const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores, workBudgetMs: 250 }));
    servers.push(served);
    expect((await untilReady(served, WORST)).json).toEqual(expected);
    expect(lines).toEqual([`cannot write to the cache in ${blocked} (ENOTDIR); what it would keep is derived again next time`]);
  });

  it('no temporary file is left in any cache directory', () => {
    for (const name of readdirSync(tmp).filter((n) => n.startsWith('cache-'))) {
      expect(tree(path.join(tmp, name)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    }
  });
});

describe('.vis: the rated list travels with the index', () => {
  const url = (order: string) => `/api/graph/worst?run=.&tag=small&format=vis&order=${order}&limit=1000`;
  const file = () => path.join(logdir, 'small.vis');

  it('the list in the cached index is the one a reopened server answers from', async () => {
    const cacheDir = path.join(tmp, 'cache-vis');
    const whole = new VisJsonStore(readFileSync(file(), 'utf8'), { file: 'small.vis', run: '.', tag: 'small' });
    const first = await serve(cacheDir, null, 2000);
    const res = await rawGet(first.port, url('execution'));
    expect(res.status, res.body).toBe(200);
    expect(res.json).toEqual(whole.worst({ side: 'npu', order: 'execution', offset: 0, limit: 1000 }));
    expect(tree(cacheDir)).toEqual([path.relative(cacheDir, indexCachePath(cacheDir, file()))]);

    // Reverse the cached list on disk: a server that reads it answers the reversed order, one that walked the
    // tree again would not.
    const packed = readIndexCache(cacheDir, file(), stampOf(file()))!;
    const specs = [...packed.header.sides.npu!.arrays, ...packed.header.sides.bench!.arrays];
    const at = specs.findIndex((s) => s.field === 'rated');
    expect(at).toBeGreaterThanOrEqual(0);
    packed.arrays[at].reverse();
    writeIndexCache(cacheDir, file(), packed);
    const reopened = (await rawGet((await serve(cacheDir, null, 2000)).port, url('execution'))).json as WorstResponse;
    const rated = whole.rated({ side: 'npu' });
    const ids = Array.from(rated.values, (_, k) => rated.idAt(k));
    expect(reopened.total).toBe(ids.length);
    expect(reopened.results.map((r) => r.id)).toEqual(ids.reverse().slice(0, 1000));
  });

  it('a stale index (the file touched) is indexed again, its list with it', async () => {
    const cacheDir = path.join(tmp, 'cache-vis-stale');
    await rawGet((await serve(cacheDir, null, 2000)).port, url('precision'));
    const t = new Date(Date.now() - 7200_000);
    utimesSync(file(), t, t);
    expect(readIndexCache(cacheDir, file(), stampOf(file()))).toBeNull();
    const whole = new VisJsonStore(readFileSync(file(), 'utf8'), { file: 'small.vis', run: '.', tag: 'small' });
    const res = await rawGet((await serve(cacheDir, null, 2000)).port, url('precision'));
    expect(res.json).toEqual(whole.worst({ side: 'npu', order: 'precision', offset: 0, limit: 1000 }));
    expect(readIndexCache(cacheDir, file(), stampOf(file()))).not.toBeNull();
  });
});
