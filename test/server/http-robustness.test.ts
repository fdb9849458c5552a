import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServer } from '../../server/cli/startServe.js';
import { createApp } from '../../server/http/app.js';
import { CONTENT_SECURITY_POLICY, isLoopbackHost } from '../../server/http/security.js';
import { createStoreCache } from '../../server/store/openStore.js';
import { rawGet } from '../helpers/httpGet.js';
import { serveApp, type ServedApp } from '../helpers/serveApp.js';
import { repoRoot } from '../helpers/shared.js';
import { writeWideVis } from '../helpers/wideVis.js';

/**
 * Issue 12, items 9 and 10 (server side) over real sockets: non-loopback binds warn and drop the Host check,
 * Node's own parser errors answer JSON with the security headers, `serve` stops promptly on SIGTERM/SIGINT with a
 * half-sent request open, hostile precision filters are refused, and the work budget frees the loop.
 */

let tmp: string;
let logdir: string;
const appDir = () => path.join(tmp, 'app');

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'probeboard-http-robust-'));
  logdir = path.join(tmp, 'logs');
  mkdirSync(logdir);
  mkdirSync(appDir());
  copyFileSync(path.join(repoRoot, 'test/fixtures/vis/builder_build-202507.vis'), path.join(logdir, 'build.vis'));
  copyFileSync(
    path.join(repoRoot, 'test/fixtures/graph/golden/lm_pt_vs_pt_compare/db/compare_20261125220617.vis.db'),
    path.join(logdir, 'steps.vis.db'),
  );
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Sends `data` on a raw socket and resolves with everything the server wrote before closing. */
function rawExchange(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(data);
  });
}

function parseRaw(text: string): { status: number; headers: Map<string, string>; json: unknown } {
  const [head, body] = text.split('\r\n\r\n', 2);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, json: JSON.parse(body) };
}

describe('non-loopback --host (item 9)', () => {
  it('isLoopbackHost: loopback spellings keep the Host check, everything else is exposed', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', 'app.localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(h), h).toBe(true);
    }
    for (const h of ['0.0.0.0', '::', '[::]', '192.168.1.10', '10.0.0.1', 'myhost', 'example.com', '::ffff:10.0.0.1', '128.0.0.1', '127.0.0.1.evil.com', '']) {
      expect(isLoopbackHost(h), h).toBe(false);
    }
  });

  it('--host 0.0.0.0 turns the Host check off; 127.0.0.1 keeps it (and accepts any 127.x name)', async () => {
    const servers: RunningServer[] = [];
    try {
      const open = await startServe({ logdir, port: 0, host: '0.0.0.0', appDir: appDir() });
      servers.push(open);
      expect(open.exposed).toBe(true);
      const openPort = (open.server.address() as AddressInfo).port;
      expect((await rawGet(openPort, '/api/runs', { Host: 'evil.example' })).status).toBe(200);

      const local = await startServe({ logdir, port: 0, host: '127.0.0.1', appDir: appDir() });
      servers.push(local);
      expect(local.exposed).toBe(false);
      const localPort = (local.server.address() as AddressInfo).port;
      const refused = await rawGet(localPort, '/api/runs', { Host: 'evil.example' });
      expect(refused.status).toBe(403);
      expect(refused.json.error).toMatch(/evil\.example/);
      expect((await rawGet(localPort, '/api/runs', { Host: `127.0.0.2:${localPort}` })).status).toBe(200);
      expect((await rawGet(localPort, '/api/runs', { Host: `[::1]:${localPort}` })).status).toBe(200);
    } finally {
      for (const s of servers) await s.close();
    }
  });
});

describe("Node's own 400/431 answers (item 10a)", () => {
  let s: RunningServer;
  let port: number;
  beforeAll(async () => {
    s = await startServe({ logdir, port: 0, host: '127.0.0.1', appDir: appDir(), lang: 'zh-CN' });
    port = (s.server.address() as AddressInfo).port;
  });
  afterAll(() => s?.close());

  const expectSecured = (r: ReturnType<typeof parseRaw>) => {
    expect(r.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  };

  it('a malformed request line → 400 JSON with the security headers, in the server language', async () => {
    const r = parseRaw(await rawExchange(port, 'THIS IS NOT HTTP\r\n\r\n'));
    expect(r.status).toBe(400);
    expectSecured(r);
    expect(r.json).toEqual({ error: '格式错误的 HTTP 请求' });
  });

  it('80 KB of headers → 431 JSON with the security headers; the server keeps serving', async () => {
    const r = parseRaw(await rawExchange(port, `GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(80 * 1024)}\r\n\r\n`));
    expect(r.status).toBe(431);
    expectSecured(r);
    expect(r.json).toEqual({ error: '请求头过大' });
    expect((await rawGet(port, '/api/runs')).status).toBe(200);
  });
});

// The real `probeboard serve` process: the bundle that `npm run build:server` writes (as test/server/cli.test.ts).
const built = process.env.PROBEBOARD_CLI_BUNDLE ?? path.join(repoRoot, 'dist/server/cli/main.js');
(existsSync(built) ? describe : describe.skip)('probeboard serve process (items 9 and 10b)', () => {
  interface Started {
    child: ChildProcess;
    out: string;
    port: number;
    exited: Promise<number | null>;
  }
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  function startCli(args: string[]): Promise<Started> {
    const child = spawn(process.execPath, [built, 'serve', '--logdir', logdir, '--port', '0', '--cache_dir', path.join(tmp, 'cache'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return new Promise((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /:(\d+)\/#graphs\n/.exec(out);
        if (m) resolve({ child, out, port: Number(m[1]), exited });
      });
      child.stderr!.on('data', (d) => (err += d));
      void exited.then((code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
  }

  const warning = /^probeboard: warning: (--bind_all|--host \S+) serves your graphs to every machine that can reach this one/;

  it('--host 0.0.0.0 and --bind_all warn and answer any Host; the loopback default does not warn', async () => {
    for (const args of [['--host', '0.0.0.0'], ['--bind_all']]) {
      const s = await startCli(args);
      expect(s.out, args.join(' ')).toMatch(warning);
      expect(s.out).toContain(args[0] === '--host' ? '--host 0.0.0.0' : '--bind_all');
      expect((await rawGet(s.port, '/api/runs', { Host: 'graphs.lan' })).status).toBe(200);
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(143);
    }
    const local = await startCli(['--host', '127.0.0.1']);
    expect(local.out).not.toMatch(/warning/);
    expect((await rawGet(local.port, '/api/runs', { Host: 'graphs.lan' })).status).toBe(403);
    local.child.kill('SIGINT');
    expect(await local.exited).toBe(130);
  });

  it('SIGTERM with a half-sent request and an idle keep-alive connection exits 143 within 3 s', async () => {
    const s = await startCli([]);
    const idle = await new Promise<net.Socket>((resolve) => {
      const socket = net.connect(s.port, '127.0.0.1', () => {
        socket.write('GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
      });
      socket.once('data', () => resolve(socket));
    });
    const half = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => half.once('connect', r));
    half.write('GET /api/graph/meta?run=.&tag=build HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    half.on('error', () => {});
    idle.on('error', () => {});
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    s.child.kill('SIGTERM');
    const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running'), 3000))]);
    expect(code).toBe(143);
    expect(performance.now() - t0).toBeLessThan(3000);
    half.destroy();
    idle.destroy();
  });
});

describe('precision buckets (item 10)', () => {
  let served: ServedApp;
  beforeAll(async () => {
    served = await serveApp(createApp({ logdir, appDir: appDir(), lang: 'en', stores: createStoreCache({ cacheDir: path.join(tmp, 'cache') }) }));
  });
  afterAll(() => served?.close());

  const filter = (buckets: number) => {
    const precision = Array.from({ length: buckets }, (_, i) => `${i / buckets}-${(i + 1) / buckets}`).join(',');
    return rawGet(served.port, `/api/graph/filter?${new URLSearchParams({ run: '.', tag: 'steps', precision })}`);
  };

  it('1,000 buckets on a .vis.db → 400 naming the limit, not a 422 calling the file unreadable', async () => {
    const r = await filter(1000);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('query parameter "precision" must be at most 64 lo-hi buckets');
  });

  it('64 buckets still answer', async () => {
    const r = await filter(64);
    expect(r.status).toBe(200);
    expect(r.json.total).toBeGreaterThan(0);
  });
});

describe('work budget over HTTP (item 10 / issue 12 budgets)', () => {
  let wideDir: string;
  let stores: ReturnType<typeof createStoreCache>;
  beforeAll(() => {
    wideDir = path.join(tmp, 'wide-logs');
    mkdirSync(wideDir);
    writeWideVis(path.join(wideDir, 'wide.vis'), { children: 60_000 });
    // Shared by the servers below: the file is indexed once.
    stores = createStoreCache({ cacheDir: path.join(tmp, 'cache') });
  });

  async function serveWide(workBudgetMs?: number): Promise<ServedApp> {
    const served = await serveApp(createApp({ logdir: wideDir, appDir: appDir(), lang: 'en', stores, workBudgetMs }));
    // Index outside any measurement (meta is answered from the index).
    expect((await rawGet(served.port, '/api/graph/meta?run=.&tag=wide')).status).toBe(200);
    return served;
  }

  // 10,000 hits with their paths: the most work one search may ask for.
  const search = (port: number) => rawGet(port, `/api/graph/search?run=.&tag=wide&q=torch&limit=10000`);
  it('a search past a 1 ms budget answers 503 JSON naming the file, with Retry-After', async () => {
    const served = await serveWide(1);
    try {
      const r = await search(served.port);
      expect(r.status).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.json.error).toMatch(/^wide\.vis: this request needs more than 1 ms of work/);
    } finally {
      await served.close();
    }
  });
});
