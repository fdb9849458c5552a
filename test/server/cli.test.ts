import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moveLeadingFramework } from '../../server/cli/argv.js';
import { examplesDir, packageRoot } from '../../server/cli/packagePaths.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { parsePort, registerServeCommand } from '../../server/cli/serve.js';
import { startServe } from '../../server/cli/startServe.js';
import { rawGet } from '../helpers/httpGet.js';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { repoRoot } from '../helpers/shared.js';
import { expectSameDb, firstDifference, goldenCases, readDb, untimed } from '../unit/graphGolden.js';

let tmp: string;
let logdir: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-cli-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis'), path.join(logdir, 'build.vis'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function captureIo(): CliIo & { outText: () => string; errText: () => string } {
  let out = '';
  let err = '';
  return { out: (t) => void (out += t), err: (t) => void (err += t), outText: () => out, errText: () => err };
}

describe('moveLeadingFramework (msprobe spelling)', () => {
  it.each([
    [['-f', 'mindspore', 'graph', '-i', 'c.json'], ['graph', '--framework', 'mindspore', '-i', 'c.json']],
    [['--framework', 'pytorch', 'graph'], ['graph', '--framework', 'pytorch']],
    [['--framework=mindspore', 'graph', '-o', 'out'], ['graph', '--framework', 'mindspore', '-o', 'out']],
    [['-fmindspore', 'graph'], ['graph', '--framework', 'mindspore']],
    [['graph', '-f', 'mindspore'], ['graph', '-f', 'mindspore']],
    [['serve', '--logdir', 'x'], ['serve', '--logdir', 'x']],
    [['-f', 'mindspore'], ['-f', 'mindspore']],
    [['-f', '--logdir'], ['-f', '--logdir']],
  ])('%j → %j', (input, expected) => {
    expect(moveLeadingFramework(input)).toEqual(expected);
  });

  it('reaches the sub-command as --framework through runCli', async () => {
    let seen: unknown;
    const io = captureIo();
    const code = await runCli(['-f', 'mindspore', 'graph', '-i', 'c.json'], [
      (p) =>
        void p
          .command('graph')
          .option('-f, --framework <name>')
          .requiredOption('-i, --input <file>')
          .action((o) => void (seen = o)),
    ], io);
    expect(code).toBe(0);
    expect(seen).toEqual({ framework: 'mindspore', input: 'c.json' });
  });
});

describe('usage errors: one line, exit code 2', () => {
  const run = async (argv: string[]) => {
    const io = captureIo();
    const code = await runCli(argv, [(p) => registerServeCommand(p, io)], io);
    return { code, err: io.errText(), out: io.outText() };
  };

  it('unknown flag', async () => {
    const r = await run(['serve', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: error: unknown option '--bogus'\n$/);
  });

  it('unknown flag close to a real one keeps the hint on the same line', async () => {
    const r = await run(['serve', '--prot', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^probeboard: error: unknown option '--prot' \(Did you mean --port\?\)\n$/);
  });

  it('missing log dir', async () => {
    const missing = path.join(tmp, 'no-such-dir');
    const r = await run(['serve', '--logdir', missing, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`probeboard: --logdir ${missing}: no such directory\n`);
  });

  it('log dir that is a file', async () => {
    const r = await run(['serve', '--logdir', path.join(logdir, 'build.vis'), '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not a directory\n$/);
  });

  it('bad port, --host with --bind_all, unknown command', async () => {
    expect((await run(['serve', '--logdir', logdir, '--port', '70000'])).err).toBe(
      'probeboard: --port 70000: expected a port number 0-65535\n',
    );
    const both = await run(['serve', '--logdir', logdir, '--host', '10.0.0.1', '--bind_all']);
    expect(both.code).toBe(2);
    expect(both.err.split('\n')).toHaveLength(2);
    for (const bad of ['0', '-5', '1.5', 'lots']) {
      const r = await run(['serve', '--logdir', logdir, '--cache_max_mb', bad]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`probeboard: --cache_max_mb ${bad}: expected a whole number of megabytes (at least 1)\n`);
    }
    const unknown = await run(['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/^probeboard: error: unknown command 'nope'/);
  });

  it('port in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const busy = (blocker.address() as { port: number }).port;
    try {
      const r = await run(['serve', '--logdir', logdir, '--port', String(busy)]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(`probeboard: port ${busy} on 127.0.0.1 is already in use (try --port N)\n`);
    } finally {
      blocker.close();
    }
  });

  it('--help exits 0', async () => {
    const r = await run(['serve', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--bind_all');
  });
});

describe('startServe', () => {
  it('binds 127.0.0.1, reports the URL and serves the log dir', async () => {
    const s = await startServe({ logdir, port: 0, host: '127.0.0.1', appDir: path.join(tmp, 'no-app') });
    try {
      const port = (s.server.address() as { port: number; address: string }).port;
      expect((s.server.address() as { address: string }).address).toBe('127.0.0.1');
      expect(s.url).toBe(`http://127.0.0.1:${port}/#graphs`);
      const runs = await rawGet(port, '/api/runs');
      expect(runs.json.runs).toEqual([
        { run: '.', tags: [{ tag: 'build', format: 'vis', graphType: 'build', sizeBytes: 1242, error: null }] },
      ]);
      const app = await rawGet(port, '/');
      expect(app.status).toBe(503);
      expect(app.json.error).toMatch(/npm run build/);
    } finally {
      await s.close();
    }
  });

  it('parsePort', () => {
    expect(parsePort('6008')).toBe(6008);
    expect(() => parsePort('-1')).toThrow(/--port -1/);
    expect(() => parsePort('abc')).toThrow(/--port abc/);
  });
});

describe('package paths', () => {
  it('finds the repo as the package root from the sources', () => {
    expect(packageRoot()).toBe(repoRoot);
    const examples = examplesDir();
    expect(examples === null || examples === path.join(repoRoot, 'examples')).toBe(true);
  });
});

// PROBEBOARD_CLI_BUNDLE points these tests at another bundle (e.g. one built in a temp dir).
const built = process.env.PROBEBOARD_CLI_BUNDLE ?? path.join(repoRoot, 'dist/server/cli/main.js');
(existsSync(built) ? describe : describe.skip)('built CLI (dist/server/cli/main.js)', () => {
  const runNode = (args: string[], untilLine?: RegExp, cwd?: string) =>
    new Promise<{ code: number | null; out: string; err: string; kill: () => void }>((resolve) => {
      const child = spawn(process.execPath, [built, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd });
      let out = '';
      let err = '';
      const kill = () => child.kill('SIGTERM');
      child.stdout.on('data', (d) => {
        out += d;
        if (untilLine?.test(out)) resolve({ code: null, out, err, kill });
      });
      child.stderr.on('data', (d) => (err += d));
      child.on('exit', (code) => resolve({ code, out, err, kill }));
    });

  it('unknown flag → exit 2, one line on stderr', async () => {
    const r = await runNode(['serve', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.err).toBe("probeboard: error: unknown option '--bogus'\n");
  });

  it('missing dir → exit 2', async () => {
    const r = await runNode(['serve', '--logdir', path.join(tmp, 'missing')]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  // The bundle loads each command's code on demand (chunks) and writes .vis.db files on its writer thread, which
  // runs from sources do not: the same golden case through the bundle.
  it('graph: a golden compare case through the bundle, both formats', async () => {
    const root = path.join(repoRoot, 'test/fixtures/graph');
    const c = goldenCases(root, 'compare').find((g) => g.name === 'multistep_compare')!;
    for (const format of ['db', 'vis']) {
      const out = path.join(tmp, `graph-${format}`);
      const r = await runNode(['graph', '-i', c.compareJson, '-o', out, '--format', format, '--quiet'], undefined, root);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^probeboard: compared 4 graph pairs, /);
      const files = readdirSync(out).map((f) => path.join(out, f));
      if (format === 'db') {
        const golden = path.join(c.dir, 'db', readdirSync(path.join(c.dir, 'db')).find((f) => f.endsWith('.vis.db'))!);
        expect(files).toHaveLength(1);
        expectSameDb(readDb(files[0]), readDb(golden));
      } else {
        const goldenDir = path.join(c.dir, 'vis-202507');
        const golden = readdirSync(goldenDir);
        expect(files.map(untimed).sort()).toEqual(golden.map(untimed).sort());
        for (const f of files) {
          const theirs = readFileSync(path.join(goldenDir, golden.find((g) => untimed(g) === untimed(f))!), 'utf8');
          expect(firstDifference(readFileSync(f, 'utf8'), theirs)).toBeNull();
        }
      }
    }
  });

  it('graph: Ctrl-C removes what the run wrote (exit 130, one line), in both formats', async () => {
    const dumps = path.join(tmp, 'sigint-dumps');
    generateDumps({ layers: 24, bench: true, seed: 5, out: dumps, log: () => {} });
    // A .vis run never waits for I/O: without turns of the event loop between its phases it would not see the signal.
    for (const format of ['db', 'vis']) {
      const out = path.join(tmp, `sigint-out-${format}`);
      const child = spawn(process.execPath, [built, 'graph', '-i', path.join(dumps, 'compare.json'), '-o', out, '--quiet', '--format', format], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // As soon as the run has a file in the making (its temporary name), interrupt it.
      for (let i = 0; i < 500 && !(existsSync(out) && readdirSync(out).some((f) => f.endsWith('.tmp'))); i++) {
        await new Promise((r) => setTimeout(r, 5));
      }
      child.kill('SIGINT');
      expect(await exited, format).toBe(130);
      expect(err).toBe('probeboard: interrupted (SIGINT); nothing was written\n');
      expect(existsSync(out)).toBe(false);
    }
  });

  it('serve prints the URL and answers', async () => {
    const r = await runNode(['serve', '--logdir', logdir, '--port', '0'], /#graphs\n/);
    try {
      const m = /^probeboard: serving (.+) at http:\/\/127\.0\.0\.1:(\d+)\/#graphs\n$/.exec(r.out);
      expect(m?.[1]).toBe(logdir);
      const res = await rawGet(Number(m![2]), '/api/runs');
      expect(res.json.runs[0].tags[0].tag).toBe('build');
    } finally {
      r.kill();
    }
  });
});
