import { Command, Option } from 'commander';
import { matchLang } from '../i18n/pickLang.js';
import { defaultCacheDir } from '../store/visJsonIndex/indexCache.js';
import { UsageError, type CliIo } from './program.js';

/** `probeboard serve`'s command line; the server itself (express and the stores) loads when it starts. */
export function registerServeCommand(program: Command, io?: CliIo): void {
  program
    .command('serve')
    .description('serve the .vis graphs under a log directory to the browser')
    .option('--logdir <dir>', 'directory scanned (with sub-directories) for .vis files (default: bundled examples)')
    .option('--port <port>', 'TCP port', '6008')
    .addOption(new Option('--host <host>', 'address to bind').default('127.0.0.1').conflicts('bind_all'))
    .option('--bind_all', 'bind 0.0.0.0 (every interface): anyone on your network can read the graphs (read-only unless --writable)')
    .addOption(new Option('--read_only', 'refuse every write (manual matches saved, match configs exported): 403').conflicts('writable'))
    .option('--writable', 'allow writes on a --bind_all or non-loopback --host server, which is read-only by default')
    .option('--lang <lang>', 'default language of server error messages: en | zh-CN', 'en')
    .option('--cache_dir <dir>', `where indexes of large .vis files are kept (default: ${defaultCacheDir()})`)
    .option('--cache_max_mb <mb>', 'size the index cache is kept under, least recently used dropped first', '4096')
    .action(async (opts: ServeFlags) => {
      const lang = matchLang(opts.lang);
      if (!lang) throw new UsageError(`--lang ${opts.lang}: expected en or zh-CN`);
      const cacheMaxMb = /^\d{1,9}$/.test(opts.cache_max_mb) ? Number(opts.cache_max_mb) : NaN;
      if (!(cacheMaxMb >= 1)) throw new UsageError(`--cache_max_mb ${opts.cache_max_mb}: expected a whole number of megabytes (at least 1)`);
      const { startServe } = await import('./startServe.js');
      const host = opts.bind_all ? '0.0.0.0' : opts.host;
      const running = await startServe({
        logdir: opts.logdir,
        port: parsePort(opts.port),
        host,
        // Writes change files in the log dir: a server other machines reach does none unless told to (issue 15).
        readOnly: opts.read_only ? true : opts.writable ? false : undefined,
        lang,
        cacheDir: opts.cache_dir,
        cacheMaxBytes: cacheMaxMb * 2 ** 20,
      });
      const say = io?.out ?? ((t: string) => process.stdout.write(t));
      if (running.exposed) {
        const flag = opts.bind_all ? '--bind_all' : `--host ${opts.host}`;
        say(`probeboard: warning: ${flag} serves your graphs to every machine that can reach this one (no Host check)\n`);
      }
      if (running.readOnly) say('probeboard: read-only: saving matches and exporting match configs are off\n');
      say(`probeboard: serving ${running.logdir} at ${running.url}\n`);
      // Exit like a stopped run (130/143) without waiting for half-sent requests: close() drops them after a grace.
      const stop = (signal: NodeJS.Signals) => void running.close().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

interface ServeFlags {
  logdir?: string;
  port: string;
  host: string;
  bind_all?: boolean;
  read_only?: boolean;
  writable?: boolean;
  lang: string;
  cache_dir?: string;
  cache_max_mb: string;
}

export function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port ${text}: expected a port number 0-65535`);
  return port;
}
