import { createHash } from 'node:crypto';
import { GraphFileError } from '../store/graphStore.js';
import type { DumpUnit, RunPlan } from './dumpLayout.js';

/**
 * Partial and sharded `graph` runs (issue 19): `--ranks` / `--steps` keep some (step, rank) pairs of the plan, and
 * `--shard K/N` keeps the K-th of N contiguous, balanced slices of the pairs that remain. K is 0-based, as Slurm's
 * `--array=0-{N-1}` and Kubernetes' JOB_COMPLETION_INDEX count. Every shard of one build computes the same pairs and
 * the same build key (which names its files), so the shards group together and `merge` can check them.
 */

export interface UnitSelection {
  ranks: ReadonlySet<number> | null;
  steps: ReadonlySet<number> | null;
}

export interface ShardSpec {
  /** 0-based. */
  index: number;
  count: number;
}

/** The plan with only the selected steps and ranks; a requested one the dump lacks is an error naming the dump. */
export function selectUnits(plan: RunPlan, sel: UnitSelection, dumpDir: string): RunPlan {
  if (!sel.ranks && !sel.steps) return plan;
  const all = plan.steps.flat();
  for (const [which, wanted, have] of [
    ['steps', sel.steps, new Set(all.map((u) => u.step))],
    ['ranks', sel.ranks, new Set(all.map((u) => u.rank))],
  ] as const) {
    const missing = wanted ? [...wanted].filter((n) => !have.has(n)) : [];
    if (missing.length) {
      throw new GraphFileError(dumpDir, `--${which} ${idList(missing)}: not in the dump (it has ${which} ${idList([...have])}).`);
    }
  }
  const steps = plan.steps
    .map((units) => units.filter((u) => (!sel.steps || sel.steps.has(u.step)) && (!sel.ranks || sel.ranks.has(u.rank))))
    .filter((units) => units.length > 0);
  if (steps.length === 0) throw new GraphFileError(dumpDir, 'no step holds the selected ranks (--ranks with --steps).');
  const stepList = plan.stepList.filter((s) => steps.some((units) => units[0].step === s));
  return { ...plan, steps, stepList };
}

/** The units of shard K of N: pairs [⌊K·P/N⌋, ⌊(K+1)·P/N⌋) in plan order (step, then rank). */
export function shardUnits(plan: RunPlan, spec: ShardSpec, dumpDir: string): DumpUnit[] {
  const pairs = plan.steps.flat();
  if (spec.count > pairs.length) {
    throw new GraphFileError(
      dumpDir,
      `--shard ${spec.index}/${spec.count}: only ${pairs.length} (step, rank) pair${pairs.length === 1 ? '' : 's'} to build; use at most ${pairs.length} shards.`,
    );
  }
  const start = Math.floor((spec.index * pairs.length) / spec.count);
  const end = Math.floor(((spec.index + 1) * pairs.length) / spec.count);
  return pairs.slice(start, end);
}

/** What makes two shard runs parts of the same build: inputs, options, the pairs and the shard count. */
export interface BuildIdentity {
  kind: 'build' | 'compare';
  format: 'vis' | 'db';
  npuPath: string;
  benchPath: string | null;
  options: Record<string, unknown>;
  pairs: Array<[number, number]>;
  shards: number;
}

/** 12 hex digits of a digest of the identity: names every file of the build's shards. */
export function buildKey(id: BuildIdentity): string {
  return createHash('sha256').update(JSON.stringify(id)).digest('hex').slice(0, 12);
}

/** The name stem a shard gets in place of msprobe's timestamp: `{key}_shard{K}of{N}`, K zero-padded (sorts). */
export function shardStem(key: string, spec: ShardSpec): string {
  const width = String(spec.count - 1).length;
  return `${key}_shard${String(spec.index).padStart(width, '0')}of${spec.count}`;
}

/** `0-3,7` for [0, 1, 2, 3, 7]. */
export function idList(ids: readonly number[]): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}
