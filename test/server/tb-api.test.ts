import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildrenResponse, GraphMeta, NodeDetail, RunsResponse } from '../../src/core/api/types.js';
import { checkChildren, checkMeta, checkRuns } from '../../src/app/api/answers.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet, tagsOf } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { bundleTbWorker } from '../helpers/workerBundles.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 16 through the real server: TensorBoard event files, GraphDef and ONNX listed next to msprobe files in one
 * log dir and opened through /api/graph/*. The large-file path runs the real bundled decoding worker.
 */
const tbFixtures = path.join(repoRoot, 'test/fixtures/tb');
const visFixtures = path.join(repoRoot, 'test/fixtures/vis');
const MULTI = 'events.out.tfevents.1795697749.vm.13893.0.tbdata';
const SINGLE = 'events.out.tfevents.1795697585.vm.4215.0';
let tmp: string;
let logdir: string;
let served: ServedApp;

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const get = (p: string) => rawGet(served.port, p);

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-tb-'));
  logdir = path.join(tmp, 'logs');
  const put = (rel: string, from: string) => {
    mkdirSync(path.dirname(path.join(logdir, rel)), { recursive: true });
    copyFileSync(from, path.join(logdir, rel));
  };
  put(`pt/${MULTI}`, path.join(tbFixtures, MULTI));
  put(`pt/${SINGLE}`, path.join(tbFixtures, SINGLE));
  put('pt/build.vis', path.join(visFixtures, 'builder_build-202507.vis'));
  put('tf/demo.pbtxt', path.join(tbFixtures, 'tf_graph_app_demo_graph.pbtxt'));
  put('tf/while.pbtxt', path.join(tbFixtures, 'tf_mlir_graph-while-loop.pbtxt'));
  put('tf/functional_while.pb', path.join(tbFixtures, 'tf_function_functional_while.pb'));
  put('tf/torch.pbtxt', path.join(tbFixtures, 'pytorch_test_pytorch_graph.pbtxt'));
  put('onnx/torch_loop_if.onnx', path.join(tbFixtures, 'torch_loop_if.onnx'));
  put('bad/events.out.tfevents.1.bad_crc', path.join(tbFixtures, 'corrupt_events_bad_data_crc.tfevents'));
  put('bad/events.out.tfevents.2.garbage', path.join(tbFixtures, 'corrupt_events_trailing_garbage.tfevents'));
  writeFileSync(path.join(logdir, 'bad/empty.pb'), '');
  writeFileSync(path.join(logdir, 'bad/events.out.tfevents.3.profile-empty'), '');
  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>probeboard test app</title>');
  // Every TB file goes through the worker thread here (threshold 1 byte), as a large file would.
  const tbWorkerScript = await bundleTbWorker(path.join(tmp, 'bundle'));
  const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache'), indexWorkerScript: null, findWorkerScript: null, tbWorkerScript, tbInThreadBytes: 1 });
  served = await serveApp(createApp({ logdir, appDir, lang: 'en', stores }));
}, 60_000);

afterAll(async () => {
  await served?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Asks again while the server answers 202 (decoding in the worker), as the client does. */
async function getReady(p: string) {
  for (let i = 0; i < 100; i++) {
    const res = await get(p);
    if (res.status !== 202) return res;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`still 202: ${p}`);
}

describe('GET /api/runs with TensorBoard files', () => {
  it('lists one tag per graph of an event file, with its step, next to the msprobe file', async () => {
    const res = await get('/api/runs');
    expect(res.status).toBe(200);
    const body = res.json as RunsResponse;
    const pt = tagsOf(body, 'pt');
    expect(pt.map((t) => [t.tag, t.format, t.step ?? null])).toEqual([
      ['build', 'vis', null],
      [`${SINGLE}#graph_def`, 'tfevents', 0],
      [`${MULTI}#graph_def`, 'tfevents', 0],
      [`${MULTI}#graph_def_1`, 'tfevents', 1],
      [`${MULTI}#graph_def_2`, 'tfevents', 2],
    ]);
    expect(pt.every((t) => t.error === null)).toBe(true);
    expect(tagsOf(body, 'tf').map((t) => [t.tag, t.format])).toEqual([
      ['demo.pbtxt', 'graphdef'],
      ['functional_while.pb', 'graphdef'],
      ['torch.pbtxt', 'graphdef'],
      ['while.pbtxt', 'graphdef'],
    ]);
    expect(tagsOf(body, 'onnx').map((t) => [t.tag, t.format])).toEqual([['torch_loop_if.onnx', 'onnx']]);
    // The client's answer check keeps the new formats and steps rather than reading them as `.vis`.
    expect(tagsOf(checkRuns(body), 'pt').map((t) => [t.format, t.step ?? null])).toEqual(pt.map((t) => [t.format, t.step ?? null]));
  });

  it('lists an event file whose graph record is damaged with a one-line error naming the file and offset', async () => {
    const bad = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad');
    const crc = bad.find((t) => t.tag === 'events.out.tfevents.1.bad_crc');
    expect(crc?.error).toBe('bad/events.out.tfevents.1.bad_crc: bad data CRC at offset 326');
    // Damage after the graph: the graph still lists and opens; a profiler marker file is no graph.
    expect(bad.find((t) => t.tag === 'events.out.tfevents.2.garbage#graph_def')?.error).toBeNull();
    expect(bad.some((t) => t.tag.includes('profile-empty'))).toBe(false);
  });
});

describe('GET /api/graph/* on TensorBoard files', () => {
  const demo = { run: 'tf', tag: 'demo.pbtxt' };

  it('answers meta as a one-side build graph rooted at the hierarchy root', async () => {
    const res = await getReady(`/api/graph/meta?${q(demo)}`);
    expect(res.status).toBe(200);
    const meta = res.json as GraphMeta;
    expect(meta.format).toBe('graphdef');
    expect(meta.graphType).toBe('build');
    expect(meta.roots.npu).toBe('__root__');
    expect(meta.nodeCounts.npu).toBeGreaterThan(7);
    expect(checkMeta(meta, 'tf/demo.pbtxt').format).toBe('graphdef');
  });

  it('answers the root children with the bundled edges among them (counts checked against the file)', async () => {
    const res = await getReady(`/api/graph/children?${q(demo)}`);
    expect(res.status).toBe(200);
    const body = res.json as ChildrenResponse;
    expect(body.children.map((c) => c.id)).toEqual(['life', 'universe', 'everything', '0', '1', 'answer']);
    const edges = Object.fromEntries((body.edges ?? []).map((e) => [`${e.from}->${e.to}`, [e.data, e.control]]));
    // 0/0/Add, 0/1/Add, 1/Add, 1/Weird each read life and universe; answer reads all four and everything.
    expect(edges).toEqual({
      'life->0': [2, 0],
      'universe->0': [2, 0],
      'life->1': [2, 0],
      'universe->1': [2, 0],
      '0->answer': [2, 0],
      '1->answer': [2, 0],
      'everything->answer': [1, 0],
    });
    expect(checkChildren(body, 'tf/demo.pbtxt').edges).toEqual(body.edges);
  });

  it('answers a scope children, with control edges marked', async () => {
    const scope = await getReady(`/api/graph/children?${q({ ...demo, node: '1' })}`);
    expect((scope.json as ChildrenResponse).children.map((c) => c.id)).toEqual(['1/Add', '1/Weird']);
    expect((scope.json as ChildrenResponse).edges).toEqual([]);
    const loop = await getReady(`/api/graph/children?${q({ run: 'tf', tag: 'while.pbtxt', node: 'while' })}`);
    expect(loop.status).toBe(200);
    const edge = (loop.json as ChildrenResponse).edges?.find((e) => e.from === 'while/Merge' && e.to === 'while/Less');
    // while/Less (the op, moved into its own scope) reads while/Merge; while/Less/y waits on ^while/Merge.
    expect(edge).toMatchObject({ data: 1, control: 1 });
  });

  it('pages children without losing the edges', async () => {
    const res = await getReady(`/api/graph/children?${q({ ...demo, offset: '4', limit: '1' })}`);
    const body = res.json as ChildrenResponse;
    expect(body.children.map((c) => c.id)).toEqual(['1']);
    expect(body.total).toBe(6);
    expect(body.edges).toHaveLength(7);
  });

  it('answers a real op with its op type, attributes and inputs/outputs with shapes', async () => {
    const torch = await getReady(`/api/graph/node?${q({ run: 'tf', tag: 'torch.pbtxt', node: 'myLinear/Linear[l]/18' })}`);
    expect(torch.status).toBe(200);
    const node = torch.json as NodeDetail & { tb: { op: string; attrs: Array<{ key: string; value: string; fullSize: number; truncated: boolean }> } };
    expect(node.tb.op).toBe('aten::linear');
    expect(node.path).toEqual(['__root__', 'myLinear', 'myLinear/Linear[l]']);
    expect(Object.values(node.inputData).map((i) => i.source)).toEqual(['input/input', 'myLinear/Linear[l]/weight/17', 'myLinear/Linear[l]/bias/16']);
    expect(Object.values(node.outputData)[0]).toMatchObject({ shape: [1, 5] });
    expect(node.tb.attrs.find((a) => a.key === '_output_shapes')).toMatchObject({ truncated: false });
  });

  it('opens every listed graph of the multi-graph event file and a Loop/If ONNX model', async () => {
    for (const tag of [`${MULTI}#graph_def`, `${MULTI}#graph_def_1`, `${MULTI}#graph_def_2`, `${SINGLE}#graph_def`]) {
      const res = await getReady(`/api/graph/children?${q({ run: 'pt', tag })}`);
      expect(res.status, tag).toBe(200);
      expect((res.json as ChildrenResponse).children.length, tag).toBeGreaterThan(0);
    }
    const onnx = await getReady(`/api/graph/children?${q({ run: 'onnx', tag: 'torch_loop_if.onnx' })}`);
    expect(onnx.status).toBe(200);
    expect((onnx.json as ChildrenResponse).children.map((c) => c.id)).toContain('Loop');
  });

  it('answers a corrupt or empty file with a one-line 422 naming the file', async () => {
    const crc = await getReady(`/api/graph/meta?${q({ run: 'bad', tag: 'events.out.tfevents.1.bad_crc' })}`);
    expect(crc.status).toBe(422);
    expect((crc.json as { error: string }).error).toBe('bad/events.out.tfevents.1.bad_crc: bad data CRC at offset 326');
    const empty = await getReady(`/api/graph/meta?${q({ run: 'bad', tag: 'empty.pb' })}`);
    expect(empty.status).toBe(422);
    expect((empty.json as { error: string }).error).toMatch(/^bad\/empty\.pb: .*empty/);
    expect((empty.json as { error: string }).error).not.toContain('\n');
    // Listed with its error once it has been opened.
    const bad = tagsOf((await get('/api/runs')).json as RunsResponse, 'bad');
    expect(bad.find((t) => t.tag === 'empty.pb')?.error).toMatch(/^bad\/empty\.pb: /);
  });

  it('answers unknown nodes 404 and the bench side 404, like msprobe build graphs', async () => {
    expect((await getReady(`/api/graph/node?${q({ ...demo, node: 'nope' })}`)).status).toBe(404);
    expect((await getReady(`/api/graph/children?${q({ ...demo, node: 'nope' })}`)).status).toBe(404);
  });

  it('searches node ids; filters and the worst table answer empty', async () => {
    const s = await getReady(`/api/graph/search?${q({ ...demo, q: 'add' })}`);
    expect(s.status).toBe(200);
    expect((s.json as { results: Array<{ id: string; path: string[] }> }).results.map((r) => r.id)).toEqual(['0/0/Add', '0/1/Add', '1/Add']);
    const f = await getReady(`/api/graph/filter?${q({ ...demo, unmatched: '1' })}`);
    expect(f.json).toEqual({ total: 0, results: [] });
    const w = await getReady(`/api/graph/worst?${q(demo)}`);
    expect((w.json as { total: number }).total).toBe(0);
  });

  it('still lists and opens the msprobe file in the same run', async () => {
    const meta = await getReady(`/api/graph/meta?${q({ run: 'pt', tag: 'build' })}`);
    expect(meta.status).toBe(200);
    expect((meta.json as GraphMeta).format).toBe('vis');
    const root = (meta.json as GraphMeta).roots.npu!;
    const kids = await getReady(`/api/graph/children?${q({ run: 'pt', tag: 'build', node: root })}`);
    expect(kids.status).toBe(200);
    expect((kids.json as ChildrenResponse).edges).toBeUndefined();
  });
});

describe('small TensorBoard files decoded in the server thread', () => {
  it('answers the first request directly (the route waits for the short decode), errors too', async () => {
    const stores = createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript: null, tbWorkerScript: null });
    const app = await serveApp(createApp({ logdir, appDir: path.join(tmp, 'app'), lang: 'en', stores }));
    try {
      const meta = await rawGet(app.port, `/api/graph/meta?${q({ run: 'onnx', tag: 'torch_loop_if.onnx' })}`);
      expect(meta.status).toBe(200);
      expect((meta.json as GraphMeta).format).toBe('onnx');
      const bad = await rawGet(app.port, `/api/graph/children?${q({ run: 'bad', tag: 'events.out.tfevents.1.bad_crc' })}`);
      expect(bad.status).toBe(422);
      // msprobe-only routes refuse a TensorBoard graph rather than misreading it.
      const heat = await rawGet(app.port, `/api/graph/heatmap?${q({ run: 'onnx', tag: 'torch_loop_if.onnx' })}`);
      expect(heat.status).toBe(400);
    } finally {
      await app.close();
    }
  });
});
