import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDumps } from '../../bench/dumpgen/generate.mjs';
import { repoRoot } from '../helpers/shared.js';
import { addP2pRing, dbRows } from '../helpers/shards.js';

/**
 * Sharded builds on a real single-node Slurm (issue 19): munged, slurmctld and slurmd (Debian slurm-wlm and munge)
 * are started here on a configuration in a temp dir, examples/slurm/submit.sh submits the shard array and the
 * dependent merge job over a generated 8-rank × 2-step dump, and the merged file must equal a single-machine build
 * row for row. The daemons are stopped by PID afterwards, also when a test fails. Skipped (saying why) only when
 * the daemons cannot start. Runs the built CLI (PROBEBOARD_CLI_BUNDLE or dist/server/cli/main.js), as the jobs do.
 */

const bundle = process.env.PROBEBOARD_CLI_BUNDLE ?? path.join(repoRoot, 'dist/server/cli/main.js');
const probeboard = `${process.execPath} ${bundle}`;

let tmp: string;
let conf: string;
let skipReason: string | null = null;
const daemons: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], opts: { cwd?: string; timeout?: number } = {}) {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    timeout: opts.timeout ?? 30_000,
    cwd: opts.cwd,
    env: { ...process.env, SLURM_CONF: conf, PROBEBOARD: probeboard },
  });
  return { code: r.status, out: r.stdout ?? '', err: (r.stderr ?? '') + (r.error ? String(r.error) : '') };
}

function startDaemon(cmd: string, args: string[], log: string): ChildProcess {
  const out = fs.openSync(path.join(tmp, log), 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', out, out], env: { ...process.env, SLURM_CONF: conf } });
  fs.closeSync(out);
  daemons.push(child);
  return child;
}

/** SIGTERM, then SIGKILL whatever still runs after 5 s: by the PIDs started here only. */
async function stopDaemons(): Promise<void> {
  const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
  for (const c of daemons.slice().reverse()) if (alive(c)) c.kill('SIGTERM');
  const until = Date.now() + 5000;
  while (daemons.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  for (const c of daemons) if (alive(c)) c.kill('SIGKILL');
  daemons.length = 0;
}
// A test process that is itself stopped does not leave the daemons behind either.
const killOnExit = () => daemons.forEach((c) => c.exitCode === null && c.kill('SIGKILL'));

async function waitFor(what: string, check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function tail(file: string): string {
  try {
    return fs.readFileSync(path.join(tmp, file), 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '(no log)';
  }
}

/** Writes the configuration and starts the three daemons; the reason when they cannot start. */
async function startSlurm(): Promise<string | null> {
  for (const bin of ['munged', 'slurmctld', 'slurmd', 'sbatch']) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`]).status !== 0) return `${bin} is not installed (apt-get install slurm-wlm munge)`;
  }
  if (process.getuid?.() !== 0) return 'slurmd must run as root here';
  if (!fs.existsSync('/etc/munge/munge.key')) return 'no /etc/munge/munge.key (the munge package creates it)';
  const host = os.hostname().split('.')[0];
  const probe = spawnSync('slurmd', ['-C'], { encoding: 'utf8' });
  const cpus = /CPUs=(\d+)/.exec(probe.stdout ?? '')?.[1] ?? '1';
  for (const d of ['state', 'spool']) fs.mkdirSync(path.join(tmp, d));
  const key = path.join(tmp, 'munge.key');
  fs.copyFileSync('/etc/munge/munge.key', key);
  fs.chmodSync(key, 0o600);
  const socket = path.join(tmp, 'munge.sock');
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
  conf = path.join(tmp, 'slurm.conf');
  fs.writeFileSync(
    conf,
    [
      'ClusterName=probeboardtest',
      `SlurmctldHost=${host}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${socket}`,
      `StateSaveLocation=${tmp}/state`,
      `SlurmdSpoolDir=${tmp}/spool`,
      `SlurmctldPidFile=${tmp}/slurmctld.pid`,
      `SlurmdPidFile=${tmp}/slurmd.pid`,
      `SlurmctldLogFile=${tmp}/slurmctld.log`,
      `SlurmdLogFile=${tmp}/slurmd.log`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU',
      'SchedulerType=sched/backfill',
      'ReturnToService=2',
      'MpiDefault=none',
      'JobAcctGatherType=jobacct_gather/none',
      'AccountingStorageType=accounting_storage/none',
      'MinJobAge=600',
      `NodeName=${host} CPUs=${cpus} State=UNKNOWN`,
      `PartitionName=probeboard Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  process.once('exit', killOnExit);
  const munged = startDaemon(
    'munged',
    ['--foreground', '--force', `--socket=${socket}`, `--key-file=${key}`, `--pid-file=${tmp}/munged.pid`, `--seed-file=${tmp}/munge.seed`],
    'munged.out',
  );
  try {
    await waitFor('munged', () => fs.existsSync(socket) || munged.exitCode !== null, 10_000);
    if (munged.exitCode !== null) return `munged did not start: ${tail('munged.out')}`;
    startDaemon('slurmctld', ['-D', '-c', '-f', conf], 'slurmctld.out');
    startDaemon('slurmd', ['-D', '-f', conf, '-N', host], 'slurmd.out');
    await waitFor('the node', () => /\bidle\b/.test(run('sinfo', ['-h', '-o', '%T']).out) || daemons.some((d) => d.exitCode !== null), 30_000);
    const gone = daemons.find((d) => d.exitCode !== null);
    if (gone) return `${gone.spawnfile} exited: ${tail(`${gone.spawnfile}.out`)} ${tail(`${gone.spawnfile}.log`)}`;
    return null;
  } catch (e) {
    return `${(e as Error).message}: slurmctld ${tail('slurmctld.log')}; slurmd ${tail('slurmd.log')}`;
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'probeboard-slurm-'));
  skipReason = await startSlurm();
  if (skipReason) console.warn(`slurm-shards: skipped: ${skipReason}`);
}, 60_000);

afterAll(async () => {
  // Jobs first (their processes belong to slurmd's steps), then the daemons, by PID.
  if (conf && !skipReason) run('scancel', ['--full', '--quiet', `--partition=probeboard`]);
  await stopDaemons();
  process.off('exit', killOnExit);
  fs.rmSync(tmp, { recursive: true, force: true });
}, 30_000);

describe('sharded build on a single-node Slurm', () => {
  it('submit.sh: shard array + dependent merge = a single-machine build, row for row', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    expect(fs.existsSync(bundle), `${bundle} (build the server bundle)`).toBe(true);
    const dumps = generateDumps({ out: path.join(tmp, 'dumps'), layers: 1, ranks: 8, steps: 2, seed: 7, log: () => {} });
    addP2pRing(dumps.npuPath);
    const single = path.join(tmp, 'single');
    const one = run(process.execPath, [bundle, 'graph', '-i', dumps.compareJson, '-o', single, '--quiet'], { timeout: 120_000 });
    expect(one.code, one.err).toBe(0);

    const out = path.join(tmp, 'shards');
    const merged = path.join(tmp, 'merged.vis.db');
    const jobs = path.join(tmp, 'jobs');
    fs.mkdirSync(jobs);
    const submit = run(path.join(repoRoot, 'examples/slurm/submit.sh'), ['4', dumps.compareJson, out, merged], { cwd: jobs });
    expect(submit.code, submit.err).toBe(0);
    const [arrayJob, mergeJob] = submit.out.trim().split(' ');
    expect(arrayJob).toMatch(/^\d+$/);
    await waitFor('the jobs', () => run('squeue', ['-h', '-j', `${arrayJob},${mergeJob}`]).out.trim() === '', 240_000);

    const state = run('scontrol', ['show', 'job', mergeJob]).out;
    const logs = fs.readdirSync(jobs).map((f) => `${f}: ${fs.readFileSync(path.join(jobs, f), 'utf8').trim()}`);
    expect(/JobState=(\w+)/.exec(state)?.[1], logs.join('\n')).toBe('COMPLETED');
    // One task per shard: four shard files of one build, each written by its own array task.
    expect(fs.readdirSync(out).sort()).toEqual([0, 1, 2, 3].map((k) => expect.stringMatching(new RegExp(`^build_[0-9a-f]{12}_shard${k}of4\\.vis\\.db$`))));
    const shardLogs = logs.filter((l) => /^slurm-\d+_\d\.out: /.test(l)).sort();
    expect(shardLogs).toEqual([0, 1, 2, 3].map((k) => expect.stringMatching(new RegExp(`_${k}\\.out: probeboard: built 4 graphs, .*_shard${k}of4\\.vis\\.db$`))));
    const whole = fs.readdirSync(single).map((f) => path.join(single, f));
    expect(dbRows(merged)).toEqual(dbRows(whole[0]));
  }, 360_000);
});
