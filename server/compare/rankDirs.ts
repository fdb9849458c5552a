import fs from 'node:fs';
import path from 'node:path';
import { DumpFileError } from '../../src/core/formats/dumpFileError.js';

/**
 * Directory input (msprobe-compare.md §1.5): `npu_path`/`bench_path` are step directories whose entries must all be
 * `rank`, `rank0`, `rank1`, …; ranks are sorted numerically and paired by position.
 */

const RANK = /^rank(?:0|[1-9][0-9]*)?$/;

function rankNumber(name: string): number {
  return name === 'rank' ? -1 : Number(name.slice(4));
}

export function rankDirs(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    throw new DumpFileError(dir, `cannot be listed (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const bad = names.sort().filter((n) => !RANK.test(n));
  if (bad.length) throw new DumpFileError(dir, notAStepDir(dir, names, bad));
  return names.sort((a, b) => rankNumber(a) - rankNumber(b));
}

/** Why `dir` is no step directory, and what to pass instead (the usual mistakes: one level too deep or too high). */
function notAStepDir(dir: string, names: string[], bad: string[]): string {
  const dump = names.find((n) => n === 'dump.json' || n === 'debug.json');
  if (dump) {
    const stack = names.includes('stack.json') ? ` (with "stack_path": "${path.join(dir, 'stack.json')}" for -s)` : '';
    return (
      `is a rank directory (it holds ${dump}), not a step directory of rank0, rank1, …: pass ` +
      `"${path.join(dir, dump)}" as the path${stack}, or the step directory "${path.dirname(dir)}"`
    );
  }
  const steps = bad.filter((n) => /^step\d+$/.test(n));
  if (steps.length === bad.length) {
    return (
      `holds ${quoteList(steps)} where rank directories (rank, rank0, rank1, …) were expected: compare takes one step ` +
      `at a time, so pass "${path.join(dir, steps[0])}" and the Bench side's ${steps[0]}`
    );
  }
  return (
    `holds ${quoteList(bad)}, which ${bad.length === 1 ? 'is not a rank directory' : 'are not rank directories'}: ` +
    'a directory input must hold only rank directories (rank, rank0, rank1, …), or pass the dump.json files themselves'
  );
}

function quoteList(names: string[]): string {
  const shown = names.slice(0, 3).map((n) => `"${n}"`).join(', ');
  return names.length > 3 ? `${shown} and ${names.length - 3} more` : shown;
}

export interface RankPair {
  npuDir: string;
  benchDir: string;
  /** `_rank0` (the NPU rank directory's name). */
  suffix: string;
}

export function rankPairs(npuStep: string, benchStep: string): RankPair[] {
  const npu = rankDirs(npuStep);
  const bench = rankDirs(benchStep);
  if (npu.length !== bench.length) {
    throw new DumpFileError(
      benchStep,
      `has ${bench.length} rank directories but ${npuStep} has ${npu.length}; the two sides must have the same ranks`,
    );
  }
  return npu.map((n, i) => ({ npuDir: path.join(npuStep, n), benchDir: path.join(benchStep, bench[i]), suffix: `_${n}` }));
}

/** Shared `graph`/`pynative` children of two directories (msprobe's "mix" layout), or [] when there are none. */
export function mixChildren(npuDir: string, benchDir: string): string[] {
  return ['graph', 'pynative'].filter(
    (k) => isDir(path.join(npuDir, k)) && isDir(path.join(benchDir, k)),
  );
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

export function sharedSubdirs(a: string, b: string): string[] {
  const list = (d: string) => fs.readdirSync(d).filter((n) => isDir(path.join(d, n)));
  const inB = new Set(list(b));
  return list(a).filter((n) => inB.has(n)).sort();
}
