#!/usr/bin/env node
// npm run bench:graph [-- --cases stats-96L,tensor-1G --repeat 3 --formats db,vis --work DIR --keep --timeout 1200
//                       --generate-only --bin FILE]
//
// Generates synthetic msprobe dumps (bench/dumpgen) and times `probeboard graph` on them: wall time, peak RSS and
// output size per case and output format, each the median of --repeat runs (the machine is shared: single runs are
// noisy). Prints a markdown table and writes it to bench/results/graph.md.
// Reference (issue 3): the original msprobe needs 15.7 s / 536 MB (db) and 17 s / 1 GB (JSON) for stats-96L.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDumps } from './dumpgen/generate.mjs';
import { benchCommandLine, commandUnavailable, machineLine, du, generatedOnce, mb, median, timedRun, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `args`: more `graph` options (a shard of the build).
 * @type {Array<{ id: string, title: string, gen: Omit<import('./dumpgen/generate.mjs').DumpOptions, 'out'>, args?: string[] }>}
 */
const CASES = [
  { id: 'stats-96L', title: '96 layers, 1 rank, statistics', gen: { layers: 96, bench: true, seed: 1 } },
  // One distinct stack per API (layers called from lines of their own) with the real collector's frames, ~24 MB of
  // stack.json a side, in both shapes (issue 19: memory must not grow with the stack text).
  {
    id: 'stats-96L-stacks-old',
    title: '96 layers, 1 rank, statistics, distinct stacks, `{api: [frames]}`',
    gen: { layers: 96, bench: true, seed: 1, distinctStacks: true, stackFormat: 'old' },
  },
  {
    id: 'stats-96L-stacks-grouped',
    title: '96 layers, 1 rank, statistics, distinct stacks, `{id: [[apis], [frames]]}`',
    gen: { layers: 96, bench: true, seed: 1, distinctStacks: true, stackFormat: 'grouped' },
  },
  {
    id: 'stats-384L-stacks-old',
    title: '384 layers, 1 rank, statistics, distinct stacks, `{api: [frames]}`',
    gen: { layers: 384, bench: true, seed: 1, distinctStacks: true, stackFormat: 'old' },
  },
  {
    id: 'stats-96L-8r-shard',
    title: '96 layers × 8 ranks, distinct stacks `{api: [frames]}`, `--shard 1/4` (2 ranks)',
    gen: { layers: 96, ranks: 8, bench: true, seed: 4, distinctStacks: true, stackFormat: 'old' },
    args: ['--shard', '1/4'],
  },
  {
    id: 'stats-96L-8r-8s',
    title: '96 layers × 8 ranks × 8 steps, statistics',
    gen: { layers: 96, ranks: 8, steps: 8, bench: true, seed: 2, stackFormat: 'grouped' },
  },
  {
    id: 'tensor-1G',
    title: '8 layers, 1 rank, real tensors (npy)',
    gen: { layers: 8, bench: true, tensor: true, seed: 3, dims: { seq: 128, hidden: 256, heads: 8, ffn: 512, vocab: 1024 } },
  },
];

const { args, fail, selected, bin, work, timeoutMs } = benchCommandLine('graph', repo, CASES, {
  repeat: { type: 'string', default: '3' },
  formats: { type: 'string', default: 'db,vis' },
});
const repeat = Math.max(1, Number(args.repeat) || 1);
const FORMATS = (args.formats ?? 'db,vis').split(',').filter((f) => f === 'db' || f === 'vis');
if (FORMATS.length === 0) fail('--formats: db, vis or both');

/** Generates a case's dumps unless the same options were generated there before. */
function ensureDumps(/** @type {(typeof CASES)[number]} */ c) {
  const dir = path.join(work, c.id);
  return { dir, ...generatedOnce(dir, JSON.stringify(c.gen), () => generateDumps({ ...c.gen, out: dir })) };
}

const unavailable = args['generate-only'] ? null : commandUnavailable(repo, bin, 'graph', /-i|--input/);
const rows = [];
let failures = 0;
mkdirSync(work, { recursive: true });
for (const c of selected) {
  if (unavailable) {
    console.error(`${c.id}: ${unavailable}`);
    rows.push({ c, fmt: '-', status: unavailable });
    failures++;
    continue;
  }
  const dumps = ensureDumps(c);
  const inputBytes = dumps.jsonBytes + dumps.tensorBytes;
  const gen = `${dumps.reused ? 'reused' : `${dumps.seconds.toFixed(1)} s`}`;
  if (args['generate-only']) {
    rows.push({ c, fmt: '-', nodes: dumps.nodesPerSide, inputBytes, gen, status: 'generated' });
    continue;
  }
  for (const fmt of FORMATS) {
    const out = path.join(work, `${c.id}-out-${fmt}`);
    const runs = [];
    let status = 'ok';
    let outBytes = 0;
    for (let k = 0; k < repeat; k++) {
      rmSync(out, { recursive: true, force: true });
      process.stderr.write(`${c.id} --format ${fmt} (run ${k + 1}/${repeat}) …\n`);
      const r = await timedRun(bin, ['graph', '-i', dumps.compareJson, '-o', out, '--quiet', '--format', fmt, ...(c.args ?? [])], timeoutMs);
      const ok = r.code === 0 && !r.timedOut;
      console.error(`  ${ok ? 'ok' : 'failed'}, ${r.seconds.toFixed(2)} s, ${(r.peakKb / 1024).toFixed(0)} MB peak`);
      if (!ok) {
        status = r.timedOut ? `timed out after ${args.timeout} s` : `exit ${r.code}: ${r.stderr.trim().split('\n')[0]}`;
        failures++;
        break;
      }
      runs.push(r);
      outBytes = du(out);
    }
    const row = { c, fmt, nodes: dumps.nodesPerSide, inputBytes, gen, status, runs: runs.length };
    if (runs.length) {
      Object.assign(row, {
        seconds: median(runs.map((r) => r.seconds)),
        secondsRange: [Math.min(...runs.map((r) => r.seconds)), Math.max(...runs.map((r) => r.seconds))],
        peakKb: median(runs.map((r) => r.peakKb)),
        outBytes,
      });
      if (dumps.tensorBytes && status === 'ok') Object.assign(row, { npyRate: dumps.tensorBytes / 1e6 / row.seconds });
    }
    rows.push(row);
    if (!args.keep) rmSync(out, { recursive: true, force: true });
  }
  if (!args.keep) rmSync(dumps.dir, { recursive: true, force: true });
}

const lines = [
  '# `probeboard graph` benchmark',
  '',
  `${machineLine()}. Dumps from bench/dumpgen (NPU + perturbed Bench side); ` +
    'nodes = dump entries per side summed over ranks and steps. Wall time and peak RSS are the medians of ' +
    `${repeat} run${repeat === 1 ? '' : 's'} (wall range in brackets). \`npm run bench:graph\` regenerates this file.`,
  '',
  '| case | nodes / side | input MB | generate | --format | wall s | peak RSS MB | output MB | npy MB/s | status |',
  '|---|---:|---:|---:|---|---:|---:|---:|---:|---|',
  ...rows.map((r) =>
    [
      `${r.c.id} (${r.c.title})`,
      r.nodes ?? '',
      r.inputBytes === undefined ? '' : mb(r.inputBytes),
      r.gen ?? '',
      r.fmt,
      r.seconds === undefined ? '' : `${r.seconds.toFixed(2)} (${r.secondsRange[0].toFixed(2)}–${r.secondsRange[1].toFixed(2)})`,
      r.peakKb === undefined ? '' : (r.peakKb / 1024).toFixed(0),
      r.outBytes === undefined ? '' : mb(r.outBytes),
      r.npyRate === undefined ? '' : r.npyRate.toFixed(0),
      r.status,
    ].join(' | '),
  ).map((l) => `| ${l} |`),
  '',
  'Reference (issue 3): the original msprobe `graph` needs 15.7 s / 536 MB (db) and 17 s / 1 GB (JSON) for the',
  '96-layer single-rank statistics comparison on this kind of machine. Targets: < 1 s and < 250 MB for stats-96L;',
  'the 1M-node case finishes; real-tensor compare reads npy at ≥ 300 MB/s. Issue 19: ≤ 250 MB for any 96-layer',
  'single-rank case and ≤ 400 MB for a shard, whatever the stack.json shape.',
  '',
];
writeResults(args.results, lines);
if (!args.keep && !args.work) rmSync(work, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
