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
 * errors; anything else is unexpected (still exit code 2, with a `--debug` hint).
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
    .option('--debug', 'print the stack of an unexpected failure (anywhere on the command line)')
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
 * help, 2 for usage errors, unreadable input and anything unexpected, 130/143 for a run stopped by SIGINT/SIGTERM.
 * Long-running commands (`serve`) resolve once started; the process then stays alive on its open server.
 */
export async function runCli(
  argv: readonly string[],
  registrars: CommandRegistrar[],
  io: CliIo = processIo,
): Promise<number> {
  const program = buildProgram(registrars, io);
  // A global flag, accepted after the sub-command too (commander would only take it before).
  const debug = argv.includes('--debug') || Boolean(process.env.PROBEBOARD_DEBUG);
  const args = moveLeadingFramework(argv.filter((a) => a !== '--debug'));
  try {
    await program.parseAsync(args, { from: 'user' });
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
    // Anything else is still reported as a problem of the file the command was reading, on one line.
    io.err(`probeboard: ${unexpectedLine(e, inputOf(program, args[0]))}${debug ? '' : ' (run with --debug for the stack)'}\n`);
    if (debug) io.err(`${(e as Error)?.stack ?? String(e)}\n`);
    return 2;
  }
}

/** The file a command was reading: `-i`'s path, or the tensor files; null when it has none. */
function inputOf(program: Command, name: string | undefined): string | null {
  const cmd = program.commands.find((c) => c.name() === name);
  if (!cmd) return null;
  const input: unknown = cmd.opts().input_path;
  if (typeof input === 'string') return input;
  const files = cmd.name() === 'tensor' ? cmd.args.slice(1) : [];
  return files.length ? files.join(', ') : null;
}

/** `<file>: <problem>`: the file a system error names (its `path`), else the command's input file. */
function unexpectedLine(e: unknown, input: string | null): string {
  const message = oneLine(e instanceof Error ? e.message : String(e)) || 'unexpected failure';
  const errPath = (e as NodeJS.ErrnoException | null)?.path;
  const file = typeof errPath === 'string' ? errPath : input;
  return file && !message.startsWith(`${file}:`) ? `${file}: ${message}` : message;
}
