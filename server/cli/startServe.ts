import { existsSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import { createApp } from '../http/app.js';
import { createStoreCache } from '../store/openStore.js';
import { appDir as defaultAppDir, examplesDir } from './packagePaths.js';
import { UsageError } from './program.js';

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
}

export interface RunningServer {
  server: Server;
  url: string;
  logdir: string;
  close(): Promise<void>;
}

/** Checks the log dir, binds, resolves once listening. Throws UsageError (one line) for a bad dir or a busy port. */
export async function startServe(options: ServeOptions): Promise<RunningServer> {
  const logdir = resolveLogdir(options.logdir);
  const app = createApp({
    logdir,
    appDir: options.appDir ?? defaultAppDir(),
    lang: options.lang,
    loopbackOnly: isLoopback(options.host),
    stores: createStoreCache({
      cacheDir: options.cacheDir ? path.resolve(options.cacheDir) : undefined,
      cacheMaxBytes: options.cacheMaxBytes,
    }),
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(options.port, options.host);
    s.once('listening', () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) => reject(listenError(e, options)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    logdir,
    url: `http://${urlHost(options.host)}:${port}/#graphs`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
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

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return hostname();
  return host.includes(':') ? `[${host}]` : host;
}
