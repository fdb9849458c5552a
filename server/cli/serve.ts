import { Command, Option } from 'commander';
import { existsSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import path from 'node:path';
import { createApp } from '../http/app.js';
import { matchLang } from '../i18n/pickLang.js';
import { createStoreCache } from '../store/openStore.js';
import { defaultCacheDir } from '../store/visJsonIndex/indexCache.js';
import { appDir as defaultAppDir, examplesDir } from './packagePaths.js';
import { UsageError, type CliIo } from './program.js';

export interface ServeOptions {
  /** Omitted → the package's bundled `examples/`. */
  logdir?: string;
  port: number;
  host: string;
  appDir?: string;
  lang?: 'en' | 'zh-CN';
  /** Where `.vis` indexes are cached (default: $XDG_CACHE_HOME/probeboard or ~/.cache/probeboard). */
  cacheDir?: string;
}

export interface RunningServer {
  server: Server;
  url: string;
  logdir: string;
  close(): Promise<void>;
}

export function registerServeCommand(program: Command, io?: CliIo): void {
  program
    .command('serve')
    .description('serve the .vis graphs under a log directory to the browser')
    .option('--logdir <dir>', 'directory scanned (with sub-directories) for .vis files (default: bundled examples)')
    .option('--port <port>', 'TCP port', '6008')
    .addOption(new Option('--host <host>', 'address to bind').default('127.0.0.1').conflicts('bind_all'))
    .option('--bind_all', 'bind 0.0.0.0 (every interface): anyone on your network can read the graphs')
    .option('--lang <lang>', 'default language of server error messages: en | zh-CN', 'en')
    .option('--cache_dir <dir>', `where indexes of large .vis files are kept (default: ${defaultCacheDir()})`)
    .action(async (opts: ServeFlags) => {
      const lang = matchLang(opts.lang);
      if (!lang) throw new UsageError(`--lang ${opts.lang}: expected en or zh-CN`);
      const running = await startServe({
        logdir: opts.logdir,
        port: parsePort(opts.port),
        host: opts.bind_all ? '0.0.0.0' : opts.host,
        lang,
        cacheDir: opts.cache_dir,
      });
      const say = io?.out ?? ((t: string) => process.stdout.write(t));
      if (opts.bind_all) {
        say('probeboard: warning: --bind_all serves your graphs to every machine that can reach this one\n');
      }
      say(`probeboard: serving ${running.logdir} at ${running.url}\n`);
      const stop = () => void running.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

interface ServeFlags {
  logdir?: string;
  port: string;
  host: string;
  bind_all?: boolean;
  lang: string;
  cache_dir?: string;
}

export function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port ${text}: expected a port number 0-65535`);
  return port;
}

/** Checks the log dir, binds, resolves once listening. Throws UsageError (one line) for a bad dir or a busy port. */
export async function startServe(options: ServeOptions): Promise<RunningServer> {
  const logdir = resolveLogdir(options.logdir);
  const app = createApp({
    logdir,
    appDir: options.appDir ?? defaultAppDir(),
    lang: options.lang,
    loopbackOnly: isLoopback(options.host),
    stores: createStoreCache({ cacheDir: options.cacheDir ? path.resolve(options.cacheDir) : undefined }),
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
