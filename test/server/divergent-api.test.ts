import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DivergentResponse, IndexingResponse } from '../../src/core/api/types.js';
import { generateVis } from '../../bench/visgen/index.mjs';
import { VisDbStore } from '../../server/store/visDb/visDbStore.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { bundleFindWorker } from '../helpers/workerBundles.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { divergentOracle } from '../helpers/divergentOracle.js';

/**
 * Issue 14's first divergent node (`/api/graph/divergent`) on a compare the graph command made from a tiny attention
 * block (test/fixtures/e2e/divergent/make-fixture.mjs): the answer is the node this test finds in the file itself,
 * by a plain reading of the rule, for the `.vis` and the `.vis.db`, in the find worker and inline.
 */

const fixtureDir = path.join(repoRoot, 'test/fixtures/e2e/divergent');
const oracle = () => divergentOracle(path.join(fixtureDir, 'divergent.vis'));
let tmp: string;
let logdir: string;
let workerScript: string;
const servers: ServedApp[] = [];
const caches: StoreCache[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-divergent-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  for (const f of ['divergent.vis', 'divergent.vis.db']) copyFileSync(path.join(fixtureDir, f), path.join(logdir, f));
  copyFileSync(path.join(repoRoot, 'test/fixtures/e2e/build/mock_single_statis_graph.vis'), path.join(logdir, 'build.vis'));
  mkdirSync(path.join(tmp, 'bundle'));
  workerScript = await bundleFindWorker(path.join(tmp, 'bundle'));
});
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of caches) c.closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

const serve = (inline: boolean) => serveWith(inline ? null : workerScript);

/** A server over the log dir, searching in the find worker or inline (null); a small work budget when given. */
async function serveWith(findWorkerScript: string | null, workBudgetMs?: number, cacheDir: string | null = path.join(tmp, 'cache')): Promise<ServedApp> {
  const stores = createStoreCache({ cacheDir, indexWorkerScript: null, findWorkerScript });
  caches.push(stores);
  const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores, workBudgetMs }));
  servers.push(served);
  return served;
}

describe('/api/graph/divergent', () => {
  it('the fixture holds what the walk must pass over: a NaN-rule mask, inheriting nodes, enclosing modules', () => {
    const { verdicts, expected } = oracle();
    const at = (id: string) => verdicts.findIndex((v) => v.id === id);
    // Identical −inf statistics scored 1 come first in output order; a later node inherits; a module encloses it.
    expect(verdicts.filter((v) => v.identical).length).toBeGreaterThanOrEqual(2);
    expect(at(verdicts.find((v) => v.identical)!.id)).toBeLessThan(at(expected.id));
    expect(verdicts.some((v) => v.inherited && at(v.id) > at(expected.id))).toBe(true);
    expect(verdicts.some((v) => v.module && !v.inherited && at(v.id) > at(expected.id))).toBe(true);
    expect(expected.module).toBe(false);
  });

  for (const inline of [false, true]) {
    for (const format of ['vis', 'db'] as const) {
      it(`answers the source node (.${format === 'db' ? 'vis.db' : 'vis'}, ${inline ? 'inline' : 'find worker'})`, async () => {
        const served = await serve(inline);
        const { verdicts, expected, paths } = oracle();
        const res = await rawGet(served.port, `/api/graph/divergent?run=.&tag=divergent&format=${format}`);
        expect(res.status, res.body).toBe(200);
        const answer = res.json as DivergentResponse;
        expect(answer.node?.id).toBe(expected.id);
        expect(answer.node?.inputsDiffer).toBe(false);
        expect(answer.node?.rule).toBe('summaryMax');
        expect(answer.node?.path).toEqual(paths.get(expected.id));
        expect(answer.bucket?.value).toEqual([0.8, 1]);
        // Passed over, with their rule: the mask nodes before the source.
        const before = verdicts.slice(0, verdicts.findIndex((v) => v.id === expected.id));
        expect(answer.skipped.map((s) => s.id)).toEqual(before.filter((v) => v.identical).map((v) => v.id));
        expect(answer.skipped.every((s) => s.rule === 'summaryNonFinite')).toBe(true);
        expect(answer.skippedTotal).toBe(answer.skipped.length);
        expect(answer.examined).toBe(before.length + 1);
      });
    }
  }

  it('a large .vis.db list is read across requests: 202 with progress, then the same answer', async () => {
    const file = path.join(logdir, 'big.vis.db');
    await generateVis({ nodes: 12_000, out: file, seed: 5 });
    const reference = new VisDbStore(file, { file: 'big.vis.db', run: '.', tag: 'big' });
    const expected = reference.worst({ side: 'npu', order: 'precision', offset: 0, limit: 50 });
    reference.close();
    const url = '/api/graph/worst?run=.&tag=big&limit=50';
    // A budget that leaves no time after the first slice: every request reads one slice and says how far it got.
    const inline = await serveWith(null, 250);
    const progress: number[] = [];
    for (let res = await rawGet(inline.port, url); res.status !== 200; res = await rawGet(inline.port, url)) {
      expect(res.status, res.body).toBe(202);
      const { indexing } = res.json as IndexingResponse;
      expect(indexing.bytesTotal).toBe(12_000);
      progress.push(indexing.bytesRead);
    }
    expect((await rawGet(inline.port, url)).json).toEqual(expected);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(new Set(progress).size).toBe(progress.length);
    // In the find worker the list is also read between requests; the answer is the same. (No cache directory: the
    // list the first server kept there would answer at once, rated-cache.test.ts.)
    const inWorker = await serveWith(workerScript, 1000, null);
    for (let res = await rawGet(inWorker.port, url); res.status !== 200; res = await rawGet(inWorker.port, url)) {
      expect(res.status, res.body).toBe(202);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await rawGet(inWorker.port, url)).json).toEqual(expected);
  });

  it('refuses a build file in both languages', async () => {
    const served = await serve(true);
    const en = await rawGet(served.port, '/api/graph/divergent?run=.&tag=build');
    expect(en.status).toBe(400);
    expect((en.json as { error: string }).error).toMatch(/build/);
    const zh = await rawGet(served.port, '/api/graph/divergent?run=.&tag=build', { 'Accept-Language': 'zh-CN' });
    expect(zh.status).toBe(400);
    expect((zh.json as { error: string }).error).toMatch(/单图/);
  });
});
