import { Command, Option } from 'commander';
import { abortOnSignals } from '../interrupt.js';
import { acceptSpellings } from './argv.js';
import type { CliIo } from './program.js';

/**
 * `probeboard compare -i compare.json -o OUT [-s] [-c] [-f] [-am [yaml]] [-cm [yaml]] [-dm yaml] [-lm [yaml]] [-hl]
 * [-da] [--framework pytorch|mindspore] [--csv]`: msprobe's compare command line (msprobe-compare.md §1.1), so
 * commands pasted from its docs work unchanged (`probeboard -f mindspore compare …` too).
 */

/** msprobe's two-letter single-dash flags (argv.ts `spellOutFlags`). */
const TWO_LETTER_FLAGS: Record<string, string> = {
  '-am': '--api_mapping',
  '-cm': '--cell_mapping',
  '-dm': '--data_mapping',
  '-lm': '--layer_mapping',
  '-hl': '--highlight',
  '-da': '--diff_analyze',
};

interface CompareCliFlags {
  input_path: string;
  output_path: string | true;
  stack_mode?: boolean;
  compare_only?: boolean;
  fuzzy_match?: boolean;
  api_mapping?: string | true;
  cell_mapping?: string | true;
  data_mapping?: string;
  layer_mapping?: string | true;
  highlight?: boolean;
  diff_analyze?: boolean;
  framework: 'pytorch' | 'mindspore';
  csv?: boolean;
  quiet?: boolean;
}

export function registerCompareCommand(program: Command, io?: CliIo): void {
  const say = io?.out ?? ((t: string) => void process.stdout.write(t));
  const warn = io?.err ?? ((t: string) => void process.stderr.write(t));
  const cmd = program
    .command('compare')
    .description('compare two msprobe dumps tensor by tensor into compare_result_*.xlsx (+ advisor_*.txt)')
    .requiredOption('-i, --input_path <path>', 'compare.json: {"npu_path": …, "bench_path": …, "stack_path": …}')
    .option('-o, --output_path [dir]', 'output directory (created when missing)', './output')
    .option('-s, --stack_mode', 'show NPU_Stack_Info (only with stack_path in compare.json; else auto-detected)')
    .option('-c, --compare_only', 'no advisor file')
    .option('-f, --fuzzy_match', 'match APIs whose names differ only in the call count')
    .option('--api_mapping [yaml]', '(-am) MindSpore→PyTorch API mapping: built-in table, plus a user yaml')
    .option('--cell_mapping [yaml]', '(-cm) MindSpore Cell → PyTorch Module mapping, optionally with a yaml')
    .option('--data_mapping <yaml>', '(-dm) explicit NPU tensor name → bench tensor name yaml')
    .option('--layer_mapping [yaml]', '(-lm) derive the mapping from the layer structure (MindSpore)')
    .option('--highlight', '(-hl) colour suspicious rows and give the reasons in Err_message')
    .option('--diff_analyze', '(-da) first-differing-node analysis of rank directories (JSON output)')
    .addOption(new Option('--framework <name>', 'framework of the NPU dump').choices(['pytorch', 'mindspore']).default('pytorch'))
    .option('--csv', 'write the table as CSV instead of xlsx')
    .option('--quiet', 'no advisor lines on stdout, no progress bar')
    .action(async (flags: CompareCliFlags) => {
      // Loaded when the command runs (start-up time of the other commands).
      const [{ CompareProgressBar }, { runCompareCommand }] = await Promise.all([
        import('../compare/compareProgress.js'),
        import('../compare/runCompare.js'),
      ]);
      const info: string[] = [];
      const progress = new CompareProgressBar(Boolean(flags.quiet));
      // Ctrl-C or kill: the run removes what it wrote before the process exits.
      const stop = abortOnSignals();
      const summary = await runCompareCommand({
        inputPath: flags.input_path,
        outputPath: flags.output_path === true ? './output' : flags.output_path,
        stackMode: Boolean(flags.stack_mode),
        compareOnly: Boolean(flags.compare_only),
        fuzzyMatch: Boolean(flags.fuzzy_match),
        apiMapping: flags.api_mapping,
        cellMapping: flags.cell_mapping,
        dataMapping: flags.data_mapping,
        layerMapping: flags.layer_mapping,
        highlight: Boolean(flags.highlight),
        diffAnalyze: Boolean(flags.diff_analyze),
        framework: flags.framework,
        csv: Boolean(flags.csv),
        info: (line) => info.push(line),
        warn: (line) => {
          progress.clearLine();
          warn(`probeboard: warning: ${line}\n`);
        },
        progress: progress.update,
        signal: stop.signal,
      }).finally(() => {
        stop.release();
        progress.stop();
      });
      if (!flags.quiet) for (const line of info) say(`${line}\n`);
      const rows = summary.results.reduce((n, r) => n + r.rows, 0);
      const unmatched = summary.results.reduce((n, r) => n + r.unmatched, 0);
      const where = summary.files.length === 1 ? summary.files[0] : `${summary.files.length} files`;
      say(`probeboard: compared ${rows} rows (${unmatched} without bench data) → ${where}\n`);
    });
  acceptSpellings(cmd, TWO_LETTER_FLAGS);
}
