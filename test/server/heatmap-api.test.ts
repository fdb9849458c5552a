import Database from 'better-sqlite3';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HeatmapResponse } from '../../src/core/api/types.js';
import { parseRankTag, rankSiblings } from '../../src/core/ranks/rankTag.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
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
  const absent = new Set(h.absent);
  const out: Oracle = new Map();
  h.rows.forEach((row, r) => {
    const cells = new Map<string, number | null>();
    h.modules.forEach((id, c) => {
      if (!absent.has(r * h.modules.length + c)) cells.set(id, h.values[r * h.modules.length + c]);
    });
    out.set(row.rank, cells);
  });
  return out;
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

async function heatmap(served: ServedApp, params: Record<string, string>, status = 200): Promise<HeatmapResponse> {
  const res = await rawGet(served.port, `/api/graph/heatmap?${new URLSearchParams(params)}`);
  expect(res.status, res.body).toBe(status);
  return res.json as HeatmapResponse;
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
    expect(cellsOf(h)).toEqual(oracle);
    // Not a constant: the ranks differ somewhere, and some cells carry values.
    expect(h.values.filter((v) => v !== null).length).toBeGreaterThan(h.rows.length);
    expect(h.worst).toBe('high');
    expect(h.colors.length).toBeGreaterThan(0);
    expect(h.pending).toBe(false);
  });

  it('matches columns by name: a rank without a module has that cell absent', async () => {
    const h = await heatmap(served, { run: 'cut', tag: 'cut' });
    const oracle = dbOracle(path.join(logdir, 'cut/cut.vis.db'));
    expect(cellsOf(h)).toEqual(oracle);
    expect(oracle.get(2)!.size).toBe(oracle.get(0)!.size - 1);
    const missing = h.modules.findIndex((m) => !oracle.get(2)!.has(m));
    expect(h.absent).toEqual([2 * h.modules.length + missing]);
  });

  it('takes the lowest value for md5', async () => {
    const h = await heatmap(served, { run: 'cut', tag: 'md5' });
    expect(h.worst).toBe('low');
    expect(cellsOf(h)).toEqual(dbOracle(path.join(logdir, 'cut/md5.vis.db'), 'low'));
  });

  it('reads the run of per-rank .vis files, whichever rank is open', async () => {
    const files = visFiles();
    const h = await heatmap(served, { run: 'ranks/vis', tag: files[1].replace(/\.vis$/, '') });
    expect(h.rows.map((r) => [r.rank, r.tag, r.state])).toEqual(files.map((f, k) => [k, f.replace(/\.vis$/, ''), 'ok']));
    expect(cellsOf(h)).toEqual(new Map(files.map((f, k) => [k, visOracle(path.join(logdir, 'ranks/vis', f))])));
  });

  it('bad input is a 4xx with one line', async () => {
    const dbFile = readdirSync(path.join(logdir, 'ranks/db'))[0];
    const bad = await rawGet(served.port, `/api/graph/heatmap?run=ranks/db&tag=${dbFile.replace(/\.vis\.db$/, '')}&step=7`);
    expect(bad.status).toBe(400);
    expect((bad.json as { error: string }).error).toMatch(/step 7/);
    expect((await rawGet(served.port, '/api/graph/heatmap?run=ranks/vis&tag=nope')).status).toBe(404);
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
    const c = second.modules.indexOf(top);
    expect(first.values[1 * first.modules.length + first.modules.indexOf(top)]).not.toBe(7);
    expect(second.values[1 * second.modules.length + c]).toBe(7);
    const broken = second.rows.find((r) => r.rank === 9)!;
    expect(broken.state).toBe('error');
    expect(broken.error).toMatch(/compare_rank9_/);
    expect(second.rows.filter((r) => r.state === 'ok').length).toBe(files.length);
    rmSync(path.join(logdir, 'ranks/vis', `compare_rank9_${ts}.vis`));
  });
});
