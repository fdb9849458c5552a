import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunsResponse } from '../../src/core/api/types.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { parseReloadInterval, registerServeCommand } from '../../server/cli/serve.js';
import { createApp } from '../../server/http/app.js';
import { LogRoots, parseLogdirSpec } from '../../server/logdir/logRoots.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';

/**
 * Issue 16's TensorBoard conventions for `serve`: `--logdir_spec` (runs named per entry, every containment rule per
 * directory), `--reload_interval`, `--load_fast`. The server is the real app over temp dirs.
 */
const BUILD_VIS = path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis');
const ONNX = path.join(repoRoot, 'test/fixtures/tb/torch_loop_if.onnx');
let tmp: string;
let appDir: string;
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const runsOf = (body: RunsResponse) => body.runs.map((r) => [r.run, r.tags.map((t) => t.tag)]);
const stores = () => createStoreCache({ cacheDir: null, indexWorkerScript: null, findWorkerScript: null, tbWorkerScript: null });

function put(rel: string, from: string): void {
  mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
  copyFileSync(from, path.join(tmp, rel));
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-spec-'));
  appDir = path.join(tmp, 'app');
  mkdirSync(appDir);
  writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><title>probeboard test app</title>');
  put('one/build.vis', BUILD_VIS);
  put('one/sub/model.onnx', ONNX);
  put('two/build.vis', BUILD_VIS);
  put('two/secret/other.vis', BUILD_VIS);
  writeFileSync(path.join(tmp, 'two/secret/other.vis.config'), '{}');
  put('three/x/model.onnx', ONNX);
  put('four/x/build.vis', BUILD_VIS);
  // Links from `one` into `two`: both are log dirs, but a link must stay inside its own.
  symlinkSync(path.join(tmp, 'two/secret/other.vis'), path.join(tmp, 'one/escape.vis'));
  symlinkSync(path.join(tmp, 'two/secret'), path.join(tmp, 'one/escaped-dir'));
  symlinkSync(path.join(tmp, 'two/secret/other.vis.config'), path.join(tmp, 'one/stolen.vis.config'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('parseLogdirSpec (TensorBoard\'s splitting)', () => {
  it('names, unnamed entries, paths with colons, home', () => {
    expect(parseLogdirSpec('a:/x,b:rel/y,/abs:with/colon,plain,:/unnamed')).toEqual([
      { name: 'a', dir: '/x' },
      { name: 'b', dir: 'rel/y' },
      { name: null, dir: '/abs:with/colon' },
      { name: null, dir: 'plain' },
      { name: null, dir: '/unnamed' },
    ]);
    expect(parseLogdirSpec('run:~/logs')).toEqual([{ name: 'run', dir: path.join(os.homedir(), 'logs') }]);
    expect(parseLogdirSpec('a/b:/x')).toEqual([{ name: 'a/b', dir: '/x' }]);
  });

  it('refuses what cannot name a run or a local dir, in one line', () => {
    expect(() => parseLogdirSpec('a:/x,,b:/y')).toThrow(/empty entry/);
    expect(() => parseLogdirSpec('gs://bucket/logs')).toThrow(/only local directories/);
    expect(() => parseLogdirSpec('a:')).toThrow(/no directory/);
    for (const bad of ['../up:/x', '.hidden:/x', 'a//b:/x', 'a\\b:/x']) expect(() => parseLogdirSpec(bad), bad).toThrow(/the run name/);
  });
});

describe('LogRoots', () => {
  it('locates a run in each root that may hold it; the containment root is the one holding the file', () => {
    const roots = LogRoots.open([
      { name: 'one', dir: path.join(tmp, 'one') },
      { name: null, dir: path.join(tmp, 'three') },
      { name: null, dir: path.join(tmp, 'four') },
    ]);
    expect(roots.locate('one/sub').map((c) => [c.root.name, c.parts])).toEqual([['one', ['sub']], [null, ['one', 'sub']], [null, ['one', 'sub']]]);
    expect(roots.locate('x').map((c) => c.root.real)).toEqual([path.join(tmp, 'three'), path.join(tmp, 'four')]);
    // The tensor dumps and match configs of a file in `four/x` are looked for inside `four`, never `three` or `one`.
    expect(roots.rootOf({ run: 'x', absPath: path.join(tmp, 'four/x/build.vis') })).toBe(path.join(tmp, 'four'));
    expect(roots.rootOf({ run: 'one', absPath: path.join(tmp, 'two/build.vis') })).toBeNull();
  });
});

describe('createApp over a --logdir_spec', () => {
  let served: ServedApp;
  const get = (p: string) => rawGet(served.port, p);
  beforeAll(async () => {
    const logdir = [
      { name: 'one', dir: path.join(tmp, 'one') },
      { name: 'two', dir: path.join(tmp, 'two') },
      { name: null, dir: path.join(tmp, 'three') },
      { name: null, dir: path.join(tmp, 'four') },
    ];
    served = await serveApp(createApp({ logdir, appDir, lang: 'en', stores: stores() }));
  });
  afterAll(() => served?.close());

  it('lists each entry\'s runs under its name; unnamed entries merge as TensorBoard merges them', async () => {
    const res = await get('/api/runs');
    expect(res.status).toBe(200);
    const body = res.json as RunsResponse;
    expect(runsOf(body)).toEqual([
      ['one', ['build']],
      ['one/sub', ['model.onnx']],
      ['two', ['build']],
      ['two/secret', ['other']],
      ['x', ['build', 'model.onnx']],
    ]);
    expect(body.logdir).toBe(`one:${path.join(tmp, 'one')},two:${path.join(tmp, 'two')},${path.join(tmp, 'three')},${path.join(tmp, 'four')}`);
    expect(body.runs.find((r) => r.run === 'x')!.tags.map((t) => t.format)).toEqual(['vis', 'onnx']);
  });

  it('opens a file by its named run, TensorBoard\'s `name/.` spelling of the root too, and names it so in errors', async () => {
    for (const [run, tag] of [['one', 'build'], ['one/.', 'build'], ['one/sub', 'model.onnx'], ['x', 'build'], ['x', 'model.onnx']]) {
      const res = await get(`/api/graph/meta?${q({ run, tag })}`);
      expect(res.status, `${run} ${tag}`).toBe(200);
    }
    expect((await get(`/api/graph/meta?${q({ run: 'nope', tag: 'build' })}`)).status).toBe(404);
    expect((await get(`/api/graph/meta?${q({ run: 'one/../two', tag: 'build' })}`)).status).toBe(400);
    expect((await get(`/api/graph/meta?${q({ run: 'x/.', tag: 'build' })}`)).status).toBe(400);
    const missing = await get(`/api/graph/node?${q({ run: 'one/sub', tag: 'model.onnx', node: 'nope' })}`);
    expect(missing.status).toBe(404);
  });

  it('keeps links inside their own dir: a link from one log dir into another is neither listed nor opened', async () => {
    const listed = runsOf((await get('/api/runs')).json as RunsResponse);
    expect(listed.flatMap(([, tags]) => tags)).not.toContain('escape');
    expect(listed.map(([run]) => run)).not.toContain('one/escaped-dir');
    expect((await get(`/api/graph/meta?${q({ run: 'one', tag: 'escape' })}`)).status).toBe(403);
    expect((await get(`/api/graph/meta?${q({ run: 'one/escaped-dir', tag: 'other' })}`)).status).toBe(403);
    // The same file is served under its own dir's run.
    expect((await get(`/api/graph/meta?${q({ run: 'two/secret', tag: 'other' })}`)).status).toBe(200);
    // A match config linked in from the other dir is not listed, and refused when named.
    const configs = await get(`/api/overlay/configs?${q({ run: 'one', tag: 'build' })}`);
    expect(configs.status).toBe(200);
    expect(configs.json.files).toEqual([]);
    const stolen = await get(`/api/overlay/config?${q({ run: 'one', tag: 'build', file: 'stolen.vis.config' })}`);
    expect(stolen.status).toBe(403);
    expect((await get(`/api/overlay/configs?${q({ run: 'two/secret', tag: 'other' })}`)).json.files).toEqual(['other.vis.config']);
  });
});

describe('--reload_interval', () => {
  const listed = async (s: ServedApp) => runsOf((await rawGet(s.port, '/api/runs')).json as RunsResponse);

  it('0: the startup scan is the listing for the server\'s life', async () => {
    const dir = mkdtempSync(path.join(tmp, 'reload0-'));
    copyFileSync(BUILD_VIS, path.join(dir, 'a.vis'));
    const s = await serveApp(createApp({ logdir: dir, appDir, stores: stores(), reloadIntervalS: 0 }));
    try {
      // Added before the first request, after startup: TensorBoard's `0` loads once, at startup.
      copyFileSync(BUILD_VIS, path.join(dir, 'b.vis'));
      expect(await listed(s)).toEqual([['.', ['a']]]);
      await new Promise((r) => setTimeout(r, 300));
      expect(await listed(s)).toEqual([['.', ['a']]]);
    } finally {
      await s.close();
    }
  });

  it('N seconds: new and grown files appear once the interval has passed, not before', async () => {
    const dir = mkdtempSync(path.join(tmp, 'reload-'));
    copyFileSync(BUILD_VIS, path.join(dir, 'a.vis'));
    const s = await serveApp(createApp({ logdir: dir, appDir, stores: stores(), reloadIntervalS: 0.5 }));
    try {
      expect(await listed(s)).toEqual([['.', ['a']]]);
      copyFileSync(BUILD_VIS, path.join(dir, 'b.vis'));
      copyFileSync(ONNX, path.join(dir, 'm.onnx'));
      expect(await listed(s)).toEqual([['.', ['a']]]);
      await new Promise((r) => setTimeout(r, 600));
      expect(await listed(s)).toEqual([['.', ['a', 'b', 'm.onnx']]]);
    } finally {
      await s.close();
    }
  });

  it('parseReloadInterval takes seconds ≥ 0, fractions too', () => {
    expect(parseReloadInterval('5')).toBe(5);
    expect(parseReloadInterval('0')).toBe(0);
    expect(parseReloadInterval('0.5')).toBe(0.5);
    for (const bad of ['-1', 'soon', '', '1e3']) expect(() => parseReloadInterval(bad), bad).toThrow(/--reload_interval/);
  });
});

describe('serve flags on the command line', () => {
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t) };
    const code = await runCli(argv, [(p) => registerServeCommand(p, io)], io);
    return { code, out, err };
  };
  const missing = () => path.join(tmp, 'missing');

  it('--logdir with --logdir_spec is refused in one line', async () => {
    const r = await run(['serve', '--logdir', tmp, '--logdir_spec', `a:${tmp}`]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: error: option '--logdir <dir>' cannot be used with option '--logdir_spec <spec>'\n$/);
  });

  it('a bad spec, a missing spec dir, a bad interval: one line each naming the flag', async () => {
    expect((await run(['serve', '--logdir_spec', '../a:/x'])).err).toBe('probeboard: --logdir_spec: ../a:/x: the run name "../a" has an empty, "." or ".." part, or a hidden one\n');
    expect((await run(['serve', '--logdir_spec', `a:${missing()}`])).err).toBe(`probeboard: --logdir_spec ${missing()}: no such directory\n`);
    const r = await run(['serve', '--logdir', tmp, '--reload_interval', '-2']);
    expect([r.code, r.err]).toEqual([2, 'probeboard: --reload_interval -2: expected a number of seconds, 0 or more\n']);
  });

  it('--load_fast is accepted in TensorBoard\'s spellings with a one-line note; a bad mode is refused', async () => {
    for (const flag of [['--load_fast'], ['--load_fast', 'false'], ['--load_fast=true']]) {
      // A missing log dir stops the run right after the flags are read: the note comes first.
      const r = await run(['serve', ...flag, '--logdir', missing()]);
      expect(r.err.split('\n'), flag.join(' ')).toEqual([
        'probeboard: note: --load_fast is ignored (TensorBoard\'s data loader switch; probeboard has one loader)',
        `probeboard: --logdir ${missing()}: no such directory`,
        '',
      ]);
    }
    expect((await run(['serve', '--load_fast', 'maybe', '--logdir', tmp])).err).toBe('probeboard: --load_fast maybe: expected false, auto or true\n');
  });
});
