import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.js';
import { createStoreCache, type IndexEvent } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { event, frame, graphDef, concat } from '../helpers/tbEncode.js';
import { bundleTbWorker } from '../helpers/workerBundles.js';

/**
 * Issue 16's cache of decoded TensorBoard graphs (server/store/tbGraph/tbDiskCache.ts) through the real server and
 * decoding worker: a server restarted on the same cache directory opens a GraphDef, an event file's graph and a graph
 * with library functions without decoding them (the store reports each load's `fromCache`) and answers exactly as the
 * first; a damaged or truncated cache file is rebuilt, not an error; a changed file is decoded again.
 */
let tmp: string;
let logdir: string;
let cacheDir: string;
let workerScript: string;
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** A 3,000-op graph: 30 scopes of 100 ops (a chain, so a series and edges), shapes on every op, a control input. */
function modelBytes(extra = 0): Uint8Array {
  const node = [];
  for (let s = 0; s < 30; s++)
    for (let i = 0; i < 100; i++)
      node.push({
        name: `net/block_${s}/add_${i}`,
        op: 'AddV2',
        input: i ? [`net/block_${s}/add_${i - 1}`] : s ? [`net/block_${s - 1}/add_99`, '^net/block_0/add_0'] : [],
        attr: { T: { type: 1 }, _output_shapes: { list: { shape: [{ dim: [{ size: -1 }, { size: 8 }] }] } } },
      });
  for (let i = 0; i < extra; i++) node.push({ name: `late_${i}`, op: 'Identity', input: ['net/block_29/add_99'] });
  return graphDef({ node, versions: { producer: 7 } });
}

const GRAPHS = [
  { run: '.', tag: 'model.pb', scope: 'net/block_3', op: 'net/block_3/add_0' },
  { run: 'ev', tag: 'events.out.tfevents.1.host#graph_def', scope: 'net/block_3', op: 'net/block_3/add_0' },
  { run: '.', tag: 'fn.pb', scope: '__function_library__/MyFunc_AenMyWWx1Us', op: '__function_library__/MyFunc_AenMyWWx1Us/While/(While)' },
];

/** A server on the log dir and cache; every TB graph through the worker thread. Its loads' events. */
async function serve() {
  const events: IndexEvent[] = [];
  const stores = createStoreCache({ cacheDir, indexWorkerScript: null, findWorkerScript: null, tbWorkerScript: workerScript, tbInThreadBytes: 1, onIndex: (e) => events.push(e) });
  const served = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores }));
  const ready = async (p: string) => {
    for (;;) {
      const r = await rawGet(served.port, p);
      if (r.status !== 202) return { status: r.status, body: JSON.parse(r.body) as unknown };
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  /** What each graph answers: the root's and a scope's children (with edges), an op's details. */
  const answers = async () => {
    const out = [];
    for (const g of GRAPHS) {
      const base = { run: g.run, tag: g.tag, side: 'npu' };
      out.push(await ready(`/api/graph/children?${q(base)}`));
      out.push(await ready(`/api/graph/children?${q({ ...base, node: g.scope })}`));
      out.push(await ready(`/api/graph/node?${q({ ...base, node: g.op })}`));
    }
    return out;
  };
  const close = async () => {
    await served.close();
    stores.closeAll();
  };
  const fromCache = () => events.filter((e) => e.phase === 'done').map((e) => (e as { fromCache: boolean }).fromCache);
  return { answers, close, events, fromCache };
}

const cacheFiles = () => readdirSync(path.join(cacheDir, 'derived/tb-graph-v1')).map((f) => path.join(cacheDir, 'derived/tb-graph-v1', f));

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-tb-cache-'));
  logdir = path.join(tmp, 'logs');
  cacheDir = path.join(tmp, 'cache');
  mkdirSync(path.join(logdir, 'ev'), { recursive: true });
  mkdirSync(path.join(tmp, 'app'));
  writeFileSync(path.join(tmp, 'app/index.html'), '<!doctype html><title>probeboard test app</title>');
  writeFileSync(path.join(logdir, 'model.pb'), modelBytes());
  writeFileSync(
    path.join(logdir, 'ev/events.out.tfevents.1.host'),
    concat([frame(event({ wall_time: 1, file_version: 'brain.Event:2' })), frame(event({ wall_time: 2, step: 5, graph_def: modelBytes() }))]),
  );
  copyFileSync(path.join(repoRoot, 'test/fixtures/tb/tf_function_functional_while.pb'), path.join(logdir, 'fn.pb'));
  workerScript = await bundleTbWorker(path.join(tmp, 'bundle'));
}, 60_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('decoded TensorBoard graphs kept across server restarts', () => {
  let first: unknown[];

  it('decodes on a first server and keeps each graph in the cache directory', async () => {
    const s = await serve();
    try {
      first = await s.answers();
      expect(first.map((a) => (a as { status: number }).status)).toEqual(Array(9).fill(200));
      expect(s.fromCache()).toEqual([false, false, false]);
    } finally {
      await s.close();
    }
    expect(cacheFiles()).toHaveLength(3);
  });

  it('opens them on a restarted server without decoding, answering the same', async () => {
    const s = await serve();
    try {
      expect(await s.answers()).toEqual(first);
      expect(s.fromCache()).toEqual([true, true, true]);
    } finally {
      await s.close();
    }
  });

  it('rebuilds a truncated or damaged cache file instead of failing', async () => {
    const [a, b, c] = cacheFiles();
    truncateSync(a, 100);
    const bytes = readFileSync(b);
    bytes[bytes.length - 9] ^= 0xff;
    writeFileSync(b, bytes);
    writeFileSync(c, 'not a cache file');
    const s = await serve();
    try {
      expect(await s.answers()).toEqual(first);
      expect(s.fromCache()).toEqual([false, false, false]);
    } finally {
      await s.close();
    }
    const again = await serve();
    try {
      expect(await again.answers()).toEqual(first);
      expect(again.fromCache()).toEqual([true, true, true]);
    } finally {
      await again.close();
    }
  });

  it('decodes a file again once it changed', async () => {
    writeFileSync(path.join(logdir, 'model.pb'), modelBytes(2));
    const s = await serve();
    try {
      const [root] = await s.answers();
      const ids = (root.body as { children: Array<{ id: string }> }).children.map((c) => c.id);
      expect(ids).toEqual(['net', 'late_0', 'late_1']);
      expect(s.fromCache()).toEqual([false, true, true]);
    } finally {
      await s.close();
    }
  });
});
