#!/usr/bin/env node
// node scripts/make-examples.mjs
//
// Rebuilds examples/, the log directory `npm start` serves, with our own tools only (no ../shared): synthetic msprobe
// dumps from bench/dumpgen, turned into .vis files by `probeboard graph` (run `npm run build` first). Everything is
// built in a staging directory and swapped in with renames, so examples/ is never half-written; the previous content
// is replaced wholesale. `npm run build` runs it, so examples/ is a build product (git-ignored) and can be full-size;
// `--small` keeps each run within a size budget (for shipping the directory in a package).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDumps } from '../bench/dumpgen/generate.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(repo, 'bin/probeboard.js');
const target = path.join(repo, 'examples');
const small = process.argv.includes('--small');
const BUDGET_BYTES = 5e6; // only with --small

/**
 * Fused kernels and two-frame stacks keep the files small; the Bench side is perturbed strongly in layers 2 and 5,
 * lightly after them, and the NPU side overflows (inf/NaN) in layer 2's attention, so that `-oc` has something to flag.
 * Each run lists variants, largest first: the first one whose output fits the run's share of the budget is kept.
 */
const MODEL = { fused: true, stackFrames: 2, seed: 11, badLayers: [2, 5], overflow: true };
const RUNS = [
  {
    run: 'gpt-compare',
    about: 'a GPT, NPU vs Bench statistics; a few layers diverge, one overflows (graph -oc)',
    budget: 2.6e6,
    variants: [
      { ...MODEL, layers: 24, bench: true, fused: false, badLayers: [9, 17], stackFrames: 4 },
      { ...MODEL, layers: 8, bench: true },
      { ...MODEL, layers: 8, bench: true, forwardOnly: true },
      { ...MODEL, layers: 6, bench: true, forwardOnly: true, stackFrames: 1 },
    ],
    flags: ['-oc'],
  },
  {
    run: 'gpt-single-build',
    about: 'the NPU side of the same model as a single graph (build)',
    budget: 1e6,
    variants: [{ ...MODEL, layers: 24, fused: false, stackFrames: 4 }, { ...MODEL, layers: 8 }, { ...MODEL, layers: 8, forwardOnly: true }, { ...MODEL, layers: 4, forwardOnly: true }],
    flags: [],
  },
  {
    run: 'gpt-ranks-compare',
    about: 'a GPT on 2 tensor-parallel ranks (all_reduce collectives), one .vis per rank',
    budget: 1.4e6,
    variants: [
      { ...MODEL, layers: 2, ranks: 2, bench: true, badLayers: [1], overflow: false, seed: 12 },
      { ...MODEL, layers: 2, ranks: 2, bench: true, badLayers: [1], overflow: false, seed: 12, forwardOnly: true },
      { ...MODEL, layers: 1, ranks: 2, bench: true, badLayers: [0], overflow: false, seed: 12, forwardOnly: true },
    ],
    flags: [],
  },
];

/** @param {{ layers: number, ranks?: number, forwardOnly?: boolean }} v */
function describeVariant(v) {
  return `${v.layers} layers${v.ranks ? ` × ${v.ranks} ranks` : ''}, ${v.forwardOnly ? 'forward only' : 'forward and backward'}`;
}

/**
 * Dumps one variant and runs `probeboard graph` on it into `out`; returns the .vis files and their total size.
 * @param {(typeof RUNS)[number]} r @param {(typeof RUNS)[number]['variants'][number]} v @param {string} dumpDir @param {string} out
 */
function buildRun(r, v, dumpDir, out) {
  rmSync(out, { recursive: true, force: true });
  rmSync(dumpDir, { recursive: true, force: true });
  const summary = generateDumps({ ...v, out: dumpDir });
  const args = [bin, 'graph', '-i', summary.compareJson, '-o', out, '--quiet', '--format', 'vis', ...r.flags];
  const g = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 600_000 });
  if (g.status !== 0) throw new Error(`graph failed for ${r.run}: ${(g.stderr || g.stdout || String(g.error)).trim()}`);
  const files = existsSync(out) ? readdirSync(out).filter((f) => f.endsWith('.vis')) : [];
  if (files.length === 0) throw new Error(`graph wrote no .vis file for ${r.run}`);
  return { files, bytes: du(out) };
}

/** @param {string} msg @returns {never} */
function fail(msg) {
  console.error(`make-examples: ${msg}`);
  process.exit(1);
}

/** @param {string} p @returns {number} */
function du(p) {
  const st = statSync(p);
  return st.isDirectory() ? readdirSync(p).reduce((s, f) => s + du(path.join(p, f)), 0) : st.size;
}

if (!existsSync(path.join(repo, 'dist/server/cli/main.js'))) fail('graph command not available: run "npm run build" first');
const help = spawnSync(process.execPath, [bin, 'graph', '--help'], { encoding: 'utf8', timeout: 30_000 });
if (help.status !== 0) fail(`graph command not available: ${(help.stderr || help.stdout).trim().split('\n')[0]}`);

const started = performance.now();
const dumps = mkdtempSync(path.join(os.tmpdir(), 'probeboard-examples-'));
const staging = path.join(repo, `.examples-staging-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging);
try {
  const readme = ['# Example log directory', '', 'Served by `npm start`. Generated by `node scripts/make-examples.mjs` from synthetic', 'msprobe dumps (bench/dumpgen) with `probeboard graph`; do not edit by hand.', ''];
  for (const r of RUNS) {
    const t0 = performance.now();
    const out = path.join(staging, r.run);
    let built = { files: /** @type {string[]} */ ([]), bytes: 0 };
    let variant = r.variants[0];
    for (variant of r.variants) {
      built = buildRun(r, variant, path.join(dumps, r.run), out);
      if (!small || built.bytes <= r.budget) break;
    }
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(`${r.run}: ${describeVariant(variant)}; ${built.files.join(', ')} — ${(built.bytes / 1e6).toFixed(2)} MB, ${secs} s`);
    readme.push(`- \`${r.run}/\`: ${r.about}; ${describeVariant(variant)}.`);
  }
  writeFileSync(path.join(staging, 'README.md'), `${readme.join('\n')}\n`);
  // examples/slurm/ (the sharded-build job scripts, issue 19) is kept in git, not generated: it moves along.
  if (existsSync(path.join(target, 'slurm'))) cpSync(path.join(target, 'slurm'), path.join(staging, 'slurm'), { recursive: true });
  const total = du(staging);
  const old = path.join(repo, `.examples-old-${process.pid}`);
  if (existsSync(target)) renameSync(target, old);
  renameSync(staging, target);
  rmSync(old, { recursive: true, force: true });
  console.log(`examples/: ${(total / 1e6).toFixed(2)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (small && total > BUDGET_BYTES) console.warn(`make-examples: warning: examples/ is over the ${BUDGET_BYTES / 1e6} MB budget; shrink RUNS`);
} catch (e) {
  rmSync(staging, { recursive: true, force: true });
  fail(e instanceof Error ? e.message : String(e));
} finally {
  rmSync(dumps, { recursive: true, force: true });
}
