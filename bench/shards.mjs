#!/usr/bin/env node
// npm run bench:shards [-- --ranks 64 --layers 96 --shards 8 --parallel 1 --compare --slurm --work DIR --keep
//                        --timeout 3600 --generate-only --bin FILE]
//
// A sharded `probeboard graph` (issue 19) against a single-machine one, on a generated 96-layer × R-rank dump
// (bench/dumpgen: one all_reduce group of every rank, so each shard reads every other rank as a peer): wall time and
// peak RSS of the single build, of shard 0's ranks built alone (no peers: what a rank and a peer cost), of each of
// the N shards (run here as separate processes, --parallel at a time; or, with --slurm, as an array on the Slurm
// the machine reaches through examples/slurm/submit.sh) and of the merge; the merged file checked equal to the
// single build row for row; and the time projected for 1,000 ranks on N nodes. Dumps are kept in --work for reuse.
// Prints a markdown table and writes it to bench/results/shards.md.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { generateDumps } from './dumpgen/generate.mjs';
import { benchCommandLine, commandUnavailable, du, generatedOnce, machineLine, mb, timedRun, writeResults } from './lib/benchKit.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const { args, fail, bin, work, timeoutMs } = benchCommandLine('shards', repo, [{ id: 'shards' }], {
  ranks: { type: 'string', default: '64' },
  layers: { type: 'string', default: '96' },
  shards: { type: 'string', default: '8' },
  parallel: { type: 'string', default: '1' },
  compare: { type: 'boolean', default: false },
  slurm: { type: 'boolean', default: false },
});
const int = (/** @type {string} */ name, /** @type {number} */ min) => {
  const v = Number(args[name]);
  if (!Number.isInteger(v) || v < min) fail(`--${name} must be a whole number ≥ ${min}`);
  return v;
};
const RANKS = int('ranks', 2);
const LAYERS = int('layers', 1);
const SHARDS = int('shards', 1);
const PARALLEL = int('parallel', 1);
if (SHARDS > RANKS) fail(`--shards ${SHARDS}: at most --ranks (${RANKS})`);
const kind = args.compare ? 'compare' : 'build';
/** The projection's cluster: 1,000 ranks. */
const TARGET = 1000;

const gen = { layers: LAYERS, ranks: RANKS, steps: 1, bench: args.compare, seed: 11, stackFormat: /** @type {const} */ ('grouped') };
const dumpDir = path.join(work, `dump-${LAYERS}L-${RANKS}r${args.compare ? '-cmp' : ''}`);
mkdirSync(work, { recursive: true });
const dumps = { dir: dumpDir, ...generatedOnce(dumpDir, JSON.stringify(gen), () => generateDumps({ ...gen, out: dumpDir })) };
if (args['generate-only']) {
  console.log(`${dumps.dumpDirs} dump dirs, ${mb(dumps.jsonBytes)} MB in ${dumpDir}`);
  process.exit(0);
}
const unavailable = commandUnavailable(repo, bin, 'graph', /--shard/);
if (unavailable) fail(unavailable);

/** @param {string} what @param {string[]} argv */
async function timed(what, argv) {
  process.stderr.write(`${what} …\n`);
  const r = await timedRun(bin, argv, timeoutMs);
  if (r.code !== 0 || r.timedOut) fail(`${what}: ${r.timedOut ? `timed out after ${args.timeout} s` : `exit ${r.code}: ${r.stderr.trim().split('\n')[0]}`}`);
  console.error(`  ${r.seconds.toFixed(1)} s, ${(r.peakKb / 1024).toFixed(0)} MB peak`);
  return { seconds: r.seconds, peakMb: r.peakKb / 1024 };
}

/** The only `.vis.db` files in `dir`. @param {string} dir */
const dbFiles = (dir) => readdirSync(dir).filter((f) => f.endsWith('.vis.db')).sort().map((f) => path.join(dir, f));

// The machine may be shared: the load around the runs goes into the results.
const loadBefore = os.loadavg()[0];
const singleDir = path.join(work, 'single');
rmSync(singleDir, { recursive: true, force: true });
const single = await timed(`single ${kind}, ${RANKS} ranks`, ['graph', '-i', dumps.compareJson, '-o', singleDir, '--quiet']);
const [singleFile] = dbFiles(singleDir);

// Shard 0's ranks selected alone: the same ranks built, no peer read (the selection is the whole run).
const own0 = Math.floor(RANKS / SHARDS);
const aloneDir = path.join(work, 'alone');
rmSync(aloneDir, { recursive: true, force: true });
const alone = await timed(`--ranks 0-${own0 - 1} alone`, ['graph', '-i', dumps.compareJson, '-o', aloneDir, '--quiet', '--ranks', `0-${own0 - 1}`]);
rmSync(aloneDir, { recursive: true, force: true });

const shardDir = path.join(work, 'shards');
rmSync(shardDir, { recursive: true, force: true });
mkdirSync(shardDir, { recursive: true });
const shardStarted = performance.now();
const shards = args.slurm ? await slurmShards() : await localShards();
const shardWall = (performance.now() - shardStarted) / 1000;

const merged = path.join(work, 'merged.vis.db');
rmSync(merged, { force: true });
const merge = await timed(`merge of ${SHARDS} shards`, ['merge', ...dbFiles(shardDir), '-o', merged]);
const equal = rowDigest(merged) === rowDigest(singleFile);

/** N shards here, --parallel at a time. */
async function localShards() {
  /** @type {Array<{ seconds: number, peakMb: number }>} */
  const out = [];
  let next = 0;
  const worker = async () => {
    for (let k = next++; k < SHARDS; k = next++) {
      out[k] = await timed(`shard ${k}/${SHARDS}`, ['graph', '-i', dumps.compareJson, '-o', shardDir, '--quiet', '--shard', `${k}/${SHARDS}`]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, SHARDS) }, worker));
  return out;
}

/**
 * N shards as a Slurm array (examples/slurm/submit.sh; its merge job runs too, and this script merges again once
 * both are done, to time the merge alone), each task under /usr/bin/time -v: its wall time and peak RSS from the
 * task's output file.
 */
async function slurmShards() {
  const logs = path.join(work, 'slurm');
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });
  const submit = spawnSync(path.join(repo, 'examples/slurm/submit.sh'), [String(SHARDS), dumps.compareJson, shardDir, path.join(logs, 'slurm-merged.vis.db')], {
    cwd: logs,
    encoding: 'utf8',
    env: { ...process.env, PROBEBOARD: `/usr/bin/time -v ${process.execPath} ${bin}`, SBATCH_OUTPUT: path.join(logs, 'shard-%a.out') },
  });
  if (submit.status !== 0) fail(`--slurm: submit.sh failed: ${(submit.stderr || submit.stdout).trim().split('\n').pop()}`);
  const jobs = submit.stdout.trim().split(/\s+/);
  process.stderr.write(`slurm array ${jobs[0]} (${SHARDS} tasks), merge ${jobs[1]} …\n`);
  const deadline = Date.now() + timeoutMs;
  // Both jobs: the merge timed below then has the machine to itself.
  for (;;) {
    const q = spawnSync('squeue', ['-h', '-j', jobs.join(',')], { encoding: 'utf8' });
    if (q.status !== 0 || q.stdout.trim() === '') break;
    if (Date.now() > deadline) fail(`--slurm: jobs ${jobs.join(', ')} still queued or running after ${args.timeout} s`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  return Array.from({ length: SHARDS }, (_, k) => {
    const file = path.join(logs, `shard-${k}.out`);
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(text);
    const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)/.exec(text);
    const status = /Exit status: (\d+)/.exec(text);
    if (!rss || !wall || status?.[1] !== '0') fail(`--slurm: task ${k} did not finish (see ${file})`);
    return { seconds: Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]), peakMb: Number(rss[1]) / 1024 };
  });
}

/** A digest of every row of msprobe's three tables in rowid order (the shard table left out). @param {string} file */
function rowDigest(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const h = createHash('sha256');
    for (const t of ['tb_nodes', 'tb_stack', 'tb_config']) {
      for (const row of db.prepare(`SELECT rowid, * FROM ${t} ORDER BY rowid`).raw().iterate()) h.update(JSON.stringify(row));
    }
    return h.digest('hex');
  } finally {
    db.close();
  }
}

// The projection. Per rank built: the single build's time over its ranks (start-up spread over them). Per peer
// read: what shard 0 took beyond its ranks built alone, over the peers it read (all others: one group spans all).
const tRank = single.seconds / RANKS;
const tPeer = Math.max(0, (shards[0].seconds - alone.seconds) / (RANKS - own0));
const tMergeRank = merge.seconds / RANKS;
/** Shard time for 1,000 ranks in N shards, one a node, every rank in one group; plus the merge. @param {number} n */
const projected = (n) => {
  const per = Math.ceil(TARGET / n);
  const shard = per * tRank + (TARGET - per) * tPeer;
  return { shard, total: shard + TARGET * tMergeRank };
};
const fmtTime = (/** @type {number} */ s) => (s < 120 ? `${s.toFixed(0)} s` : `${(s / 60).toFixed(1)} min`);
const nodesList = [...new Set([SHARDS, 8, 32, 125])].sort((a, b) => a - b);

const lines = [
  '# Sharded `probeboard graph` benchmark (issue 19)',
  '',
  `${machineLine()}. ${LAYERS} layers × ${RANKS} ranks × 1 step ${kind} (bench/dumpgen, one all_reduce group of every rank; ` +
    `${mb(dumps.jsonBytes)} MB of dumps, ${dumps.nodesPerSide} nodes a side), ${SHARDS} shards ` +
    `${args.slurm ? 'as a Slurm array (examples/slurm/submit.sh)' : `run here, ${PARALLEL} at a time`}. ` +
    `Load average ${loadBefore.toFixed(1)} before the runs, ${os.loadavg()[0].toFixed(1)} after. ` +
    `Wall time and peak RSS from \`/usr/bin/time -v\` (or /proc VmHWM). \`npm run bench:shards -- --ranks ${RANKS} --shards ${SHARDS}` +
    `${args.compare ? ' --compare' : ''}${args.slurm ? ' --slurm' : ''}${PARALLEL > 1 ? ` --parallel ${PARALLEL}` : ''}\` regenerates this file.`,
  '',
  '| run | wall s | peak RSS MB | output MB |',
  '|---|---:|---:|---:|',
  `| single machine, ${RANKS} ranks | ${single.seconds.toFixed(1)} | ${single.peakMb.toFixed(0)} | ${mb(du(singleFile))} |`,
  `| shard 0's ${own0} ranks alone (\`--ranks 0-${own0 - 1}\`: no peers) | ${alone.seconds.toFixed(1)} | ${alone.peakMb.toFixed(0)} | — |`,
  ...shards.map((r, k) => `| shard ${k}/${SHARDS} (${Math.floor(((k + 1) * RANKS) / SHARDS) - Math.floor((k * RANKS) / SHARDS)} ranks) | ${r.seconds.toFixed(1)} | ${r.peakMb.toFixed(0)} | ${mb(du(dbFiles(shardDir)[k]))} |`),
  `| all ${SHARDS} shards, start to last done | ${shardWall.toFixed(1)} | — | ${mb(du(shardDir))} |`,
  `| merge | ${merge.seconds.toFixed(1)} | ${merge.peakMb.toFixed(0)} | ${mb(du(merged))} |`,
  '',
  `Merged file equal to the single build row for row (rows of tb_nodes, tb_stack, tb_config with rowids): **${equal ? 'yes' : 'NO'}**.`,
  '',
  `Projection for ${TARGET.toLocaleString('en')} ranks (one step, every rank in one communication group, as here) on N nodes, one shard of ` +
    `⌈${TARGET}/N⌉ ranks a node: T(N) = ⌈${TARGET}/N⌉ · t_rank + (${TARGET} − ⌈${TARGET}/N⌉) · t_peer + ${TARGET} · t_merge, with ` +
    `t_rank = single wall / ${RANKS} = ${tRank.toFixed(2)} s a rank ${kind === 'build' ? 'built' : 'compared'}, ` +
    `t_peer = (shard 0 wall − ranks alone wall) / ${RANKS - own0} = ${tPeer.toFixed(3)} s a peer read for its communication entries, ` +
    `t_merge = merge wall / ${RANKS} = ${tMergeRank.toFixed(3)} s a rank merged. Groups of G ranks read at most G − 1 ` +
    `peers instead of ${TARGET} − ⌈${TARGET}/N⌉. Single machine: ${TARGET} · t_rank.`,
  '',
  '| N nodes | ranks a shard | shard | + merge = total |',
  '|---:|---:|---:|---:|',
  ...nodesList.map((n) => {
    const p = projected(n);
    return `| ${n} | ${Math.ceil(TARGET / n)} | ${fmtTime(p.shard)} | ${fmtTime(p.total)} |`;
  }),
  `| 1 (single machine) | ${TARGET} | — | ${fmtTime(TARGET * tRank)} |`,
  '',
];
writeResults(args.results, lines);
if (!args.keep) {
  for (const p of [singleDir, shardDir, merged, path.join(work, 'slurm')]) rmSync(p, { recursive: true, force: true });
  if (!args.work) rmSync(work, { recursive: true, force: true });
}
process.exit(equal ? 0 : 1);
