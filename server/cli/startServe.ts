import { existsSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import { createApp } from '../http/app.js';
import { answerClientErrors } from '../http/clientError.js';
import { isLoopbackHost } from '../http/security.js';
import { createStoreCache } from '../store/openStore.js';
import { appDir as defaultAppDir, examplesDir } from './packagePaths.js';
import { UsageError } from './program.js';

/** How long answers under way may take to finish once the server is told to stop. */
const CLOSE_GRACE_MS = 500;

export interface ServeOptions {
  /** Omitted → the package's bundled `examples/`. */
  logdir?: string;
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
  const logdir = resolveLogdir(options.logdir);
  const exposed = !isLoopbackHost(options.host);
  const readOnly = options.readOnly ?? exposed;
  const stores = createStoreCache({
    cacheDir: options.cacheDir ? path.resolve(options.cacheDir) : undefined,
    cacheMaxBytes: options.cacheMaxBytes,
  });
  const app = createApp({
    logdir,
    appDir: options.appDir ?? defaultAppDir(),
    lang: options.lang,
    loopbackOnly: !exposed,
    readOnly,
    stores,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(options.port, options.host);
    s.once('listening', () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) => reject(listenError(e, options)));
  });
  answerClientErrors(server, options.lang ?? 'en');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    logdir,
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

function resolveLogdir(given: string | undefined): string {
  if (given === undefined) {
    const examples = examplesDir();
    if (!examples) throw new UsageError('no --logdir given and the bundled examples/ directory is missing');
    return examples;
  }
  const dir = path.resolve(given);
  if (!existsSync(dir)) throw new UsageError(`--logdir ${given}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new UsageError(`--logdir ${given}: not a directory`);
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
