import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet, type RawResponse } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { fuzzSeeds, fuzzTimeout, hostileValue, mutateBytes, mutateText, pick, rng, tallyLine, type FuzzTally, type Rand } from './mutate.js';

/**
 * Mutated `.vis` and `.vis.db` files served by the real server (issue 12): every route on every mutant answers in
 * under 10 s, with 2xx/202, a 4xx `{error}` naming the file, or the work budget's 503 — never a 500 — and the server
 * keeps answering; RSS stays under 1 GB. `npm test` runs a quick slice; `npm run fuzz` 1,000 files per format.
 */

const SEEDS = fuzzSeeds(10);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pb-fuzz-serve-'));
const logdir = path.join(tmp, 'logs');
let served: ServedApp;
const tallies: FuzzTally[] = [];
afterAll(async () => {
  await served?.close();
  rmSync(tmp, { recursive: true, force: true });
  tallies.forEach((t) => console.log(tallyLine(t)));
});

beforeAll(async () => {
  mkdirSync(logdir);
  const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache'), log: () => undefined });
  served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'no-app'), stores }));
});

const visBases = readdirSync(path.join(repoRoot, 'test/fixtures/vis')).map((f) => path.join(repoRoot, 'test/fixtures/vis', f));
const dbBases = [
  'test/fixtures/scale/multistep_compare.vis.db',
  ...readdirSync(path.join(repoRoot, 'test/fixtures/graph/golden')).flatMap((c) => {
    const d = path.join('test/fixtures/graph/golden', c, 'db');
    return readdirSync(path.join(repoRoot, d)).filter((f) => f.endsWith('.vis.db')).map((f) => path.join(d, f));
  }),
].map((f) => path.join(repoRoot, f));

/** Row-level damage a byte flip rarely makes: NULLs, wrong types, cycles, hostile JSON text, huge values. */
function mutateDbRows(file: string, r: Rand): void {
  const db = new Database(file);
  try {
    const ids = db.prepare('SELECT id, node_name FROM tb_nodes').all() as Array<{ id: string; node_name: string }>;
    if (!ids.length) return;
    const some = () => pick(r, ids);
    const edits = [
      () => db.prepare('UPDATE tb_nodes SET node_name = NULL WHERE id = ?').run(some().id),
      () => db.prepare('UPDATE tb_nodes SET up_node = ? WHERE id = ?').run(some().node_name, some().id),
      () => db.prepare('UPDATE tb_nodes SET sub_nodes = ? WHERE id = ?').run(hostileValue(r).slice(0, 100_000), some().id),
      () => db.prepare('UPDATE tb_nodes SET input_data = ? WHERE id = ?').run(hostileValue(r), some().id),
      () => db.prepare('UPDATE tb_nodes SET output_data = ? WHERE id = ?').run(mutateText('{"a": {"Max": 1}}', r), some().id),
      () => db.prepare('UPDATE tb_nodes SET precision_index = ? WHERE id = ?').run(pick(r, ['x', '-1', '1e999', null, 2]), some().id),
      () => db.prepare('UPDATE tb_nodes SET matched_node_link = ? WHERE id = ?').run(hostileValue(r).slice(0, 100_000), some().id),
      () => db.prepare('UPDATE tb_nodes SET step = ?, rank = ? WHERE id = ?').run(pick(r, [-1, 1e9, 'a', null]), pick(r, [0, 3, null]), some().id),
      () => db.prepare('UPDATE tb_config SET ' + pick(r, ['step_list', 'rank_list', 'node_colors', 'task', 'micro_steps']) + ' = ?').run(hostileValue(r).slice(0, 10_000)),
      () => db.prepare('DELETE FROM tb_nodes WHERE id = ?').run(some().id),
      () => db.exec(pick(r, ['DROP TABLE tb_config', 'DROP INDEX IF EXISTS index1', 'DELETE FROM tb_config', 'DROP TABLE IF EXISTS tb_stack'])),
    ];
    for (let k = 0; k < 1 + Math.floor(r() * 4); k++) {
      try {
        pick(r, edits)();
      } catch {
        // a column this schema version lacks: the next edit
      }
    }
  } finally {
    db.close();
  }
}

async function probe(tally: FuzzTally, label: string, rel: string): Promise<void> {
  const run = path.posix.dirname(rel);
  const tag = path.posix.basename(rel).replace(/\.vis(\.db)?$/, '');
  const q = (extra: Record<string, string>) => new URLSearchParams({ run, tag, ...extra }).toString();
  const paths = ['/api/runs', `/api/graph/meta?${q({})}`];
  for (const side of ['npu', 'bench']) {
    paths.push(`/api/graph/children?${q({ side })}`, `/api/graph/search?${q({ side, q: 'a' })}`, `/api/graph/search?${q({ side, q: '\0' })}`);
    paths.push(`/api/graph/filter?${q({ side, precision: '0-0.2,0.8-1', unmatched: '1', leaves: '1' })}`);
  }
  const fail = (why: string): void => void tally.failures.push(`${label}: ${why}`);
  const get = async (p: string): Promise<RawResponse | null> => {
    const t0 = performance.now();
    let res: RawResponse;
    try {
      res = await rawGet(served.port, p);
    } catch (e) {
      fail(`${p}: ${(e as Error).message}`);
      return null;
    }
    const ms = performance.now() - t0;
    tally.requests = (tally.requests ?? 0) + 1;
    tally.slowestMs = Math.max(tally.slowestMs, ms);
    if (ms > 10_000) fail(`${p} took ${Math.round(ms)} ms`);
    if (res.status === 503 && /more than \d+ ms/.test(res.json?.error ?? '')) tally.budget503 = (tally.budget503 ?? 0) + 1;
    else if (res.status >= 500) fail(`${p} → ${res.status} ${res.body.slice(0, 200)}`);
    else if (res.status >= 400 && (typeof res.json?.error !== 'string' || !res.json.error.includes(tag))) {
      // Errors about the file name it; parameter errors (400 badParam) need not.
      if (res.status !== 400 && res.status !== 404) fail(`${p} → ${res.status} without the file: ${res.body.slice(0, 200)}`);
    }
    return res;
  };
  let refused = false;
  for (const p of paths) {
    const res = await get(p);
    if (res && res.status >= 400 && p.startsWith('/api/graph/meta')) refused = true;
  }
  // The first child's record, when the graph opened.
  const children = await get(`/api/graph/children?${q({ side: 'npu' })}`);
  const first = children?.json?.children?.[0]?.id;
  if (typeof first === 'string') await get(`/api/graph/node?${q({ side: 'npu', node: first })}`);
  // The listing again, now that the file has been opened (a cached store must not break it for everyone).
  await get('/api/runs');
  tally.inputs++;
  if (refused) tally.refused++;
  else tally.accepted++;
}

function newTally(reader: string): FuzzTally {
  const t: FuzzTally = { reader, inputs: 0, accepted: 0, refused: 0, failures: [], slowestMs: 0, requests: 0, budget503: 0 };
  tallies.push(t);
  return t;
}

describe(`fuzz: served files (${SEEDS.length} mutants per format)`, () => {
  it('.vis mutants: no 500, no hang, errors name the file', async () => {
    const tally = newTally('.vis');
    for (const seed of SEEDS) {
      const r = rng(seed + 3_000_000);
      const rel = `vis/m${seed}.vis`;
      mkdirSync(path.join(logdir, 'vis'), { recursive: true });
      writeFileSync(path.join(logdir, rel), mutateText(readFileSync(pick(r, visBases), 'utf8'), r));
      await probe(tally, `.vis seed ${seed}`, rel);
      rmSync(path.join(logdir, rel), { force: true });
    }
    expect(tally.failures.slice(0, 10)).toEqual([]);
  }, fuzzTimeout(SEEDS));

  it('.vis.db mutants (page damage and row damage): no 500, no hang, errors name the file', async () => {
    const tally = newTally('.vis.db');
    for (const seed of SEEDS) {
      const r = rng(seed + 4_000_000);
      const rel = `db/m${seed}.vis.db`;
      const file = path.join(logdir, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      const src = pick(r, dbBases);
      if (r() < 0.5) writeFileSync(file, mutateBytes(readFileSync(src), r));
      else {
        copyFileSync(src, file);
        mutateDbRows(file, r);
        for (const ext of ['-wal', '-shm', '-journal']) rmSync(file + ext, { force: true });
      }
      await probe(tally, `.vis.db seed ${seed}`, rel);
      rmSync(file, { force: true });
    }
    expect(tally.failures.slice(0, 10)).toEqual([]);
    expect(process.memoryUsage().rss).toBeLessThan(1024 ** 3);
  }, fuzzTimeout(SEEDS));
});
