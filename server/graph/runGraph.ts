import fs from 'node:fs';
import path from 'node:path';
import { readingFile } from '../../src/core/formats/dumpFileError.js';
import { parsePyJson } from '../../src/core/formats/pyJson.js';
import { GraphFileError } from '../store/graphStore.js';
import { comparePeerUnit, compareUnit, type CompareSettings } from './compareUnit.js';
import { planRun, type DumpUnit, type RunPlan } from './dumpLayout.js';
import { openSink } from './graphSinks.js';
import { OutputDir, runTimestamp } from './outputFiles.js';
import { asGraphFileError, readText } from './readDumpDir.js';
import { buildUnit, distributedUnit, runStep, type StepContext } from './runStep.js';
import { buildKey, selectUnits, shardStem, shardUnits, type ShardSpec, type UnitSelection } from './shards.js';
import type { ShardMeta } from './shardMeta.js';
import type { GraphRunSummary } from './runSummary.js';
import { RunProgress } from './progress.js';
import { createTensorPool } from '../workers/tensorPool.js';
import { untilAborted } from '../interrupt.js';
import type { TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';

/**
 * `probeboard graph` without the command line: compare.json → dump layout → graphs → `.vis` / `.vis.db`
 * (msprobe-format.md §1–§4). Steps are processed one at a time (ranks of a step together, for cross-rank
 * matching), so memory holds one step's graphs, not the run's.
 */

export type { GraphRunSummary } from './runSummary.js';

export interface GraphCommandOptions {
  /** compare.json (`-i`). */
  inputPath: string;
  /** Output directory (`-o`), created when missing. */
  outputPath: string;
  /** `-lm`: true alone, or the mapping YAML path. */
  layerMapping?: string | boolean;
  overflowCheck?: boolean;
  fuzzyMatch?: boolean;
  framework?: 'pytorch' | 'mindspore';
  /** `db` (default, as current msprobe) or `vis` (the last JSON format). */
  format?: 'vis' | 'db';
  quiet?: boolean;
  /** Base for relative paths in compare.json; msprobe uses the current directory. */
  baseDir?: string;
  /** The run's start time, which names the outputs (default: now). */
  startedAt?: Date;
  /** Warnings and the progress bar (default: process.stderr). */
  stderr?: NodeJS.WriteStream;
  /**
   * Stops the run (Ctrl-C in the CLI): what was written is removed and the run rejects with RunInterrupted at once,
   * even in the middle of a unit (whatever the unit still does is dropped).
   */
  signal?: AbortSignal;
  /** `--ranks` / `--steps`: build only these (step, rank) pairs. */
  select?: UnitSelection;
  /** `--shard K/N`: build the K-th of N slices of the selected pairs, into files named for the build (shards.ts). */
  shard?: ShardSpec;
}

interface CompareInput {
  file: string;
  npuPath: string;
  benchPath: string | null;
}

export async function runGraphCommand(opts: GraphCommandOptions): Promise<GraphRunSummary> {
  try {
    return await run(opts);
  } catch (e) {
    throw asGraphFileError(e);
  }
}

async function run(opts: GraphCommandOptions): Promise<GraphRunSummary> {
  const ts = runTimestamp(opts.startedAt ?? new Date());
  const input = readCompareInput(opts.inputPath, opts.baseDir ?? process.cwd());
  const plan = selectUnits(planRun(input.npuPath, input.benchPath), opts.select ?? { ranks: null, steps: null }, input.npuPath);
  const kind = input.benchPath === null ? 'build' : 'compare';
  const format = opts.format ?? 'db';
  const shard = opts.shard ? shardOf(plan, opts, input, kind, format) : null;
  const summary: GraphRunSummary = {
    kind,
    files: [],
    graphs: 0,
    nodes: 0,
    matched: 0,
    unmatched: 0,
    task: '',
    worstPrecisionIndex: null,
    worstNode: null,
    indexed: 0,
    differing: 0,
    warnings: [...plan.warnings],
  };
  const units = shard ? shard.units.length : plan.steps.reduce((n, s) => n + s.length, 0);
  const progress = new RunProgress(units * 2, opts.quiet ?? false, opts.stderr);
  const settings = kind === 'compare' ? compareSettings(opts, input) : null;
  const sink = openSink(format, new OutputDir(path.resolve(opts.outputPath)), kind, shard?.stem ?? ts, shard?.meta);
  const ctx: StepContext = { plan, sink, summary, progress, overflowCheck: opts.overflowCheck ?? false, manyUnits: units > 1 };
  const processUnit = (unit: DumpUnit) => (settings ? compareUnit(unit, settings, ctx) : buildUnit(unit, ctx));
  if (shard) {
    ctx.own = new Set(shard.units);
    ctx.configRankList = shard.meta.rankList;
    ctx.configStepList = shard.meta.stepList;
    // A compare run's peer is compared for its Distributed.* nodes only; -lm's name map needs the whole dumps.
    ctx.foreignUnit = !settings
      ? (unit) => Promise.resolve({ npu: distributedUnit(unit, ctx), bench: null })
      : settings.layerMapping
        ? processUnit
        : (unit) => comparePeerUnit(unit, settings, ctx);
  }
  const work = async (): Promise<GraphRunSummary> => {
    for (const step of plan.steps) await runStep(step, ctx, processUnit);
    summary.files = await sink.commit();
    return summary;
  };
  try {
    return await untilAborted(work(), opts.signal);
  } catch (e) {
    await sink.abort();
    throw e;
  } finally {
    progress.stop();
  }
}

/** The slice a `--shard` run writes, the stem of its file names and what its `.vis.db` records (shardMeta.ts). */
function shardOf(plan: RunPlan, opts: GraphCommandOptions, input: CompareInput, kind: 'build' | 'compare', format: 'vis' | 'db') {
  const spec = opts.shard!;
  const units = shardUnits(plan, spec, input.npuPath);
  const pairs = plan.steps.flat().map((u): [number, number] => [u.step, u.rank]);
  const key = buildKey({
    kind,
    format,
    npuPath: input.npuPath,
    benchPath: input.benchPath,
    options: {
      layerMapping: opts.layerMapping ?? null,
      overflowCheck: opts.overflowCheck ?? false,
      fuzzyMatch: opts.fuzzyMatch ?? false,
      framework: opts.framework ?? null,
    },
    pairs,
    shards: spec.count,
  });
  const meta: ShardMeta = {
    build: key,
    kind,
    shard: spec.index,
    shards: spec.count,
    pairs: units.map((u) => [u.step, u.rank]),
    buildPairs: pairs.length,
    rankList: [...new Set(units.map((u) => u.rank))].sort((a, b) => a - b),
    stepList: plan.stepList.filter((s) => units.some((u) => u.step === s)),
    buildRankList: plan.steps[0].map((u) => u.rank),
    buildStepList: plan.stepList,
  };
  return { units, stem: shardStem(key, spec), meta };
}

function compareSettings(opts: GraphCommandOptions, input: CompareInput): CompareSettings {
  const lm = opts.layerMapping;
  let pool: TensorMetricsProvider | null = null;
  return {
    compareFile: input.file,
    // A named mapping file must exist; what is in it is msprobe's business (a bad file only warns).
    layerMapping: !lm ? null : { yamlText: typeof lm === 'string' ? readText(path.resolve(lm)) : null },
    fuzzyMatch: opts.fuzzyMatch ?? false,
    overflowCheck: opts.overflowCheck ?? false,
    tensorMetrics: () => (pool ??= createTensorPool()),
  };
}

/** compare.json (msprobe-format.md §1.2). */
function readCompareInput(file: string, baseDir: string): CompareInput {
  const top = readingFile(file, () => parsePyJson(readText(file), { file })) as Record<string, unknown> | unknown;
  if (top === null || typeof top !== 'object' || Array.isArray(top)) {
    throw new GraphFileError(file, 'compare.json must be a JSON object with "npu_path" (and "bench_path" to compare).');
  }
  const obj = top as Record<string, unknown>;
  if (typeof obj.npu_path !== 'string' || !obj.npu_path) {
    throw new GraphFileError(file, '"npu_path" is required and must be the path of a dump directory.');
  }
  const pm = obj.parallel_merge;
  if (pm && typeof pm === 'object' && (pm as Record<string, unknown>).npu) {
    throw new GraphFileError(file, '"parallel_merge" (TP/PP graph merging) is not supported; remove it to build per rank.');
  }
  const bench = obj.bench_path;
  if (bench !== undefined && bench !== null && bench !== '' && typeof bench !== 'string') {
    throw new GraphFileError(file, '"bench_path" must be the path of a dump directory.');
  }
  const npuPath = dumpRoot(obj.npu_path, baseDir, 'npu_path');
  const benchPath = typeof bench === 'string' && bench ? dumpRoot(bench, baseDir, 'bench_path') : null;
  return { file, npuPath, benchPath };
}

function dumpRoot(p: string, baseDir: string, key: string): string {
  const abs = path.resolve(baseDir, p);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(abs);
  } catch {
    throw new GraphFileError(abs, `The path does not exist (${key} in compare.json).`);
  }
  if (!stat.isDirectory()) throw new GraphFileError(abs, `The npu_path or bench_path should be a folder (${key}).`);
  return abs;
}
