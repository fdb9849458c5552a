import { Command, CommanderError } from 'commander';
import { FileProblem } from '../../src/core/fileProblem.js';
import { PyJsonError } from '../../src/core/formats/pyJson.js';
import { RunInterrupted } from '../interrupt.js';
import { moveLeadingFramework } from './argv.js';

/** A problem with how the CLI was called or with its environment: printed as one line, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Problems with what the user handed in, each naming the file (`<file>: <problem>`): a missing or unreadable path,
 * malformed JSON/YAML/npy, a mapping that does not fit, directories that do not pair up. Exit code 2, like usage
 * errors; anything else is unexpected (exit code 1).
 */
const INPUT_ERRORS = [UsageError, FileProblem, PyJsonError];

function isInputError(e: unknown): e is Error {
  return INPUT_ERRORS.some((cls) => e instanceof cls);
}

export type CommandRegistrar = (program: Command) => void;

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processIo: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** One line: commander appends hints such as "(Did you mean --port?)" on a second line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

export function buildProgram(registrars: CommandRegistrar[], io: CliIo = processIo): Command {
  const program = new Command('probeboard')
    .description('Build, compare and view msprobe precision-debugging graphs (.vis) in the browser')
    .showSuggestionAfterError(true);
  for (const register of registrars) register(program);
  // Applied after registration so sub-commands made by other modules get the same behaviour.
  for (const cmd of [program, ...program.commands]) {
    cmd.exitOverride().configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      outputError: (text, write) => write(`probeboard: ${oneLine(text)}\n`),
    });
  }
  return program;
}

/**
 * Parses and runs one command line (without `node` and the script). Resolves to the exit code: 0 for success or
 * help, 2 for usage errors and unreadable input, 130/143 for a run stopped by SIGINT/SIGTERM, 1 for anything
 * unexpected. Long-running commands (`serve`) resolve once started; the process then stays alive on its open server.
 */
export async function runCli(
  argv: readonly string[],
  registrars: CommandRegistrar[],
  io: CliIo = processIo,
): Promise<number> {
  const program = buildProgram(registrars, io);
  try {
    await program.parseAsync(moveLeadingFramework(argv), { from: 'user' });
    return 0;
  } catch (e) {
    // Commander already printed its message through outputError.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof RunInterrupted) {
      io.err(`probeboard: ${e.message}\n`);
      return e.exitCode;
    }
    if (isInputError(e)) {
      io.err(`probeboard: ${oneLine(e.message)}\n`);
      return 2;
    }
    io.err(`probeboard: ${oneLine(e instanceof Error ? e.message : String(e))}\n`);
    if (process.env.PROBEBOARD_DEBUG) io.err(`${(e as Error)?.stack ?? ''}\n`);
    return 1;
  }
}
