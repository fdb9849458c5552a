import Database from 'better-sqlite3';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MatchOp, OverlayResponse } from '../../src/core/api/overlay.js';
import type { NodeDetail } from '../../src/core/api/types.js';
import { overlayEn } from '../../src/app/i18n/overlayEn.js';
import { overlayZhCN } from '../../src/app/i18n/overlayZhCN.js';
import { REAL_MATCH_KEYS } from '../../src/core/match/index.js';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { runCli } from '../../server/cli/program.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type StoreCache } from '../../server/store/openStore.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';

/**
 * Manual matching in real-tensor (`all`) files (issue 15): the graph command's own files, with two pairs and their
 * backward partners made unmatched the way msprobe writes unmatched nodes, are matched again through the overlay; the
 * tensors are found through the run directory's compare.json, and the recomputed items and precision_index equal
 * what `graph` wrote, field by field. Unmatch gives the unmatched file's values back; without compare.json, or with
 * a damaged tensor, the pairs fail with a reason.
 */

let tmp: string;
let logdir: string;
let app: ServedApp;
let cache: StoreCache;

const MODULE = 'Module.module.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear';
const PAIRS = [`${MODULE}.forward.0`, 'Functional.linear.0.forward', `${MODULE}.backward.0`, 'Functional.linear.0.backward'];
const matchModule: MatchOp = { op: 'match', npu: PAIRS[0], bench: PAIRS[0], children: true };
const unmatchModule: MatchOp = { op: 'unmatch', npu: PAIRS[0], bench: PAIRS[0], children: true };

interface Answer {
  status: number;
  json: any;
}

function request(method: string, p: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port: app.port, path: p, method, headers: text ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();

/** Registers, repeating while the server answers 202 (tensors being read), as the client does; counts the 202s. */
async function register(file: Record<string, string>, ops: MatchOp[], pollMs = 25): Promise<OverlayResponse & { waited: number }> {
  for (let waited = 0; waited < 400; waited++) {
    const r = await request('POST', `/api/overlay?${q(file)}`, { ops });
    if (r.status === 200) return { ...(r.json as OverlayResponse), waited };
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    await new Promise((done) => setTimeout(done, pollMs));
  }
  throw new Error('the overlay was never ready');
}

async function node(file: Record<string, string>, side: string, id: string, overlay?: string): Promise<NodeDetail> {
  const r = await request('GET', `/api/graph/node?${q({ ...file, side, node: id, ...(overlay ? { overlay } : {}) })}`);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as NodeDetail;
}

/** An NPU item as msprobe writes an unmatched node's: no compare columns. */
function stripItems(items: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [k, item] of Object.entries(items)) out[k] = Object.fromEntries(Object.entries(item).filter(([c]) => !REAL_MATCH_KEYS.includes(c)));
  return out;
}

/** The graph command's `all` files (`.vis` and `.vis.db`), one copy as written, others with PAIRS unmatched. */
beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-real-overlay-'));
  logdir = path.join(tmp, 'logs');
  const dumps = path.join(logdir, 'dumps');
  const summary = generateDumps({ layers: 1, bench: true, tensor: true, seed: 3, out: dumps, log: () => {} });
  // A copy of the dumps with one NPU tensor of the pairs damaged (a .npy header cut short).
  cpSync(dumps, path.join(logdir, 'damaged'), { recursive: true });
  writeFileSync(path.join(logdir, 'damaged/npu/dump_tensor_data', `${PAIRS[0]}.output.0.npy`), 'not a tensor');

  for (const format of ['vis', 'db'] as const) {
    const out = path.join(tmp, `graph-${format}`);
    const io = { out: () => {}, err: (t: string) => void process.stderr.write(t) };
    expect(await runCli(['graph', '-i', summary.compareJson, '-o', out, '--format', format, '--quiet'], [(p) => registerGraphCommand(p, io)], io)).toBe(0);
    const written = path.join(out, readdirSync(out).find((f) => f.endsWith(format === 'db' ? '.vis.db' : '.vis'))!);
    const name = format === 'db' ? 'r.vis.db' : 'r.vis';
    // orig: as written; un: PAIRS unmatched, with compare.json; bare: the same without it; bad: a damaged tensor.
    for (const run of ['orig', 'un', 'cfg', 'bare', 'bad']) {
      const dir = path.join(logdir, `${run}-${format}`);
      mkdirSync(dir, { recursive: true });
      copyFileSync(written, path.join(dir, name));
      if (run !== 'orig') unmatch(path.join(dir, name), format);
      const side = run === 'bad' ? 'damaged' : 'dumps';
      if (run !== 'bare') writeFileSync(path.join(dir, 'compare.json'), JSON.stringify({ npu_path: `../${side}/npu`, bench_path: `../${side}/bench` }));
    }
  }
  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>test</title>');
  cache = createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript: null });
  app = await serveApp(createApp({ logdir, appDir, lang: 'en', stores: cache }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  cache?.closeAll();
  rmSync(tmp, { recursive: true, force: true });
});

/** PAIRS made unmatched as msprobe writes unmatched nodes: links [], no precision_index, NPU compare cells removed. */
function unmatch(file: string, format: 'vis' | 'db'): void {
  if (format === 'vis') {
    const vis = JSON.parse(readFileSync(file, 'utf8'));
    for (const id of PAIRS) {
      const n = vis.NPU.node[id];
      n.matched_node_link = [];
      delete n.data.precision_index;
      n.input_data = stripItems(n.input_data);
      n.output_data = stripItems(n.output_data);
      vis.Bench.node[id].matched_node_link = [];
    }
    writeFileSync(file, JSON.stringify(vis, null, 4));
    return;
  }
  const db = new Database(file);
  const read = db.prepare("SELECT input_data, output_data FROM tb_nodes WHERE data_source = 'NPU' AND node_name = ?");
  const write = db.prepare("UPDATE tb_nodes SET matched_node_link = '[]', precision_index = NULL, input_data = ?, output_data = ? WHERE data_source = ? AND node_name = ?");
  for (const id of PAIRS) {
    const r = read.get(id) as { input_data: string; output_data: string };
    write.run(JSON.stringify(stripItems(JSON.parse(r.input_data))), JSON.stringify(stripItems(JSON.parse(r.output_data))), 'NPU', id);
    db.prepare("UPDATE tb_nodes SET matched_node_link = '[]' WHERE data_source = 'Bench' AND node_name = ?").run(id);
  }
  db.pragma('journal_mode = DELETE');
  db.close();
}

const file = (run: string, format: 'vis' | 'db') => ({ run: `${run}-${format}`, tag: 'r', format, step: '0', rank: '0' });

describe.each(['vis', 'db'] as const)('real-tensor matching (%s)', (format) => {
  it('recomputes exactly what the graph command wrote for each pair, and unmatch restores the file', async () => {
    const un = file('un', format);
    for (const id of PAIRS) {
      const n = await node(un, 'npu', id);
      expect(n.matchedNodeLink).toEqual([]);
      expect(n.precisionIndex).toBeNull();
    }
    const a = await register(un, [matchModule]);
    // The tensors are read off the event loop first: 202 until they are.
    expect(a.waited).toBeGreaterThan(0);
    expect(a.outcomes).toEqual([{ done: 4, unchanged: 0, failed: [], failedTotal: 0 }]);
    for (const id of PAIRS) {
      const want = await node(file('orig', format), 'npu', id);
      const got = await node(un, 'npu', id, a.overlay);
      // Every item and every cell, in order: the graph command's values as its writer formats them.
      expect(JSON.stringify(got.inputData), id).toBe(JSON.stringify(want.inputData));
      expect(JSON.stringify(got.outputData), id).toBe(JSON.stringify(want.outputData));
      expect(got.precisionIndex, id).toBe(want.precisionIndex);
      expect(got.matchedNodeLink.at(-1)).toBe(id);
      expect((await node(un, 'bench', id, a.overlay)).matchedNodeLink.at(-1)).toBe(id);
    }
    // Some pair has a non-zero index and real cells, so the comparison above compared numbers.
    const back = await node(file('orig', format), 'npu', PAIRS[3]);
    expect(back.precisionIndex).toBeGreaterThan(0);
    expect(Object.values(back.outputData)[0].Cosine).toMatch(/^0\.9/);

    const b = await register(un, [matchModule, unmatchModule]);
    expect(b.outcomes[1]).toEqual({ done: 4, unchanged: 0, failed: [], failedTotal: 0 });
    for (const id of PAIRS) {
      const want = await node(un, 'npu', id);
      const got = await node(un, 'npu', id, b.overlay);
      expect(JSON.stringify(got.inputData)).toBe(JSON.stringify(want.inputData));
      expect(JSON.stringify(got.outputData)).toBe(JSON.stringify(want.outputData));
      expect(got.precisionIndex).toBeNull();
      expect(got.matchedNodeLink).toEqual([]);
    }
    // Unmatching pairs msprobe matched leaves them as msprobe writes unmatched nodes.
    const c = await register(file('orig', format), [unmatchModule]);
    expect(c.outcomes[0].done).toBe(4);
    for (const id of PAIRS) {
      const got = await node(file('orig', format), 'npu', id, c.overlay);
      expect(JSON.stringify(got.inputData)).toBe(JSON.stringify((await node(un, 'npu', id)).inputData));
      expect(JSON.stringify(got.outputData)).toBe(JSON.stringify((await node(un, 'npu', id)).outputData));
    }
  });

  it('config entries read the tensors of every entry ahead in one go, not one round trip per entry', async () => {
    const ops = PAIRS.map((id): MatchOp => ({ op: 'config', npu: id, bench: id, children: false }));
    // Polling as the client does (every 300 ms): one entry at a time would take a 202 per entry.
    const a = await register(file('cfg', format), ops, 300);
    expect(a.waited).toBeGreaterThan(0);
    expect(a.waited).toBeLessThan(PAIRS.length);
    expect(a.outcomes.map((o) => o.done)).toEqual([1, 1, 1, 1]);
    for (const id of PAIRS) expect((await node(file('cfg', format), 'npu', id, a.overlay)).precisionIndex).toBe((await node(file('orig', format), 'npu', id)).precisionIndex);
  });

  it('without compare.json in the run directory the pairs fail, saying the tensors are needed', async () => {
    const a = await register(file('bare', format), [matchModule]);
    expect(a.outcomes[0].done).toBe(0);
    expect(a.outcomes[0].failed.map((f) => f.reason)).toEqual(['tensorsUnreachable', 'tensorsUnreachable']);
    expect((await node(file('bare', format), 'npu', PAIRS[0], a.overlay)).matchedNodeLink).toEqual([]);
    // The toast's words for it (src/app/i18n), in both languages.
    expect(overlayEn['match.reason.tensorsUnreachable']).toContain('compare.json');
    expect(overlayZhCN['match.reason.tensorsUnreachable']).toContain('compare.json');

    // Putting compare.json in place makes the same ops a new overlay, replayed with the tensors.
    writeFileSync(path.join(logdir, `bare-${format}`, 'compare.json'), JSON.stringify({ npu_path: '../dumps/npu', bench_path: '../dumps/bench' }));
    const b = await register(file('bare', format), [matchModule]);
    expect(b.overlay).not.toBe(a.overlay);
    expect(b.outcomes[0]).toEqual({ done: 4, unchanged: 0, failed: [], failedTotal: 0 });
  });

  it('compare.json paths outside the log directory are not followed', async () => {
    const dir = path.join(logdir, `bare-${format}`);
    writeFileSync(path.join(dir, 'compare.json'), JSON.stringify({ npu_path: path.join(tmp, 'outside/npu'), bench_path: path.join(tmp, 'outside/bench') }));
    cpSync(path.join(logdir, 'dumps'), path.join(tmp, 'outside'), { recursive: true });
    const a = await register(file('bare', format), [matchModule]);
    expect(a.outcomes[0].failed.map((f) => f.reason)).toEqual(['tensorsUnreachable', 'tensorsUnreachable']);
  });

  it('a damaged tensor fails its pair only; the others are recomputed', async () => {
    const a = await register(file('bad', format), [matchModule]);
    expect(a.outcomes[0].failed).toEqual([{ npu: PAIRS[0], bench: PAIRS[0], reason: 'tensorUnreadable' }]);
    // Its partner is still paired (the original pairs the partner whatever the pair's comparison gave).
    expect(a.outcomes[0].done).toBe(1);
    expect((await node(file('bad', format), 'npu', PAIRS[2], a.overlay)).precisionIndex).toBe((await node(file('orig', format), 'npu', PAIRS[2])).precisionIndex);
  });
});
