#!/usr/bin/env node
// node bench/dumpgen/cli.mjs --layers 96 --ranks 8 --steps 8 --bench --out /tmp/dump
// Writes synthetic msprobe dumps (see generate.mjs) and prints a one-line summary.
import { Command, InvalidArgumentError, Option } from 'commander';
import { generateDumps } from './generate.mjs';

/** @param {string} v */
function positiveInt(v) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

/** @param {string} v */
function layerList(v) {
  if (v === 'none') return [];
  const list = v.split(',').map(Number);
  if (list.some((n) => !Number.isInteger(n) || n < 0)) throw new InvalidArgumentError('expected e.g. 3,7 or none');
  return list;
}

const program = new Command('dumpgen')
  .description('Generate msprobe PyTorch dump directories of a synthetic GPT (forward + backward)')
  .requiredOption('--out <dir>', 'output directory (npu/, bench/, compare.json)')
  .option('--layers <n>', 'transformer layers', positiveInt, 2)
  .option('--ranks <n>', 'ranks (rank{r} directories; adds all_reduce collectives)', positiveInt, 1)
  .option('--steps <n>', 'steps (step{s}/rank{r} directories)', positiveInt, 1)
  .option('--micro-steps <n>', 'forward/backward passes per step', positiveInt, 1)
  .option('--bench', 'also write a perturbed bench side', false)
  .option('--md5', 'add md5 to tensor descriptors (md5 compare mode)', false)
  .option('--tensor', 'task "tensor": write dump_tensor_data/*.npy (small model dimensions)', false)
  .option('--overflow', 'inf/NaN in the first bad layer attention on the NPU side (for graph -oc)', false)
  .option('--bad-layers <list>', 'bench layers strongly perturbed, e.g. 3,7 (default: one at 60% depth)', layerList)
  .option('--noise <x>', 'relative bench noise of healthy layers', Number)
  .option('--fortran', 'tensor task: store 2-D parameters in Fortran order', false)
  .option('--fused', 'torch_npu fused kernels (npu_rms_norm, npu_rotary_mul, npu_fusion_attention)', false)
  .option('--forward-only', 'no backward entries (msprobe data_mode ["forward"])', false)
  .option('--distinct-stacks', 'one distinct stack per forward entry, with the real collector\'s frames (depth 7–31)', false)
  .option('--stack-frames <n>', 'keep only the n innermost frames of each stack', positiveInt)
  .option('--seq <n>', 'sequence length', positiveInt)
  .option('--hidden <n>', 'hidden size', positiveInt)
  .option('--heads <n>', 'attention heads', positiveInt)
  .option('--ffn <n>', 'MLP size', positiveInt)
  .option('--vocab <n>', 'vocabulary size', positiveInt)
  .option('--seed <n>', 'PRNG seed', (v) => Number(v), 1)
  .addOption(new Option('--stack-format <f>', 'stack.json shape').choices(['old', 'grouped']).default('old'))
  .addOption(new Option('--layout <l>', 'directory layout').choices(['auto', 'files', 'ranks', 'steps']).default('auto'))
  .option('--quiet', 'no per-rank progress lines', false);

program.parse();
const o = program.opts();
const dims = Object.fromEntries(['seq', 'hidden', 'heads', 'ffn', 'vocab'].filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
try {
  const s = generateDumps({
    out: o.out,
    layers: o.layers,
    ranks: o.ranks,
    steps: o.steps,
    microSteps: o.microSteps,
    bench: o.bench,
    md5: o.md5,
    tensor: o.tensor,
    overflow: o.overflow,
    badLayers: o.badLayers,
    noise: o.noise,
    fortran: o.fortran,
    fused: o.fused,
    forwardOnly: o.forwardOnly,
    stackFrames: o.stackFrames,
    distinctStacks: o.distinctStacks,
    seed: o.seed,
    stackFormat: o.stackFormat,
    layout: o.layout,
    dims,
    log: o.quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
  });
  const mb = (/** @type {number} */ b) => `${(b / 1e6).toFixed(1)} MB`;
  console.log(
    `${s.dumpDirs} dump dirs, ${s.nodesPerSide} entries per side, json ${mb(s.jsonBytes)}` +
      (s.tensorFiles ? `, ${s.tensorFiles} npy ${mb(s.tensorBytes)}` : '') +
      `, ${s.seconds.toFixed(1)} s → ${s.compareJson}`,
  );
} catch (e) {
  console.error(`dumpgen: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
