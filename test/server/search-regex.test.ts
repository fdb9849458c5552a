import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { MAX_SEARCH_LENGTH } from '../../server/store/findQuery.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { bundleFindWorker } from '../helpers/workerBundles.js';

/**
 * Issue 14, search by `/regex/`: the `.vis` and `.vis.db` stores find what JavaScript's RegExp finds in the file's
 * ids (case-sensitive, `/…/i` folds case); an invalid or too long pattern is a one-line 400 in English and Chinese;
 * a pattern that backtracks without end answers 503 at the work budget while the server keeps answering.
 */

const GOLDEN = path.join(repoRoot, 'test/fixtures/graph/golden/lm_ms_vs_pt_compare');
let tmp: string;
let logdir: string;
let served: ServedApp;
let stores: StoreCache;
const BUDGET_MS = 400;

/** Ids of one side of the `.vis`, straight from its JSON (orphans included: JSON eras write them, §2.4). */
function visIds(side: 'NPU' | 'Bench'): string[] {
  const file = path.join(GOLDEN, 'vis-202507/compare_20261125220627.vis');
  return Object.keys(JSON.parse(readFileSync(file, 'utf8'))[side].node);
}

function dbIds(source: 'NPU' | 'Bench'): string[] {
  const db = new Database(path.join(logdir, 'lm.vis.db'), { readonly: true });
  try {
    return db.prepare('SELECT node_name FROM tb_nodes WHERE data_source = ?').pluck().all(source) as string[];
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-search-regex-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  copyFileSync(path.join(GOLDEN, 'vis-202507/compare_20261125220627.vis'), path.join(logdir, 'lm.vis'));
  copyFileSync(path.join(GOLDEN, 'db/compare_20261125220623.vis.db'), path.join(logdir, 'lm.vis.db'));
  // Ids on which /(a+)+$/ backtracks for ever: 2^40 ways to split the a's before the '!' refuses the `$`.
  const nodes: Record<string, unknown> = {};
  const root = 'DefaultModel';
  const slow = Array.from({ length: 5 }, (_, k) => `${'a'.repeat(40)}!${k}`);
  nodes[root] = { id: root, node_type: 0, upnode: 'None', subnodes: slow, data: {} };
  for (const id of slow) nodes[id] = { id, node_type: 1, upnode: root, subnodes: [], data: {} };
  writeFileSync(path.join(logdir, 'slow.vis'), JSON.stringify({ root, node: nodes }));
  mkdirSync(path.join(tmp, 'bundle'));
  const workerScript = await bundleFindWorker(path.join(tmp, 'bundle'));
  stores = createStoreCache({ cacheDir: path.join(tmp, 'cache'), indexWorkerScript: null, findWorkerScript: workerScript });
  served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores, workBudgetMs: BUDGET_MS }));
});
afterAll(async () => {
  await served?.close();
  stores?.closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

const search = (tag: string, q: string, extra = '') =>
  rawGet(served.port, `/api/graph/search?run=.&tag=${tag}&q=${encodeURIComponent(q)}&limit=10000${extra}`);

describe('search by /regex/', () => {
  const patterns = ['/^Tensor\\.__\\w+__\\.\\d\\.forward$/', '/forward\\.0$/', '/^cell\\./i', '/^cell\\./', '/(Mint|Torch)\\.cos/'];

  for (const format of ['vis', 'db'] as const) {
    it(`.${format === 'vis' ? 'vis' : 'vis.db'}: every side finds exactly the ids RegExp matches in the file`, async () => {
      let nonEmpty = 0;
      for (const [side, source] of [['npu', 'NPU'], ['bench', 'Bench']] as const) {
        const ids = format === 'vis' ? visIds(source) : dbIds(source);
        for (const p of patterns) {
          const [, body, flags] = /^\/(.+)\/(i?)$/.exec(p)!;
          const re = new RegExp(body, flags);
          const expected = ids.filter((id) => re.test(id)).sort();
          const r = await search('lm', p, `&side=${side}&format=${format}`);
          expect(r.status, `${p} on ${side}`).toBe(200);
          expect(r.json.total, `${p} on ${side}`).toBe(expected.length);
          expect((r.json.results as Array<{ id: string }>).map((x) => x.id).sort(), `${p} on ${side}`).toEqual(expected);
          if (expected.length > 0) nonEmpty++;
        }
      }
      // The patterns are not vacuous (the db keeps only the 9 reachable nodes of the file's 37, §2.4).
      expect(nonEmpty).toBeGreaterThanOrEqual(format === 'vis' ? 6 : 2);
    });
  }

  it('text without slashes stays a case-insensitive substring (a regex character is literal there)', async () => {
    const ids = visIds('NPU');
    const r = await search('lm', 'tensor.__ADD__', '&format=vis');
    expect(r.json.total).toBe(ids.filter((id) => id.toLowerCase().includes('tensor.__add__')).length);
    expect(r.json.total).toBeGreaterThan(0);
    expect((await search('lm', 'Tensor.__add__.\\d', '&format=vis')).json.total).toBe(0);
  });

  it('an invalid pattern or a too long text is a one-line 400 in English and Chinese', async () => {
    for (const [q, why] of [
      ['/(unclosed/', /Unterminated group/],
      ['/a{2,1}/', /out of order/],
      [`/${'a'.repeat(MAX_SEARCH_LENGTH)}/`, new RegExp(`longer than ${MAX_SEARCH_LENGTH}`)],
    ] as const) {
      const en = await search('lm', q);
      expect(en.status).toBe(400);
      expect(en.json.error).toMatch(/^search text not usable: /);
      expect(en.json.error).toMatch(why);
      expect(en.json.error).not.toContain('\n');
      const zh = await search('lm', q, '&lang=zh-CN');
      expect(zh.status).toBe(400);
      expect(zh.json.error).toMatch(/^搜索内容无法使用：/);
    }
  });

  it('a catastrophic pattern answers 503 at the budget; the server keeps serving and the next search works', async () => {
    const t0 = performance.now();
    const stuck = search('slow', '/(a+)+$/');
    // While the worker is stuck in one match, the event loop still answers other routes quickly.
    const child = await rawGet(served.port, '/api/graph/children?run=.&tag=slow');
    expect(child.status).toBe(200);
    expect(child.json.total).toBe(5);
    const r = await stuck;
    const ms = performance.now() - t0;
    expect(r.status).toBe(503);
    expect(r.json.error).toMatch(/slow\.vis: this request needs more than/);
    expect(ms).toBeLessThan(BUDGET_MS + 1500);
    // The stuck worker is replaced (findPool's grace): a plain search answers again within a few seconds.
    let next = await search('slow', 'aaa!3');
    for (let k = 0; k < 20 && next.status !== 200; k++) {
      await new Promise((res) => setTimeout(res, 250));
      next = await search('slow', 'aaa!3');
    }
    expect(next.status).toBe(200);
    expect(next.json.total).toBe(1);
    expect(performance.now() - t0).toBeLessThan(8000);
  });
});
