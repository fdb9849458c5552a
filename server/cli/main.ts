// The `probeboard` command (bin/probeboard.js loads the bundle of this file).
import { registerCompareCommand } from './compare.js';
import { registerGraphCommand } from './graph.js';
import { registerMergeCommand } from './merge.js';
import { runCli } from './program.js';
import { registerServeCommand } from './serve.js';
import { registerTensorCommand } from './tensor.js';

const code = await runCli(process.argv.slice(2), [registerServeCommand, registerGraphCommand, registerMergeCommand, registerCompareCommand, registerTensorCommand]);
if (code !== 0) process.exit(code);
