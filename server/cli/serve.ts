import { Command, Option } from 'commander';
import { matchLang } from '../i18n/pickLang.js';
import { parseLogdirSpec } from '../logdir/logRoots.js';
import { defaultCacheDir } from '../store/visJsonIndex/indexCache.js';
import { UsageError, type CliIo } from './program.js';
import type { ServeOptions } from './startServe.js';

/** `probeboard serve`'s command line; the server itself (express and the stores) loads when it starts. */
export function registerServeCommand(program: Command, io?: CliIo): void {
  program
    .command('serve')
    .description('serve the .vis graphs under a log directory to the browser')
    .addOption(
      new Option('--logdir <dir>', 'directory scanned (with sub-directories) for graph files (default: bundled examples)').conflicts('logdir_spec'),
    )
    .option('--logdir_spec <spec>', 'several log dirs as TensorBoard takes them: name1:dir1,name2:dir2 (runs name1/…); an entry without a name lists its runs as --logdir does')
    .option('--reload_interval <seconds>', 'how often the log dirs are scanned again for new and grown files; 0 = once, at startup', String(DEFAULT_RELOAD_S))
    .option('--load_fast [mode]', "TensorBoard's loader switch (false | auto | true): accepted and ignored")
    .option('--port <port>', 'TCP port', '6008')
    .addOption(new Option('--host <host>', 'address to bind').default('127.0.0.1').conflicts('bind_all'))
    .option('--bind_all', 'bind every interface (IPv6 and IPv4): anyone on your network can read the graphs (read-only unless --writable)')
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
      const reloadIntervalS = parseReloadInterval(opts.reload_interval);
      let logdir: ServeOptions['logdir'] = opts.logdir;
      if (opts.logdir_spec !== undefined) {
        try {
          logdir = parseLogdirSpec(opts.logdir_spec);
        } catch (e) {
          throw new UsageError(`--logdir_spec: ${(e as Error).message}`);
        }
      }
      if (opts.load_fast !== undefined) {
        if (typeof opts.load_fast === 'string' && !LOAD_FAST_MODES.includes(opts.load_fast)) {
          throw new UsageError(`--load_fast ${opts.load_fast}: expected false, auto or true`);
        }
        (io?.err ?? ((t: string) => process.stderr.write(t)))('probeboard: note: --load_fast is ignored (TensorBoard\'s data loader switch; probeboard has one loader)\n');
      }
      const { startServe, ALL_INTERFACES } = await import('./startServe.js');
      const host = opts.bind_all ? ALL_INTERFACES : opts.host;
      const running = await startServe({
        logdir,
        reloadIntervalS,
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

/** TensorBoard's default `--reload_interval`. */
export const DEFAULT_RELOAD_S = 5;
const LOAD_FAST_MODES = ['false', 'auto', 'true'];

interface ServeFlags {
  logdir?: string;
  logdir_spec?: string;
  reload_interval: string;
  load_fast?: string | true;
  port: string;
  host: string;
  bind_all?: boolean;
  read_only?: boolean;
  writable?: boolean;
  lang: string;
  cache_dir?: string;
  cache_max_mb: string;
}

/** Non-negative seconds, fractions allowed (TensorBoard takes a float). */
export function parseReloadInterval(text: string): number {
  const s = /^\d{1,9}(\.\d{1,6})?$/.test(text) ? Number(text) : NaN;
  if (!(s >= 0)) throw new UsageError(`--reload_interval ${text}: expected a number of seconds, 0 or more`);
  return s;
}

export function parsePort(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError(`--port ${text}: expected a port number 0-65535`);
  return port;
}
