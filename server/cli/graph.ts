import path from 'node:path';
import { Command, Option } from 'commander';
import type { GraphRunSummary } from '../graph/runSummary.js';
import { abortOnSignals } from '../interrupt.js';
import { acceptSpellings, spellOutFlags } from './argv.js';
import { UsageError, type CliIo } from './program.js';
import { parseIdSet, parseShard } from './shardArgs.js';
import { useBatchJitBudget } from '../jitBudget.js';

/**
 * `probeboard graph -i compare.json -o OUT [-lm [mapping.yaml]] [-oc] [-f] [--framework …] [--format vis|db]`:
 * msprobe's `graph` command line (msprobe-format.md §1.1), so commands pasted from its docs work unchanged.
 */

const SHORT_FLAGS: Record<string, string> = { '-lm': '--layer_mapping', '-oc': '--overflow_check' };

/** `-lm`/`-oc` spelled out (argv.ts `spellOutFlags`; commander cannot declare them as short flags). */
export function normalizeGraphArgv(argv: readonly string[]): string[] {
  return spellOutFlags(argv, SHORT_FLAGS);
}

interface GraphFlags {
  input_path: string;
  output_path: string;
  layer_mapping?: string | true;
  overflow_check?: boolean;
  fuzzy_match?: boolean;
  framework?: 'pytorch' | 'mindspore';
  format: 'vis' | 'db';
  quiet?: boolean;
  ranks?: string;
  steps?: string;
  shard?: string;
  shardCount?: string;
}

export function registerGraphCommand(program: Command, io?: CliIo): void {
  const say = io?.out ?? ((t: string) => void process.stdout.write(t));
  const warn = io?.err ?? ((t: string) => void process.stderr.write(t));
  const cmd = program
    .command('graph')
    .description('build (or compare) model graphs from msprobe dumps into .vis.db / .vis files')
    .requiredOption('-i, --input_path <path>', 'compare.json: {"npu_path": …, "bench_path": … (compare only)}')
    .requiredOption('-o, --output_path <dir>', 'output directory (created when missing)')
    .option('--layer_mapping [yaml]', '(-lm) layer mapping matching, optionally with a mapping file (cross-framework)')
    .option('--overflow_check', '(-oc) compute overflow levels')
    .option('-f, --fuzzy_match', 'fuzzy matching of node names')
    .addOption(new Option('--framework <name>', 'framework of the dumps (real tensors)').choices(['pytorch', 'mindspore']))
    .addOption(new Option('--format <format>', 'output: db (one .vis.db) or vis (JSON .vis files)').choices(['db', 'vis']).default('db'))
    .option('--quiet', 'no progress bar')
    .option('--ranks <list>', 'build only these ranks, e.g. 0-127,200')
    .option('--steps <list>', 'build only these steps, e.g. 0-3')
    .option('--shard <K/N|auto>', 'build the K-th (0-based) of N slices of the (step, rank) pairs; auto: from the Slurm array task or JOB_COMPLETION_INDEX')
    .option('--shard-count <N>', 'with --shard auto in a Kubernetes Indexed Job: the number of shards (completions)')
    .action(async (flags: GraphFlags) => {
      const select = {
        ranks: flags.ranks === undefined ? null : parseIdSet(flags.ranks, '--ranks'),
        steps: flags.steps === undefined ? null : parseIdSet(flags.steps, '--steps'),
      };
      if (flags.shardCount !== undefined && flags.shard === undefined) throw new UsageError('--shard-count goes with --shard auto');
      const shard = flags.shard === undefined ? undefined : parseShard(flags.shard, flags.shardCount, process.env);
      useBatchJitBudget();
      // Loaded when the command runs: the other commands' modules stay unread (start-up time).
      const { runGraphCommand } = await import('../graph/runGraph.js');
      // Ctrl-C or kill: the run removes what it wrote before the process exits (not a half-written output).
      const stop = abortOnSignals();
      const summary = await runGraphCommand({
        inputPath: flags.input_path,
        outputPath: flags.output_path,
        layerMapping: flags.layer_mapping,
        overflowCheck: flags.overflow_check,
        fuzzyMatch: flags.fuzzy_match,
        framework: flags.framework,
        format: flags.format,
        quiet: flags.quiet,
        select,
        shard,
        signal: stop.signal,
      }).finally(stop.release);
      for (const line of warningLines(summary.warnings)) warn(`probeboard: warning: ${line}\n`);
      say(`probeboard: ${summaryLine(summary)}\n`);
    });
  acceptSpellings(cmd, SHORT_FLAGS);
}

/** Distinct warnings, at most five of them plus a count. */
export function warningLines(warnings: readonly string[]): string[] {
  const distinct = [...new Set(warnings)];
  const shown = distinct.slice(0, 5);
  if (distinct.length > shown.length) shown.push(`… and ${distinct.length - shown.length} more warnings`);
  return shown;
}

/** The one-line end-of-run summary. */
export function summaryLine(s: GraphRunSummary): string {
  const graphs = `${s.graphs} ${s.kind === 'compare' ? 'graph pair' : 'graph'}${s.graphs === 1 ? '' : 's'}`;
  const where =
    s.files.length === 1 ? s.files[0] : `${s.files.length} files in ${s.files.length ? path.dirname(s.files[0]) : '?'}`;
  if (s.kind === 'build') return `built ${graphs}, ${s.nodes} nodes → ${where}`;
  return `compared ${graphs}, ${s.nodes} NPU nodes: ${s.matched} matched, ${s.unmatched} unmatched; ${verdict(s)} → ${where}`;
}

/** What the comparison found, in the terms of the file's task (msprobe-format.md §3.8). */
function verdict(s: GraphRunSummary): string {
  if (s.task === 'structure') return 'structure dump: no precision index (only shapes and dtypes are compared)';
  if (s.worstPrecisionIndex === null || s.indexed === 0) return 'no matched node has a precision index to report';
  const nodes = `${s.indexed} compared node${s.indexed === 1 ? '' : 's'}`;
  if (s.task === 'md5') {
    return s.differing === 0
      ? `md5 identical on all ${nodes} (precision index 1)`
      : `md5 differs on ${s.differing} of ${nodes}, first ${s.worstNode}`;
  }
  if (s.differing === 0) return `precision index 0 on all ${nodes}: identical`;
  const worst = Number(s.worstPrecisionIndex.toFixed(6));
  return `precision index above 0 on ${s.differing} of ${nodes}, worst ${worst} at ${s.worstNode}`;
}
