import path from 'node:path';
import { RunInterrupted, untilAborted } from '../interrupt.js';
import type { TensorMetricsProvider } from '../../src/core/compare/compareGraphs.js';
import { DumpContentError } from '../../src/core/compareTable/dumpValidation.js';
import { DumpFileError } from '../../src/core/formats/dumpFileError.js';
import { OutputDir, runTimestamp } from '../graph/outputFiles.js';
import { createTensorPool } from '../workers/tensorPool.js';
import { readCompareInput } from './compareInput.js';
import { comparePair, type CompareFlags, type PairIo, type PairResult } from './comparePair.js';
import type { CompareProgress } from './compareProgress.js';
import { runDiffAnalyze } from './diffAnalyze.js';
import { isDir, isFile, mixChildren, rankPairs, sharedSubdirs } from './rankDirs.js';
import { notRegularFile } from './regularFile.js';

/**
 * `probeboard compare` (msprobe-compare.md §1): compare.json dispatch to one file pair, the ranks of two step
 * directories, or msprobe's graph/pynative "mix" layout; every output of the run is committed together at the end.
 */

export interface CompareCommandOptions extends CompareFlags {
  inputPath: string;
  outputPath: string;
  stackMode: boolean;
  diffAnalyze: boolean;
  info: (line: string) => void;
  warn: (line: string) => void;
  provider?: TensorMetricsProvider;
  now?: Date;
  /** Directory that relative paths (compare.json's, mapping files, output) are resolved against; default cwd. */
  cwd?: string;
  /** Worker entry for parallel reading/writing (default: the bundled one; null: one thread). */
  workerScript?: string | null;
  parallelRows?: number;
  /** Bytes read and rows written, as the run goes (the CLI's progress bar). */
  progress?: CompareProgress;
  /** Stops the run (Ctrl-C in the CLI): what was written is removed and the run rejects with RunInterrupted. */
  signal?: AbortSignal;
}

export interface CompareRunSummary {
  results: PairResult[];
  files: string[];
}

/** Problems that make msprobe skip one rank of a directory compare instead of failing the run. */
const RANK_SKIP = [/^Task for (npu|bench) is empty/, /^Missing 'data'/, /^Invalid type for 'data'/];

export async function runCompareCommand(o: CompareCommandOptions): Promise<CompareRunSummary> {
  const cwd = o.cwd ?? process.cwd();
  const resolve = (p: string | undefined) => (p === undefined ? undefined : path.resolve(cwd, p));
  o = {
    ...o,
    inputPath: resolve(o.inputPath)!,
    outputPath: resolve(o.outputPath)!,
    dataMapping: resolve(o.dataMapping),
    apiMapping: typeof o.apiMapping === 'string' ? resolve(o.apiMapping) : o.apiMapping,
    cellMapping: typeof o.cellMapping === 'string' ? resolve(o.cellMapping) : o.cellMapping,
    layerMapping: typeof o.layerMapping === 'string' ? resolve(o.layerMapping) : o.layerMapping,
  };
  const input = readCompareInput(o.inputPath, cwd);
  if (o.framework === 'pytorch' && (o.apiMapping || o.cellMapping)) {
    throw new DumpFileError(o.inputPath, 'Argument -cm or -am is not supported in PyTorch framework');
  }
  const ts = runTimestamp(o.now ?? new Date());
  const provider = o.provider ?? createTensorPool();
  const outDirs: OutputDir[] = [];
  const results: PairResult[] = [];
  const outDir = (dir: string) => {
    // Work that runs on after an interruption creates nothing more.
    if (o.signal?.aborted) throw new RunInterrupted(String(o.signal.reason));
    const d = new OutputDir(dir);
    d.prepare();
    outDirs.push(d);
    return d;
  };
  const io = (out: OutputDir): PairIo => ({
    out,
    ts,
    info: o.info,
    warn: o.warn,
    provider,
    workerScript: o.workerScript,
    parallelRows: o.parallelRows,
    progress: o.progress,
  });

  const work = async (): Promise<CompareRunSummary> => {
    const npuIsFile = isFile(input.npuPath);
    const benchIsFile = isFile(input.benchPath);
    if (npuIsFile && benchIsFile) {
      const out = outDir(o.outputPath);
      let stackJson: string | null = null;
      if (input.stackPath) {
        // msprobe honours -s only when compare.json names the stack file.
        if (o.stackMode) {
          if (!isFile(input.stackPath)) throw new DumpFileError(input.stackPath, notRegularFile(input.stackPath) ?? 'stack.json not found');
          stackJson = input.stackPath;
        }
      } else {
        const auto = path.join(path.dirname(input.npuPath), 'stack.json');
        if (isFile(auto)) stackJson = auto;
      }
      results.push(await comparePair({ npuJson: input.npuPath, benchJson: input.benchPath, stackJson, suffix: '' }, o, io(out)));
    } else if (isDir(input.npuPath) && isDir(input.benchPath)) {
      if (input.rankId !== undefined) {
        throw new DumpFileError(o.inputPath, "'rank_id' selects MindSpore kernel (static graph) compare, which probeboard does not implement");
      }
      if (input.common) {
        throw new DumpFileError(o.inputPath, "'common' selects MindSpore static-graph single-save compare, which probeboard does not implement");
      }
      const mixed = mixChildren(input.npuPath, input.benchPath);
      const steps: Array<{ npu: string; bench: string; out: string }> = [];
      if (mixed.length) {
        for (const kind of mixed) {
          const npuKind = path.join(input.npuPath, kind);
          const benchKind = path.join(input.benchPath, kind);
          for (const step of sharedSubdirs(npuKind, benchKind)) {
            steps.push({ npu: path.join(npuKind, step), bench: path.join(benchKind, step), out: path.join(o.outputPath, kind, step) });
          }
        }
      } else steps.push({ npu: input.npuPath, bench: input.benchPath, out: o.outputPath });
      for (const step of steps) {
        const out = outDir(step.out);
        if (o.diffAnalyze) {
          await runDiffAnalyze(step.npu, step.bench, o, io(out));
          continue;
        }
        for (const pair of rankPairs(step.npu, step.bench)) {
          for (const kind of ['dump.json', 'debug.json']) {
            const npuJson = path.join(pair.npuDir, kind);
            const benchJson = path.join(pair.benchDir, kind);
            if (!isFile(npuJson) || !isFile(benchJson)) continue;
            const stack = path.join(pair.npuDir, 'stack.json');
            try {
              results.push(
                await comparePair({ npuJson, benchJson, stackJson: isFile(stack) ? stack : null, suffix: pair.suffix }, o, io(out)),
              );
            } catch (e) {
              if (e instanceof DumpContentError && RANK_SKIP.some((re) => re.test(e.problem))) o.warn(e.message);
              else throw e;
            }
          }
        }
      }
    } else {
      const which = !isFile(input.npuPath) && !isDir(input.npuPath) ? input.npuPath : input.benchPath;
      if (!isFile(which) && !isDir(which)) throw new DumpFileError(which, notRegularFile(which) ?? 'not found');
      throw new DumpFileError(o.inputPath, 'npu_path and bench_path must both be dump.json files or both be step directories');
    }
    const files = outDirs.flatMap((d) => d.commit());
    return { results, files };
  };
  try {
    return await untilAborted(work(), o.signal);
  } catch (e) {
    for (const d of outDirs) d.abort();
    throw e;
  }
}
