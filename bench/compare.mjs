#!/usr/bin/env node
// npm run bench:compare [-- --cases stats-1M,tensor-2G --work DIR --keep --timeout 1200 --generate-only --bin FILE]
//
// Generates synthetic msprobe dumps (bench/dumpgen) and times `probeboard compare` on them: wall time, CPU time,
// peak RSS, rows and (real tensors) npy throughput. Prints a markdown table and writes bench/results/compare.md.
// Targets (issue 5): 10^6 statistics rows in < 15 s and < 500 MB; real-tensor compare reads npy at ≥ 300 MB/s.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDumps } from './dumpgen/generate.mjs';
import { benchCommandLine, commandUnavailable, machineLine, du, generatedOnce, mb, timedRun, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** @type {Array<{ id: string, title: string, gen: Omit<import('./dumpgen/generate.mjs').DumpOptions, 'out'> }>} */
const CASES = [
  {
    id: 'stats-1M',
    title: '2640 layers, statistics, ~1.1M rows',
    gen: { layers: 2640, bench: true, stackFrames: 3, seed: 11 },
  },
  {
    id: 'tensor-2G',
    title: 'real tensors (npy), ~2 GB',
    gen: { layers: 1, bench: true, tensor: true, seed: 12, dims: { seq: 512, hidden: 1024, heads: 8, ffn: 2048, vocab: 4096 } },
  },
];

const { args, fail, selected, bin, work, timeoutMs } = benchCommandLine('compare', repo, CASES);

/** Generates a case's dumps (reused when generated before with the same options) and its compare.json. */
function ensureDumps(/** @type {(typeof CASES)[number]} */ c) {
  const dir = path.join(work, c.id);
  const summary = generatedOnce(dir, JSON.stringify(c.gen), () => generateDumps({ ...c.gen, out: dir, layout: 'files' }));
  // `compare` takes the dump.json files themselves.
  const compareJson = path.join(dir, 'compare-files.json');
  writeFileSync(
    compareJson,
    JSON.stringify({ npu_path: path.join(summary.npuPath, 'dump.json'), bench_path: path.join(summary.benchPath, 'dump.json') }),
  );
  return { ...summary, dir, compareJson };
}

const unavailable = args['generate-only'] ? null : commandUnavailable(repo, bin, 'compare', /input_path/);
const rows = [];
let failures = 0;
mkdirSync(work, { recursive: true });
for (const c of selected) {
  if (unavailable) {
    console.error(`${c.id}: ${unavailable}`);
    rows.push({ c, status: unavailable });
    failures++;
    continue;
  }
  const dumps = ensureDumps(c);
  const gen = dumps.reused ? 'reused' : `${dumps.seconds.toFixed(1)} s`;
  if (args['generate-only']) {
    rows.push({ c, jsonBytes: dumps.jsonBytes, tensorBytes: dumps.tensorBytes, gen, status: 'generated' });
    continue;
  }
  const out = path.join(work, `${c.id}-out`);
  rmSync(out, { recursive: true, force: true });
  process.stderr.write(`${c.id} …\n`);
  const r = await timedRun(bin, ['compare', '-i', dumps.compareJson, '-o', out, '--quiet'], timeoutMs);
  const ok = r.code === 0 && !r.timedOut;
  const status = r.timedOut ? `timed out after ${args.timeout} s` : ok ? 'ok' : `exit ${r.code}: ${r.stderr.trim().split('\n')[0]}`;
  if (!ok) failures++;
  const compared = /compared (\d+) rows/.exec(r.stdout);
  const row = {
    c,
    jsonBytes: dumps.jsonBytes,
    tensorBytes: dumps.tensorBytes,
    gen,
    rows: compared ? Number(compared[1]) : undefined,
    seconds: r.seconds,
    cpu: r.cpu,
    peakKb: r.peakKb,
    outBytes: du(out),
    status,
  };
  if (dumps.tensorBytes && ok) Object.assign(row, { npyRate: dumps.tensorBytes / 1e6 / r.seconds });
  rows.push(row);
  console.error(`  ${status}, ${r.seconds.toFixed(2)} s, ${(r.peakKb / 1024).toFixed(0)} MB peak`);
  if (!args.keep) rmSync(out, { recursive: true, force: true });
  if (!args.keep) rmSync(dumps.dir, { recursive: true, force: true });
}

const lines = [
  '# `probeboard compare` benchmark',
  '',
  `${machineLine()}, load average ${os.loadavg()[0].toFixed(1)} at the end. Dumps from ` +
    'bench/dumpgen (NPU + perturbed Bench side, single rank). `npm run bench:compare` regenerates this file.',
  '',
  '| case | rows | json MB | npy MB | generate | wall s | CPU s | peak RSS MB | xlsx MB | npy MB/s | status |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ...rows
    .map((r) =>
      [
        `${r.c.id} (${r.c.title})`,
        r.rows ?? '',
        r.jsonBytes === undefined ? '' : mb(r.jsonBytes),
        r.tensorBytes ? mb(r.tensorBytes) : '',
        r.gen ?? '',
        r.seconds === undefined ? '' : r.seconds.toFixed(2),
        r.cpu === undefined || Number.isNaN(r.cpu) ? '' : r.cpu.toFixed(1),
        r.peakKb === undefined ? '' : (r.peakKb / 1024).toFixed(0),
        r.outBytes === undefined ? '' : mb(r.outBytes),
        r.npyRate === undefined ? '' : r.npyRate.toFixed(0),
        r.status,
      ].join(' | '),
    )
    .map((l) => `| ${l} |`),
  '',
  'Targets (issue 5): 10^6 statistics rows in < 15 s and < 500 MB; real-tensor compare at ≥ 300 MB/s of npy.',
  'Peak RSS includes the two reader worker threads and the tensor worker pool.',
  '',
];
writeResults(args.results, lines);
if (!args.keep && !args.work) rmSync(work, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
