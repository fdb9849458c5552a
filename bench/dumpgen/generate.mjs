// Writes msprobe PyTorch dump directories (msprobe-format.md §1.2–§1.8) for a synthetic GPT: the NPU side and, with
// `bench`, a perturbed Bench side, in the single / rank{r} / step{s}/rank{r} layouts, plus a compare.json for
// `graph -i`. Deterministic for a seed.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gptForward } from './gpt.mjs';
import { PyJsonFileWriter, writePyJson } from './pyJson.mjs';
import { SideRenderer } from './sides.mjs';
import { stackJson } from './stacks.mjs';
import { Tracer } from './tracer.mjs';
import { hashSeed } from './random.mjs';

/** Model sizes: realistic for statistics (nothing is materialised), tiny for npy tensors. */
const STATS_DIMS = { seq: 4096, hidden: 4096, heads: 32, ffn: 11008, vocab: 32000 };
const TENSOR_DIMS = { seq: 16, hidden: 64, heads: 4, ffn: 128, vocab: 256 };

/** Bench noise per task: statistics compare relative errors of the four numbers, tensor compare per-element ones. */
const NOISE = {
  statistics: { noise: 0.01, carried: 0.1, strong: 0.6 },
  md5: { noise: 0, carried: 0.1, strong: 0.6 },
  tensor: { noise: 2e-4, carried: 3e-3, strong: 0.05 },
};

/**
 * @typedef {object} DumpOptions
 * @property {string} out
 * @property {number} [layers]
 * @property {number} [ranks]
 * @property {number} [steps]
 * @property {number} [microSteps]
 * @property {boolean} [bench]
 * @property {boolean} [md5]
 * @property {boolean} [tensor]
 * @property {boolean} [overflow]   NaN/inf in the first bad layer's attention (NPU side), for `graph -oc`
 * @property {number} [seed]
 * @property {'old' | 'grouped'} [stackFormat]
 * @property {boolean} [distinctStacks]  one distinct stack per forward entry, with the real collector's frames (stacks.mjs)
 * @property {'auto' | 'files' | 'ranks' | 'steps'} [layout]
 * @property {number[]} [badLayers]  layers strongly perturbed on the Bench side (default: one at 60 % depth)
 * @property {number} [noise]  overrides the healthy-layer noise
 * @property {boolean} [fortran]  tensor task: 2-D parameters stored in Fortran order
 * @property {boolean} [fused]  torch_npu fused kernels (npu_rms_norm, npu_rotary_mul, npu_fusion_attention)
 * @property {boolean} [forwardOnly]  msprobe data_mode ["forward"]: no backward entries, no parameter gradients
 * @property {number} [stackFrames]  keep only this many innermost frames per stack
 * @property {Partial<typeof STATS_DIMS>} [dims]
 * @property {(msg: string) => void} [log]
 */

/**
 * @typedef {object} DumpSummary
 * @property {string} compareJson
 * @property {string} npuPath
 * @property {string | null} benchPath
 * @property {number} nodesPerSide  dump entries summed over ranks and steps (construct.json + parameters_grad)
 * @property {number} dumpDirs
 * @property {number} jsonBytes
 * @property {number} tensorBytes
 * @property {number} tensorFiles
 * @property {number} seconds
 */

/** @param {DumpOptions} o @returns {'files' | 'ranks' | 'steps'} */
function layoutOf(o) {
  if (o.layout && o.layout !== 'auto') return o.layout;
  if ((o.steps ?? 1) > 1) return 'steps';
  return (o.ranks ?? 1) > 1 ? 'ranks' : 'files';
}

/**
 * @param {DumpOptions} options
 * @returns {DumpSummary}
 */
export function generateDumps(options) {
  const started = performance.now();
  const o = { layers: 2, ranks: 1, steps: 1, microSteps: 1, seed: 1, stackFormat: /** @type {'old' | 'grouped'} */ ('old'), ...options };
  const task = o.tensor ? 'tensor' : 'statistics';
  const layout = layoutOf(o);
  if (layout === 'files' && (o.ranks > 1 || o.steps > 1)) throw new Error('layout "files" holds one rank of one step');
  if (layout === 'ranks' && o.steps > 1) throw new Error('layout "ranks" holds one step');
  const badLayers = new Set(o.badLayers ?? [Math.min(o.layers - 1, Math.floor(o.layers * 0.6))]);
  const noise = { ...NOISE[o.tensor ? 'tensor' : o.md5 ? 'md5' : 'statistics'] };
  if (o.noise !== undefined) noise.noise = o.noise;
  const dims = { ...(o.tensor ? TENSOR_DIMS : STATS_DIMS), ...o.dims };
  if (dims.hidden % dims.heads !== 0 || (dims.hidden / dims.heads) % 2 !== 0)
    throw new Error(`hidden (${dims.hidden}) must split into an even head size over ${dims.heads} heads`);
  const cfg = {
    ...dims,
    layers: o.layers,
    ranks: o.ranks,
    act: o.tensor ? 'torch.float32' : 'torch.bfloat16',
    probs: o.tensor ? 'torch.float16' : 'torch.bfloat16',
    fused: Boolean(o.fused),
    overflow: Boolean(o.overflow),
    overflowLayer: Math.min(...badLayers),
  };
  const out = path.resolve(o.out);
  const sides = /** @type {Array<'npu' | 'bench'>} */ (o.bench ? ['npu', 'bench'] : ['npu']);
  /** @type {DumpSummary} */
  const summary = {
    compareJson: path.join(out, 'compare.json'),
    npuPath: path.join(out, 'npu'),
    benchPath: o.bench ? path.join(out, 'bench') : null,
    nodesPerSide: 0,
    dumpDirs: 0,
    jsonBytes: 0,
    tensorBytes: 0,
    tensorFiles: 0,
    seconds: 0,
  };
  for (let step = 0; step < o.steps; step++) {
    for (let rank = 0; rank < o.ranks; rank++) {
      const rel = layout === 'steps' ? `step${step}/rank${rank}` : layout === 'ranks' ? `rank${rank}` : '';
      const tracer = new Tracer({ seed: hashSeed(o.seed, step, rank), stackFrames: o.stackFrames, distinctStacks: o.distinctStacks });
      for (let micro = 0; micro < o.microSteps; micro++) {
        tracer.beginMicroStep();
        gptForward(tracer, cfg);
        if (!o.forwardOnly) tracer.backward(micro);
      }
      summary.nodesPerSide += tracer.data.size;
      for (const side of sides) {
        const dir = path.join(out, side, rel);
        const renderer = new SideRenderer({
          side,
          task,
          md5: Boolean(o.md5),
          perturbation: side === 'bench' ? { ...noise, badLayers } : null,
          tensorDir: o.tensor ? path.join(dir, 'dump_tensor_data') : null,
          fortran: Boolean(o.fortran),
        });
        summary.jsonBytes += writeDumpDir(dir, tracer, renderer, task, o.stackFormat);
        summary.tensorBytes += renderer.tensorBytes;
        summary.tensorFiles += renderer.tensorFiles;
        summary.dumpDirs++;
      }
      o.log?.(`step ${step} rank ${rank}: ${tracer.data.size} entries`);
    }
  }
  /** @type {Record<string, unknown>} */
  const compare = { npu_path: summary.npuPath };
  if (summary.benchPath) compare.bench_path = summary.benchPath;
  compare.is_print_compare_log = true;
  writeFileSync(summary.compareJson, `${JSON.stringify(compare, null, 2)}\n`);
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/**
 * One rank's dump directory: dump.json, construct.json, stack.json (+ dump_tensor_data/). Returns the JSON bytes.
 * @param {string} dir @param {Tracer} tracer @param {SideRenderer} renderer
 * @param {'statistics' | 'tensor'} task @param {'old' | 'grouped'} stackFormat
 */
function writeDumpDir(dir, tracer, renderer, task, stackFormat) {
  mkdirSync(dir, { recursive: true });
  if (renderer.tensorDir) mkdirSync(renderer.tensorDir, { recursive: true });
  const dump = new PyJsonFileWriter(path.join(dir, 'dump.json'), renderer.resolve);
  dump.document(
    [
      ['task', task],
      ['level', 'mix'],
      ['framework', 'pytorch'],
      ['dump_data_dir', renderer.tensorDir],
      ['data', tracer.data],
    ],
    new Set(['data']),
  );
  dump.close();
  writePyJson(path.join(dir, 'construct.json'), tracer.construct);
  writePyJson(path.join(dir, 'stack.json'), stackJson(tracer.stacks, stackFormat));
  let bytes = 0;
  for (const f of ['dump.json', 'construct.json', 'stack.json']) bytes += fileSize(path.join(dir, f));
  return bytes;
}

/** @param {string} file */
function fileSize(file) {
  return statSync(file).size;
}
