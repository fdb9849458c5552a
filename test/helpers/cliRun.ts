import { registerCompareCommand } from '../../server/cli/compare.js';
import { registerGraphCommand } from '../../server/cli/graph.js';
import { runCli, type CliIo } from '../../server/cli/program.js';
import { registerTensorCommand } from '../../server/cli/tensor.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  ms: number;
}

/**
 * The batch commands (`graph`, `compare`, `tensor`) run in-process as `probeboard` runs them, their output captured.
 * Relative paths on the command line resolve against `cwd`, as msprobe's do.
 */
export async function runCommandLine(argv: string[], cwd = process.cwd()): Promise<CliResult> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t) };
  const prev = process.cwd();
  process.chdir(cwd);
  const t0 = performance.now();
  try {
    const registrars = [registerGraphCommand, registerCompareCommand, registerTensorCommand].map(
      (register) => (p: Parameters<typeof register>[0]) => register(p, io),
    );
    const code = await runCli(argv, registrars, io);
    return { code, out, err, ms: performance.now() - t0 };
  } finally {
    process.chdir(prev);
  }
}
