import { existsSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import { createApp } from '../http/app.js';
import { answerClientErrors } from '../http/clientError.js';
import { isLoopbackHost } from '../http/security.js';
import type { LogdirEntry } from '../logdir/logRoots.js';
import { createStoreCache } from '../store/openStore.js';
import { appDir as defaultAppDir, examplesDir } from './packagePaths.js';
import { UsageError } from './program.js';

/** What `--bind_all` binds: every interface, IPv6 and IPv4 (TensorBoard's `--bind_all`). */
export const ALL_INTERFACES = '::';

/** How long answers under way may take to finish once the server is told to stop. */
const CLOSE_GRACE_MS = 500;

export interface ServeOptions {
  /** A directory or `--logdir_spec`'s entries; omitted → the package's bundled `examples/`. */
  logdir?: string | readonly LogdirEntry[];
  /** `--reload_interval` seconds (0: scan once); omitted → a scan per listing request. */
  reloadIntervalS?: number;
  port: number;
  host: string;
  appDir?: string;
  lang?: 'en' | 'zh-CN';
  /** Where `.vis` indexes are cached (default: $XDG_CACHE_HOME/probeboard or ~/.cache/probeboard). */
  cacheDir?: string;
  /** The index cache is pruned to this size (default 4 GiB). */
  cacheMaxBytes?: number;
  /** Refuse write routes (403). Default: read-only when bound to a non-loopback address, writable on loopback. */
  readOnly?: boolean;
}

export interface RunningServer {
  server: Server;
  url: string;
  /** The log dir, or each spec entry `name:dir` (absolute), comma-separated. */
  logdir: string;
  /** Bound to a non-loopback address: reachable from other machines, with no Host check. */
  exposed: boolean;
  /** Write routes answer 403. */
  readOnly: boolean;
  /** Stops listening and drops every connection (idle ones at once, the rest after a short grace). */
  close(): Promise<void>;
}

/** Checks the log dir, binds, resolves once listening. Throws UsageError (one line) for a bad dir or a busy port. */
export async function startServe(options: ServeOptions): Promise<RunningServer> {
  const logdir = typeof options.logdir === 'object' ? options.logdir.map((e) => ({ ...e, dir: resolveLogdir(e.dir, '--logdir_spec') })) : resolveLogdir(options.logdir);
  const exposed = !isLoopbackHost(options.host);
  const readOnly = options.readOnly ?? exposed;
  const stores = createStoreCache({
    cacheDir: options.cacheDir ? path.resolve(options.cacheDir) : undefined,
    cacheMaxBytes: options.cacheMaxBytes,
  });
  const app = createApp({
    logdir,
    reloadIntervalS: options.reloadIntervalS,
    appDir: options.appDir ?? defaultAppDir(),
    lang: options.lang,
    loopbackOnly: !exposed,
    readOnly,
    stores,
  });
  const listen = (host: string) =>
    new Promise<Server>((resolve, reject) => {
      const s = app.listen(options.port, host);
      s.once('listening', () => resolve(s));
      s.once('error', reject);
    });
  let server: Server;
  try {
    server = await listen(options.host);
  } catch (e) {
    // `--bind_all` binds '::' (IPv6 and IPv4, as TensorBoard does); a machine without IPv6 gets every IPv4 interface.
    const code = (e as NodeJS.ErrnoException).code;
    if (options.host !== ALL_INTERFACES || (code !== 'EAFNOSUPPORT' && code !== 'EADDRNOTAVAIL')) throw listenError(e as NodeJS.ErrnoException, options);
    server = await listen('0.0.0.0').catch((e2: NodeJS.ErrnoException) => Promise.reject(listenError(e2, options)));
  }
  answerClientErrors(server, options.lang ?? 'en');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    logdir: typeof logdir === 'string' ? logdir : logdir.map((e) => (e.name === null ? e.dir : `${e.name}:${e.dir}`)).join(','),
    url: `http://${urlHost(options.host)}:${port}/#graphs`,
    exposed,
    readOnly,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          // Open files and the worker threads (find, indexing) go with the server.
          stores.closeAll();
          resolve();
        });
        // Keep-alive sockets and half-sent requests would otherwise hold close() until their timeouts (minutes).
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      }),
  };
}

function resolveLogdir(given: string | undefined, flag = '--logdir'): string {
  if (given === undefined) {
    const examples = examplesDir();
    if (!examples) throw new UsageError('no --logdir given and the bundled examples/ directory is missing');
    return examples;
  }
  const dir = path.resolve(given);
  if (!existsSync(dir)) throw new UsageError(`${flag} ${given}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`${flag} ${given}: not a directory`);
  return dir;
}

function listenError(e: NodeJS.ErrnoException, o: ServeOptions): Error {
  if (e.code === 'EADDRINUSE') return new UsageError(`port ${o.port} on ${o.host} is already in use (try --port N)`);
  if (e.code === 'EACCES') return new UsageError(`no permission to bind port ${o.port} on ${o.host}`);
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') {
    return new UsageError(`--host ${o.host}: not an address of this machine`);
  }
  return new UsageError(`cannot listen on ${o.host}:${o.port}: ${e.message}`);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return hostname();
  return host.includes(':') ? `[${host}]` : host;
}
