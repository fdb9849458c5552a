import type { ColorBucket, IoItem, NodeDetail, Task } from '../api/types.js';
import { cellFraction, hasStat, isNonFinite, precisionDriver, RELATIVE_COLUMNS, THOUSANDTH, type PrecisionDriver } from './precisionDriver.js';
import { pyParseFloat } from './pyNumber.js';

/**
 * Where a divergence starts (issue 14's first divergent node). A node is a candidate when its `precision_index`
 * falls in the worst bucket present; walking candidates in the order outputs are produced, the first whose inputs,
 * scored by the same rule (msprobe-format.md §3.8) applied to the input rows, fall outside that bucket is where the
 * difference enters. Statistics identical on both sides never count as divergent, although msprobe's NaN rule scores
 * an output with a NaN/±inf Max or Min 1 whatever the Bench side holds (a causal mask full of −inf).
 */

export type Verdict =
  /** Outputs in the bucket, inputs not: the divergence starts here. */
  | 'source'
  /** Inputs already in the bucket: the node carries a difference made earlier. */
  | 'inherited'
  /** In the bucket only through the NaN rule on statistics identical on both sides. */
  | 'identical'
  /** An API collection: its value is its members' (§3.8), it produces nothing itself. */
  | 'aggregate';

export interface CandidateVerdict {
  verdict: Verdict;
  driver: PrecisionDriver;
  /** The inputs' value under the node's rule, on the file's scale (md5: 1 = all pass). */
  inputValue: number;
}

const STATISTICS = ['Max', 'Min', 'Mean', 'Norm'] as const;

function statValue(v: unknown): number | null {
  if (typeof v === 'number') return v;
  return typeof v === 'string' ? pyParseFloat(v) : null;
}

/** The four statistics of an item equal on both sides (NaN equal to NaN, −inf to −inf); false when any is missing. */
export function identicalStatistics(npu: IoItem, bench: IoItem | undefined): boolean {
  if (!bench) return false;
  return STATISTICS.every((key) => {
    const a = statValue(npu[key]);
    const b = statValue(bench[key]);
    return a !== null && b !== null && (a === b || (Number.isNaN(a) && Number.isNaN(b)));
  });
}

/** Items of one kind paired by position, as msprobe pairs them when both sides have the same layout (§3.3). */
function paired(npu: Record<string, IoItem>, bench: Record<string, IoItem> | undefined): Array<[IoItem, IoItem | undefined]> {
  const other = bench ? Object.values(bench) : [];
  return Object.values(npu).map((item, k) => [item, other[k]]);
}

/**
 * The rule of the node's task on one kind of items, on the file's scale, with identical statistics set aside:
 * summary = max relative error (1 for a NaN/±inf Max or Min); real tensors = 1 − the lowest One Thousandth ratio
 * (1 for NaN/±inf); md5 = 0 when some `Result` differs, else 1.
 */
export function itemsValue(items: Array<[IoItem, IoItem | undefined]>, task: Task): number {
  if (task === 'md5') return items.some(([item]) => 'Result' in item && item.Result !== 'pass') ? 0 : 1;
  let worst = 0;
  for (const [item, bench] of items) {
    if (!hasStat(item)) continue;
    const nonFinite = isNonFinite(item.Max) || isNonFinite(item.Min);
    if (nonFinite && identicalStatistics(item, bench)) continue;
    if (nonFinite) return 1;
    if (task === 'all') {
      const raw = item[THOUSANDTH];
      const ratio = typeof raw === 'number' ? raw : typeof raw === 'string' ? pyParseFloat(raw) : null;
      if (ratio !== null && !Number.isNaN(ratio)) worst = Math.max(worst, 1 - Math.min(1, ratio));
    } else {
      for (const column of RELATIVE_COLUMNS) if (column in item) worst = Math.max(worst, cellFraction(item[column]));
    }
  }
  return Math.min(worst, 1);
}

/** Whether judging the node needs its Bench counterpart: only NaN/±inf statistics can be identical yet score 1. */
export function needsCounterpart(npu: NodeDetail): boolean {
  const items = [...Object.values(npu.inputData), ...Object.values(npu.outputData)];
  return items.some((item) => hasStat(item) && (isNonFinite(item.Max) || isNonFinite(item.Min)));
}

/** Scored 1 by the NaN rule (§3.8), and every NaN/±inf output has the same statistics on the Bench side. */
export function nanRuleOnIdentical(driver: PrecisionDriver, npu: NodeDetail, bench: NodeDetail | null): boolean {
  if (driver.rule !== 'summaryNonFinite' && driver.rule !== 'realNonFiniteOut') return false;
  const nonFinite = paired(npu.outputData, bench?.outputData).filter(([item]) => hasStat(item) && (isNonFinite(item.Max) || isNonFinite(item.Min)));
  return nonFinite.length > 0 && nonFinite.every(([item, other]) => identicalStatistics(item, other));
}

/**
 * One candidate of the walk: its value (the file's) is in the bucket `inBucket` accepts. `bench` is the counterpart's
 * record when needsCounterpart said so, else null.
 */
export function judgeCandidate(npu: NodeDetail, bench: NodeDetail | null, task: Task, inBucket: (value: number) => boolean): CandidateVerdict {
  const driver = precisionDriver(npu, task);
  const inputValue = itemsValue(paired(npu.inputData, bench?.inputData), task);
  if (driver.rule === 'collection') return { verdict: 'aggregate', driver, inputValue };
  if (nanRuleOnIdentical(driver, npu, bench) && !inBucket(itemsValue(paired(npu.outputData, bench?.outputData), task))) {
    return { verdict: 'identical', driver, inputValue };
  }
  return { verdict: inBucket(inputValue) ? 'inherited' : 'source', driver, inputValue };
}

/**
 * The buckets a divergence can be in, worst first: every `[lo, hi]` bucket but the one holding the good end of the
 * scale (0; md5: 1 = all pass), ordered from the bad end (md5: 0 = some md5 differs).
 */
export function divergentBuckets(colors: readonly ColorBucket[], worst: 'high' | 'low'): ColorBucket[] {
  const ranged = colors.filter((b): b is ColorBucket & { value: number[] } => Array.isArray(b.value) && b.value.length === 2);
  const good = worst === 'high' ? 0 : 1;
  const holdsGood = (b: { value: number[] }) => b.value[0] <= good && good <= b.value[1];
  return ranged
    .filter((b) => !holdsGood(b))
    .sort((a, b) => (worst === 'high' ? b.value[1] - a.value[1] || b.value[0] - a.value[0] : a.value[0] - b.value[0] || a.value[1] - b.value[1]));
}
