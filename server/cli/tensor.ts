import { Command, InvalidArgumentError } from 'commander';
import { acceptSpellings } from './argv.js';
import { UsageError, type CliIo } from './program.js';

/**
 * `probeboard tensor show FILE [-n N]` and `probeboard tensor diff A B [--atol 0.001 --rtol 0.001 -p 20]`: the `pt`
 * and `cp` commands of the precision tool in seed 003, for .npy (every numeric dtype, C or Fortran order) and torch
 * .pt files. One command with an action argument, so it shares the program's error handling (nested sub-commands
 * would not).
 */

function nonNegative(v: string): number {
  const x = Number(v);
  if (!Number.isFinite(x) || x < 0) throw new InvalidArgumentError('expected a non-negative number');
  return x;
}

function count(v: string): number {
  const x = Number(v);
  if (!Number.isInteger(x) || x < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return x;
}

interface TensorFlags {
  values: number;
  atol: number;
  rtol: number;
  print: number;
}

export function registerTensorCommand(program: Command, io?: CliIo): void {
  const say = io?.out ?? ((t: string) => void process.stdout.write(t));
  const cmd = program
    .command('tensor')
    .description('inspect (show FILE) or compare (diff LEFT RIGHT) dumped tensors (.npy / .pt)')
    .argument('<action>', 'show | diff')
    .argument('<files...>', 'show: one file; diff: left (e.g. NPU) and right (bench) files')
    .option('-n, --values <n>', 'show: how many values to print', count, 10)
    .option('--atol <x>', 'diff: absolute tolerance', nonNegative, 0.001)
    .option('--rtol <x>', 'diff: relative tolerance (against the right tensor)', nonNegative, 0.001)
    .option('-p, --print <n>', 'diff: how many of the largest errors to list', count, 20)
    .action(async (action: string, files: string[], flags: TensorFlags) => {
      // Loaded when used: the tensor readers are not part of the other commands' start-up.
      const { diffTensors, showTensor } = await import('../compare/tensorTool.js');
      if (action === 'show') {
        if (files.length !== 1) throw new UsageError('tensor show takes one file');
        say(`${showTensor(files[0], flags.values).text}\n`);
      } else if (action === 'diff') {
        if (files.length !== 2) throw new UsageError('tensor diff takes two files: LEFT RIGHT');
        say(`${diffTensors(files[0], files[1], { atol: flags.atol, rtol: flags.rtol, top: flags.print }).text}\n`);
      } else throw new UsageError(`unknown tensor action '${action}' (use show or diff)`);
    });
  // the precision tool's spellings of the tolerances
  acceptSpellings(cmd, { '-al': '--atol', '-rl': '--rtol' });
}
