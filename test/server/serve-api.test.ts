import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildrenResponse, GraphMeta, NodeDetail, RunsResponse } from '../../src/core/api/types.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { createApp } from '../../server/http/app.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { UNREACHABLE_GROUP_ID } from '../../server/store/unreachableGroup.js';
import { CONTENT_SECURITY_POLICY } from '../../server/http/security.js';
import { rawGet } from '../helpers/httpGet.js';
import { LEGACY_COMPARE_META } from '../helpers/legacyCompare.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';

const fixtures = path.join(repoRoot, 'test/fixtures/vis');
let tmp: string;
let logdir: string;
let served: ServedApp;

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const get = (p: string, headers?: Record<string, string>) => rawGet(served.port, p, headers);

/** A log dir that exercises the scanner: root files, nested runs, natural order, bad files, links in and out. */
function populate(): void {
  const put = (rel: string, fixture: string) => {
    mkdirSync(path.dirname(path.join(logdir, rel)), { recursive: true });
    copyFileSync(path.join(fixtures, fixture), path.join(logdir, rel));
  };
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(logdir, rel)), { recursive: true });
    writeFileSync(path.join(logdir, rel), text);
  };
  put('legacy_compare.vis', 'mock_compare_statis_graph.vis');
  put('legacy_single.vis', 'mock_single_statis_graph.vis');
  put('lm/compare_20261125220621.vis', 'lm_pt_vs_pt_compare-202507.vis');
  put('lm/build_20261125220608.vis', 'lm_pytorch_build-202501.vis');
  put('ranks/rank10/build.vis', 'builder_build-202507.vis');
  put('ranks/rank2/build.vis', 'builder_build-202507.vis');
  put('ranks/rank2/compare_step10.vis', 'multistep_compare-202507.vis');
  put('ranks/rank2/compare_step9.vis', 'multistep_compare-202507.vis');
  write('bad/truncated.vis', readFileSync(path.join(fixtures, 'multistep_compare-202507.vis'), 'utf8').slice(0, 500));
  write('bad/notjson.vis', 'this is not json\n');
  write('bad/wrongshape.vis', '{"hello": "world"}\n');
  write('bad/inner_truncated.vis', '{"root": "R", "node": {"R": {"id": "R", "subnodes": [}}}\n');
  write('db/run.vis.db', 'SQLite format 3\0');
  put('.hidden/secret.vis', 'builder_build-202507.vis');
  put('a/b/c/d/e/too_deep.vis', 'builder_build-202507.vis');
  write('lm/notes.txt', 'not a graph');
  // Outside the log dir: reachable only through the symlinks below, which must not let it out.
  put('../outside/secret.vis', 'builder_build-202507.vis');
  symlinkSync(path.join(tmp, 'outside'), path.join(logdir, 'escape'));
  symlinkSync(path.join(tmp, 'outside', 'secret.vis'), path.join(logdir, 'lm', 'escaped_file.vis'));
  symlinkSync(path.join(logdir, 'legacy_compare.vis'), path.join(logdir, 'lm', 'linked_inside.vis'));
  symlinkSync(logdir, path.join(logdir, 'ranks', 'loop'));
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-serve-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  populate();
  const appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>probeboard test app</title>');
  const stores = createStoreCache({ cacheDir: path.join(tmp, 'cache') });
  served = await serveApp(createApp({ logdir, appDir, lang: 'en', stores }));
});

afterAll(async () => {
  await served?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('GET /api/runs', () => {
  it('lists runs by relative path in natural order, with formats, types and per-file errors', async () => {
    const res = await get('/api/runs');
    expect(res.status).toBe(200);
    const body = res.json as RunsResponse;
    expect(body.logdir).toBe(logdir);
    expect(body.runs.map((r) => r.run)).toEqual(['.', 'bad', 'db', 'lm', 'ranks/rank2', 'ranks/rank10']);
    const tags = (run: string) => body.runs.find((r) => r.run === run)!.tags;
    expect(tags('.').map((t) => [t.tag, t.graphType, t.error])).toEqual([
      ['legacy_compare', 'compare', null],
      ['legacy_single', 'build', null],
    ]);
    expect(tags('.')[0].sizeBytes).toBe(35152);
    expect(tags('ranks/rank2').map((t) => t.tag)).toEqual(['build', 'compare_step9', 'compare_step10']);
    // Symlinked file inside the log dir is listed; one pointing outside is not; the loop link adds nothing.
    expect(tags('lm').map((t) => [t.tag, t.graphType])).toEqual([
      ['build_20261125220608', 'build'],
      ['compare_20261125220621', 'compare'],
      ['linked_inside', 'compare'],
    ]);
    const bad = Object.fromEntries(tags('bad').map((t) => [t.tag, t]));
    expect(bad.truncated.error).toMatch(/^bad\/truncated\.vis: truncated/);
    expect(bad.notjson.error).toMatch(/^bad\/notjson\.vis: not a \.vis graph: the file starts with "t"/);
    expect(bad.wrongshape.error).toBeNull(); // a sniff cannot tell; opening it can (below)
    expect(tags('db')).toEqual([
      {
        tag: 'run',
        format: 'db',
        graphType: null,
        sizeBytes: 16,
        error: 'db/run.vis.db: not a SQLite database (a .vis.db starts with "SQLite format 3")',
      },
    ]);
    expect(res.body).not.toContain('secret');
    expect(res.body).not.toContain('too_deep');
  });
});

describe('GET /api/graph/meta', () => {
  it('compare file meta from the file', async () => {
    const res = await get(`/api/graph/meta?${q({ run: '.', tag: 'legacy_compare' })}`);
    expect(res.status).toBe(200);
    const meta = res.json as GraphMeta;
    expect(meta).toMatchObject({ run: '.', tag: 'legacy_compare', format: 'vis', ...LEGACY_COMPARE_META });
    expect(meta.toolTips).toEqual({ shape: '数' });
    expect(meta.colors.find((c) => c.color === '#FF704D')?.value).toEqual([0.8, 1]);
  });
});

describe('GET /api/graph/children', () => {
  const children = async (params: Record<string, string>) => {
    const res = await get(`/api/graph/children?${q({ run: 'lm', tag: 'compare_20261125220621', ...params })}`);
    return { status: res.status, body: res.json as ChildrenResponse };
  };

  it('root children and a module’s children in file order, with summaries from the file', async () => {
    const file = parsePyJson(readFileSync(path.join(fixtures, 'lm_pt_vs_pt_compare-202507.vis'), 'utf8')) as any;
    const root = await children({ side: 'npu' });
    expect(root.status).toBe(200);
    expect((await children({ node: '' })).body).toEqual(root.body);
    expect(root.body.node).toBe('DefaultModel');
    // Then the group of the nodes the root does not reach (layer-mapping orphans, issue 14 #11).
    expect(root.body.children.map((c) => c.id)).toEqual([...file.NPU.node.DefaultModel.subnodes, UNREACHABLE_GROUP_ID]);
    const apis = root.body.children[0];
    expect(apis).toEqual({
      id: 'Apis_Between_Modules.0',
      nodeType: 9,
      precisionIndex: 0,
      overflowLevel: null,
      matchedNodeLink: ['DefaultModel', 'Apis_Between_Modules.0'],
      childCount: 2,
      microStepId: 0,
    });
    const inner = await children({ side: 'bench', node: 'Apis_Between_Modules.0' });
    expect(inner.body.children.map((c) => c.id)).toEqual(file.Bench.node['Apis_Between_Modules.0'].subnodes);
    expect(inner.body.children.every((c) => c.nodeType === 1 && c.childCount === 0)).toBe(true);
  });

  it('micro filter applies to the root children (legacy string micro steps)', async () => {
    const ids = async (micro: string) => {
      const res = await get(`/api/graph/children?${q({ run: '.', tag: 'legacy_compare', side: 'npu', micro })}`);
      expect(res.status).toBe(200);
      return (res.json as ChildrenResponse).children.map((c) => c.id);
    };
    expect(await ids('-1')).toHaveLength(4);
    expect(await ids('3')).toEqual(['Test.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.tt.ee', 'output_0']);
    expect(await ids('2')).toEqual(['arg0_1_0']);
    const bad = await get(`/api/graph/children?${q({ run: '.', tag: 'legacy_compare', micro: 'x' })}`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/"micro"/);
  });

  it('bench side of a build file → 400; unknown node → 404', async () => {
    const bench = await get(`/api/graph/children?${q({ run: 'lm', tag: 'build_20261125220608', side: 'bench' })}`);
    expect(bench.status).toBe(400);
    expect(bench.json.error).toBe('lm/build_20261125220608.vis is a single-graph (build) file: it has no bench side');
    const unknown = await children({ side: 'npu', node: 'No.such.node' });
    expect(unknown.status).toBe(404);
    const badSide = await children({ side: 'gpu' });
    expect(badSide.status).toBe(400);
  });
});

describe('GET /api/graph/node', () => {
  it('returns the full record of a node as the file has it', async () => {
    const file = parsePyJson(readFileSync(path.join(fixtures, 'lm_pt_vs_pt_compare-202507.vis'), 'utf8')) as any;
    const id = 'Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0';
    const res = await get(`/api/graph/node?${q({ run: 'lm', tag: 'compare_20261125220621', side: 'npu', node: id })}`);
    expect(res.status).toBe(200);
    const d = res.json as NodeDetail;
    const raw = file.NPU.node[id];
    expect(d.id).toBe(id);
    expect(d.side).toBe('npu');
    expect(d.inputData).toEqual(raw.input_data);
    expect(d.outputData).toEqual(raw.output_data);
    expect(d.stackInfo).toEqual(raw.stack_info);
    expect(d.upnode).toBe(raw.upnode);
    expect(d.childCount).toBe(raw.subnodes.length);
    expect(d.path[d.path.length - 1]).toBe(raw.upnode);
  });

  it('the node id may look like HTML: it is data in JSON', async () => {
    const res = await get(`/api/graph/node?${q({ run: '.', tag: 'legacy_compare', side: 'npu', node: '<a>add_51111</a>' })}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json.path).toEqual(['AddThree_0', 'Test.maxpoolMaxPool2.maxpoolpo.tt.ee', 'AddOne_0']);
  });

  it('missing node parameter → 400, unknown node → 404', async () => {
    expect((await get(`/api/graph/node?${q({ run: '.', tag: 'legacy_compare' })}`)).status).toBe(400);
    const res = await get(`/api/graph/node?${q({ run: '.', tag: 'legacy_compare', node: 'nope', side: 'bench' })}`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'no node "nope" on the bench side of legacy_compare.vis' });
  });
});

describe('bad files', () => {
  it.each([
    ['truncated', /^bad\/truncated\.vis: line \d+:\d+: [^\n]*end of file/],
    ['notjson', /^bad\/notjson\.vis: line 1:1: unexpected 't' \(byte 0\)$/],
    ['wrongshape', /^bad\/wrongshape\.vis: not a \.vis graph: no "NPU"/],
    ['inner_truncated', /^bad\/inner_truncated\.vis: line 1:54: unexpected '}' \(byte 53\)$/],
  ])('%s → 422 naming the file and the problem, and the server keeps serving', async (tag, pattern) => {
    for (const route of ['meta', 'children', 'node']) {
      const res = await get(`/api/graph/${route}?${q({ run: 'bad', tag, node: 'R' })}`);
      expect(res.status).toBe(422);
      expect(res.json.error).toMatch(pattern);
    }
    expect((await get(`/api/graph/meta?${q({ run: '.', tag: 'legacy_single' })}`)).status).toBe(200);
    const runs = (await get('/api/runs')).json as RunsResponse;
    const listed = runs.runs.find((r) => r.run === 'bad')!.tags.find((t) => t.tag === tag)!;
    expect(listed.error).toMatch(pattern);
  });

  it('a .vis.db that is not a database → 422 naming the file', async () => {
    const res = await get(`/api/graph/meta?${q({ run: 'db', tag: 'run' })}`);
    expect(res.status).toBe(422);
    expect(res.json.error).toBe('db/run.vis.db: not a SQLite database (a .vis.db starts with "SQLite format 3")');
  });

  it('a file rewritten on disk is reopened, not served stale', async () => {
    const rel = 'ranks/rank10/build.vis';
    const url = `/api/graph/meta?${q({ run: 'ranks/rank10', tag: 'build' })}`;
    expect((await get(url)).status).toBe(200);
    writeFileSync(path.join(logdir, rel), '{"root": "R"');
    expect((await get(url)).status).toBe(422);
    copyFileSync(path.join(fixtures, 'builder_build-202507.vis'), path.join(logdir, rel));
    expect((await get(url)).json.roots).toEqual({ npu: 'DefaultModel' });
  });

  it('two files asked alternately each answer for themselves', async () => {
    for (let i = 0; i < 3; i++) {
      const a = await get(`/api/graph/meta?${q({ run: '.', tag: 'legacy_compare' })}`);
      const b = await get(`/api/graph/meta?${q({ run: 'lm', tag: 'build_20261125220608' })}`);
      expect([a.json.graphType, a.json.nodeCounts.npu]).toEqual(['compare', 12]);
      expect([b.json.graphType, b.json.tag]).toEqual(['build', 'build_20261125220608']);
    }
  });
});

describe('never serves outside the log dir', () => {
  it.each([
    [{ run: '..', tag: 'outside' }, 400],
    [{ run: '../outside', tag: 'secret' }, 400],
    [{ run: 'lm/../..', tag: 'x' }, 400],
    [{ run: '/etc', tag: 'passwd' }, 400],
    [{ run: '.', tag: '../outside/secret' }, 400],
    [{ run: '.', tag: '..' }, 400],
    [{ run: 'lm\\..\\..', tag: 'x' }, 400],
    [{ run: 'lm\0', tag: 'x' }, 400],
    [{ run: 'escape', tag: 'secret' }, 403],
    [{ run: 'lm', tag: 'escaped_file' }, 403],
    [{ run: '.hidden', tag: 'secret' }, 404],
    [{ run: 'a/b/c/d/e', tag: 'too_deep' }, 404],
  ])('%o → %i JSON', async (params, status) => {
    const res = await get(`/api/graph/meta?${q(params)}`);
    expect(res.status).toBe(status);
    expect(typeof res.json.error).toBe('string');
    expect(res.body).not.toContain('DefaultModel');
  });

  it('percent-encoded dots in the query are decoded and refused', async () => {
    const res = await get('/api/graph/meta?run=%2e%2e&tag=outside');
    expect(res.status).toBe(400);
    const res2 = await get('/api/graph/meta?run=%2e%2e%2foutside&tag=secret');
    expect(res2.status).toBe(400);
  });

  it.each([
    '/../outside/secret.vis',
    '/..%2f..%2fetc%2fpasswd',
    '/%2e%2e/%2e%2e/etc/passwd',
    '/%2e%2e%2flogs%2flegacy_compare.vis',
    '/legacy_compare.vis',
  ])(
    'static %s → 4xx JSON, nothing but the app folder',
    async (p) => {
      const res = await get(p);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.json.error).toBeTypeOf('string');
      expect(res.body).not.toMatch(/root:|DefaultModel|AddThree/);
    },
  );

  it('a Host header other than localhost is refused on a loopback bind (DNS rebinding)', async () => {
    const res = await get('/api/runs', { Host: 'evil.example:6008' });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatch(/evil\.example/);
    expect((await get('/api/runs', { Host: `localhost:${served.port}` })).status).toBe(200);
  });
});

describe('static app, headers, errors', () => {
  it('/ serves the app’s index.html', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.body).toContain('probeboard test app');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it.each(['/', '/api/runs', '/api/graph/meta?run=..&tag=x', '/nope', '/api/nope'])('security headers on %s', async (p) => {
    const res = await get(p);
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('unknown API route and missing parameters are JSON errors, never 200', async () => {
    const nope = await get('/api/nope');
    expect(nope.status).toBe(404);
    expect(nope.json).toEqual({ error: 'not found: /api/nope' });
    const missing = await get('/api/graph/meta?run=.');
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual({ error: 'missing query parameter "tag"' });
    const twice = await get('/api/graph/meta?run=.&run=lm&tag=x');
    expect(twice.status).toBe(400);
  });

  it('zh-CN messages via ?lang= and Accept-Language', async () => {
    const viaQuery = await get(`/api/graph/meta?${q({ run: 'nope', tag: 'x', lang: 'zh-CN' })}`);
    expect(viaQuery.status).toBe(404);
    expect(viaQuery.json.error).toBe('日志目录中没有 run "nope"');
    const viaHeader = await get(`/api/graph/meta?${q({ run: 'bad', tag: 'notjson' })}`, {
      'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8',
    });
    expect(viaHeader.status).toBe(422);
    expect(viaHeader.json.error).toBe("bad/notjson.vis：文件无法读取（line 1:1: unexpected 't' (byte 0)）");
    const enWins = await get(`/api/graph/meta?${q({ run: 'nope', tag: 'x', lang: 'en' })}`, { 'Accept-Language': 'zh-CN' });
    expect(enWins.json.error).toBe('no run "nope" in the log directory');
    const listing = (await get('/api/runs?lang=zh-CN')).json as RunsResponse;
    expect(listing.runs.find((r) => r.run === 'db')!.tags[0].error).toBe(
      'db/run.vis.db：文件无法读取（not a SQLite database (a .vis.db starts with "SQLite format 3")）',
    );
  });
});
