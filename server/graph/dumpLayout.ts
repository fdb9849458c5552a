import fs from 'node:fs';
import path from 'node:path';
import { GraphFileError } from '../store/graphStore.js';

/**
 * Which of the three dump layouts a `npu_path`/`bench_path` has, and the (step, rank) directories of a run
 * (msprobe-format.md §1.3, messages of §6).
 */

export type DumpLayout = 'files' | 'ranks' | 'steps';

const NAMING_PROBLEM =
  'The input path content does not conform to the expected naming convention. It is expected to be all ' +
  'step{number} named folders (such as step0), all rank{number} named folders (such as rank0), or all files.';

/** `check_directory_content` */
export function detectLayout(dir: string): DumpLayout {
  const entries = listDir(dir);
  if (entries.length === 0) throw new GraphFileError(dir, 'The path is empty.');
  if (entries.some((e) => e.name === 'dump_tensor_data')) return 'files';
  if (entries.every((e) => isFile(dir, e))) return 'files';
  if (entries.length === 1 && entries[0].name === 'rank') return 'ranks';
  const dirs = entries.filter((e) => isDirectory(dir, e)).map((e) => e.name);
  if (dirs.every((n) => /^rank\d+$/.test(n))) return 'ranks';
  if (dirs.every((n) => /^step\d+$/.test(n))) return 'steps';
  throw new GraphFileError(dir, NAMING_PROBLEM);
}

/** `check_and_return_dir_contents`: every entry, files included, must be `{prefix}` or `{prefix}{n}`. */
export function listNumbered(dir: string, prefix: 'rank' | 'step'): string[] {
  const pattern = new RegExp(`^${prefix}(?:0|[1-9][0-9]*)?$`);
  const names = listDir(dir).map((e) => e.name);
  for (const name of names) {
    if (!pattern.test(name)) {
      throw new GraphFileError(
        dir,
        `dump_dir contains '${name}'. Expected '${prefix}'. This name is not in the format of dump output. ` +
          `Please check and delete irrelevant files in ${dir} and try again.`,
      );
    }
  }
  return sortNumbered(names, prefix);
}

/** `get_step_or_rank_int`: `rank`/`step` alone is 0. */
export function folderNumber(name: string): number {
  const digits = name.slice(4);
  return digits === '' ? 0 : Number(digits);
}

/** Numeric order (msprobe sorts ranks by number; steps too here, so step10 follows step9). */
function sortNumbered(names: string[], _prefix: string): string[] {
  return names.slice().sort((a, b) => folderNumber(a) - folderNumber(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** One graph (or NPU/Bench pair) to build: one rank of one step. */
export interface DumpUnit {
  step: number;
  rank: number;
  /** Folder names used in JSON output names (`build_step1_rank0_…`); null when the layout has none. */
  stepDir: string | null;
  rankDir: string | null;
  npuDir: string;
  benchDir: string | null;
}

export interface RunPlan {
  layout: DumpLayout;
  /** Units grouped by step, steps in order; ranks of a step are matched across each other (§2.12). */
  steps: DumpUnit[][];
  /** `tb_config.step_list` */
  stepList: number[];
  /** Problems that do not stop the run (ranks or steps present on one side only). */
  warnings: string[];
}

export function planRun(npuPath: string, benchPath: string | null): RunPlan {
  const layout = detectLayout(npuPath);
  if (benchPath !== null) {
    const benchLayout = detectLayout(benchPath);
    if (benchLayout !== layout) {
      throw new GraphFileError(
        benchPath,
        `The directory structures of npu_path and bench_path are inconsistent (npu_path: ${layout}, bench_path: ${benchLayout}).`,
      );
    }
  }
  const warnings: string[] = [];
  if (layout === 'files') {
    const unit = { step: 0, rank: 0, stepDir: null, rankDir: null, npuDir: npuPath, benchDir: benchPath };
    return { layout, steps: [[unit]], stepList: [0], warnings };
  }
  if (layout === 'ranks') {
    return { layout, steps: [rankUnits(npuPath, benchPath, null, warnings)], stepList: [0], warnings };
  }
  const stepNames = pairNames(npuPath, benchPath, 'step', warnings);
  const steps = stepNames.map((s) =>
    rankUnits(path.join(npuPath, s), benchPath === null ? null : path.join(benchPath, s), s, warnings),
  );
  return { layout, steps, stepList: stepNames.map(folderNumber).sort((a, b) => a - b), warnings };
}

function rankUnits(npuDir: string, benchDir: string | null, stepDir: string | null, warnings: string[]): DumpUnit[] {
  const step = stepDir === null ? 0 : folderNumber(stepDir);
  return pairNames(npuDir, benchDir, 'rank', warnings).map((r) => ({
    step,
    rank: folderNumber(r),
    stepDir,
    rankDir: r,
    npuDir: path.join(npuDir, r),
    benchDir: benchDir === null ? null : path.join(benchDir, r),
  }));
}

/** The folder names of one side, or of both sides' intersection (msprobe since 2025-12). */
function pairNames(npuDir: string, benchDir: string | null, prefix: 'rank' | 'step', warnings: string[]): string[] {
  const npu = listNumbered(npuDir, prefix);
  if (benchDir === null) return npu;
  const bench = new Set(listNumbered(benchDir, prefix));
  const both = npu.filter((n) => bench.has(n));
  if (both.length === 0) {
    throw new GraphFileError(
      benchDir,
      `The ${prefix}s in the two runs are completely different. Unable to match the ${prefix}s.`,
    );
  }
  const dropped = [...npu.filter((n) => !bench.has(n)), ...[...bench].filter((n) => !npu.includes(n))];
  if (dropped.length) warnings.push(`${prefix} folders present on one side only are skipped: ${dropped.join(', ')}`);
  return both;
}

function listDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new GraphFileError(dir, `The directory is not readable (${(e as NodeJS.ErrnoException).code ?? e}).`);
  }
}

function isFile(dir: string, e: fs.Dirent): boolean {
  return e.isSymbolicLink() ? statSafe(path.join(dir, e.name))?.isFile() === true : e.isFile();
}

function isDirectory(dir: string, e: fs.Dirent): boolean {
  return e.isSymbolicLink() ? statSafe(path.join(dir, e.name))?.isDirectory() === true : e.isDirectory();
}

function statSafe(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}
