import type { ShardSpec } from '../graph/shards.js';
import { UsageError } from './program.js';

/**
 * `--ranks 0-127,200`, `--steps 0-3`, `--shard K/N | auto [--shard-count N]` of `probeboard graph` (issue 19).
 * `auto` takes the slice from the scheduler: a Slurm array task (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of
 * SLURM_ARRAY_TASK_COUNT, so `--array=1-8` works as well as `0-7`) or a Kubernetes Indexed Job
 * (JOB_COMPLETION_INDEX of `--shard-count`).
 */

const MAX_ID = 10_000_000;

/** A list of numbers and inclusive ranges: `0-127,200`. */
export function parseIdSet(text: string, flag: string): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const a = m ? Number(m[1]) : NaN;
    const b = m?.[2] !== undefined ? Number(m[2]) : a;
    if (!m || b < a || b > MAX_ID) {
      throw new UsageError(`${flag} ${JSON.stringify(text)}: expected numbers and ranges such as 0-127,200`);
    }
    for (let i = a; i <= b; i++) out.add(i);
  }
  return out;
}

export function parseShard(text: string, shardCount: string | undefined, env: NodeJS.ProcessEnv): ShardSpec {
  if (text !== 'auto') {
    if (shardCount !== undefined) throw new UsageError('--shard-count goes with --shard auto only');
    const m = /^(\d+)\/(\d+)$/.exec(text.trim());
    if (!m) throw new UsageError(`--shard ${JSON.stringify(text)}: expected K/N (K from 0 to N-1) or auto`);
    return checked(Number(m[1]), Number(m[2]), `--shard ${text}`);
  }
  if (env.SLURM_ARRAY_TASK_ID !== undefined) {
    const id = intOf(env.SLURM_ARRAY_TASK_ID, 'SLURM_ARRAY_TASK_ID');
    const min = env.SLURM_ARRAY_TASK_MIN === undefined ? 0 : intOf(env.SLURM_ARRAY_TASK_MIN, 'SLURM_ARRAY_TASK_MIN');
    const count = intOf(env.SLURM_ARRAY_TASK_COUNT, 'SLURM_ARRAY_TASK_COUNT');
    const max = env.SLURM_ARRAY_TASK_MAX === undefined ? min + count - 1 : intOf(env.SLURM_ARRAY_TASK_MAX, 'SLURM_ARRAY_TASK_MAX');
    // A stepped or sparse array (--array=0-15:2, 1,5,9) gives task ids that are no slice numbers.
    if (max - min + 1 !== count) {
      throw new UsageError(`--shard auto: the Slurm array must be contiguous (--array=0-${count - 1}), not ${min}-${max} with ${count} tasks`);
    }
    return checked(id - min, count, `--shard auto (SLURM_ARRAY_TASK_ID=${id})`);
  }
  if (env.JOB_COMPLETION_INDEX !== undefined) {
    if (shardCount === undefined) throw new UsageError('--shard auto with JOB_COMPLETION_INDEX needs --shard-count N (the Job\'s completions)');
    return checked(intOf(env.JOB_COMPLETION_INDEX, 'JOB_COMPLETION_INDEX'), intOf(shardCount, '--shard-count'), '--shard auto (JOB_COMPLETION_INDEX)');
  }
  throw new UsageError('--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm array task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set');
}

function intOf(v: string | undefined, name: string): number {
  if (v === undefined || !/^\d+$/.test(v.trim())) throw new UsageError(`${name}=${JSON.stringify(v ?? '')}: expected a whole number`);
  return Number(v);
}

function checked(index: number, count: number, what: string): ShardSpec {
  if (count < 1 || index >= count) throw new UsageError(`${what}: the shard number must be 0 to N-1 with N ≥ 1 (0-based)`);
  return { index, count };
}
