import type { ColorBucket, Task } from '../api/types.js';
import { nodeColors } from '../compare/colors.js';

/**
 * Precision-index → colour lookup over the file's own `Colors` buckets (msprobe-format.md §3.9).
 * The rule is the reference viewer's, so the same file looks the same in both tools.
 */

/** msprobe's grey; used when a file names no colour for unmatched nodes. */
export const UNMATCHED_FALLBACK = '#C7C7C7';
/** Older files mark the unmatched bucket with this string instead of an empty range. */
export const UNMATCHED_LEGACY_VALUE = '无匹配节点';

export function isUnmatchedBucket(bucket: ColorBucket): boolean {
  const { value } = bucket;
  return value === UNMATCHED_LEGACY_VALUE || (Array.isArray(value) && value.length === 0);
}

export function unmatchedColor(colors: readonly ColorBucket[]): string {
  return colors.find(isUnmatchedBucket)?.color ?? UNMATCHED_FALLBACK;
}

/**
 * First bucket with `lo <= v < hi`; the closed ends exist because msprobe writes `[0.8, 1]` for "up to and including 1"
 * and `[1, 1]` / `[0, 0]` for md5 pass/diff, which a half-open test would never hit.
 * Returns null for NaN or a value outside every bucket.
 */
export function bucketColor(colors: readonly ColorBucket[], v: number): string | null {
  if (Number.isNaN(v)) return null;
  for (const bucket of colors) {
    const range = bucket.value;
    if (!Array.isArray(range) || range.length < 2) continue;
    const lo = Number(range[0]);
    const hi = Number(range[1]);
    if ((lo <= v && v < hi) || (hi === 1 && v === 1) || (lo === 0 && v === 0)) return bucket.color;
  }
  return null;
}

/*
 * The colour editor (reference-viewer.md §3.4 "Colour editor"): up to five buckets from a fixed palette, each colour
 * once, bounds in [0, 1] with at most five decimals, left < right, left-closed right-open ranges that do not overlap.
 * The unmatched grey is not edited: it is always kept after the edited buckets.
 */

/** The editor's palette, in the original's order (tf-color-select `standardColorList`). */
export const BUCKET_PALETTE = ['#FFFCF3', '#FFEDBE', '#FFDC7F', '#FFC62E', '#FF9B3D', '#FF704D', '#FF4118'] as const;
export const MAX_BUCKETS = 5;
export const MAX_BOUND_DECIMALS = 5;

/** What is wrong with an edited bucket list; `index` counts the edited (non-grey) buckets from 0. Codes, for en/zh. */
export type BucketProblem =
  | { code: 'noBuckets' }
  | { code: 'tooManyBuckets'; count: number }
  | { code: 'colorNotInPalette'; index: number; color: string }
  | { code: 'colorRepeated'; index: number; first: number }
  | { code: 'notARange'; index: number }
  | { code: 'boundOutOfRange'; index: number; bound: 0 | 1 }
  | { code: 'tooManyDecimals'; index: number; bound: 0 | 1 }
  | { code: 'emptyRange'; index: number }
  | { code: 'overlap'; index: number; other: number };

/** Decimal places of a number as written (`0.12345` → 5, `1e-7` → 7). */
function decimals(v: number): number {
  const [mantissa, exponent] = String(v).split('e');
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/**
 * Every problem of an edited bucket list (empty = it can be saved). Unmatched buckets in the list are skipped: the
 * grey is added back by withUnmatchedBucket. Degenerate `[x, x]` ranges (msprobe's md5 pass/diff buckets) are refused
 * like the original editor refuses them; presets are taken as they are.
 */
export function validateBuckets(buckets: readonly ColorBucket[]): BucketProblem[] {
  const edited = buckets.filter((b) => !isUnmatchedBucket(b));
  const problems: BucketProblem[] = [];
  if (edited.length === 0) return [{ code: 'noBuckets' }];
  if (edited.length > MAX_BUCKETS) problems.push({ code: 'tooManyBuckets', count: edited.length });
  const palette: readonly string[] = BUCKET_PALETTE;
  const firstOf = new Map<string, number>();
  const ranges: Array<[number, number] | null> = [];
  edited.forEach((b, index) => {
    const color = b.color.toUpperCase();
    if (!palette.includes(color)) problems.push({ code: 'colorNotInPalette', index, color: b.color });
    const first = firstOf.get(color);
    if (first === undefined) firstOf.set(color, index);
    else problems.push({ code: 'colorRepeated', index, first });
    const v = b.value;
    if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      problems.push({ code: 'notARange', index });
      ranges.push(null);
      return;
    }
    let bad = false;
    for (const bound of [0, 1] as const) {
      if (v[bound] < 0 || v[bound] > 1) {
        problems.push({ code: 'boundOutOfRange', index, bound });
        bad = true;
      } else if (decimals(v[bound]) > MAX_BOUND_DECIMALS) {
        problems.push({ code: 'tooManyDecimals', index, bound });
      }
    }
    if (!(v[0] < v[1])) {
      problems.push({ code: 'emptyRange', index });
      bad = true;
    }
    ranges.push(bad ? null : [v[0], v[1]]);
  });
  // [a, b) and [c, d) share a value when a < d and c < b.
  for (let i = 0; i < ranges.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = ranges[i];
      const b = ranges[j];
      if (a && b && a[0] < b[1] && b[0] < a[1]) problems.push({ code: 'overlap', index: i, other: j });
    }
  }
  return problems;
}

/** msprobe's unmatched bucket (msprobe-format.md §3.9), used when a file names none. */
export const DEFAULT_UNMATCHED_BUCKET: ColorBucket = {
  color: UNMATCHED_FALLBACK,
  value: [],
  description: '比对过程中节点未匹配上',
};

/** The edited buckets followed by the file's own unmatched bucket (msprobe's grey when it has none). */
export function withUnmatchedBucket(edited: readonly ColorBucket[], fileColors: readonly ColorBucket[]): ColorBucket[] {
  const grey = fileColors.find(isUnmatchedBucket) ?? DEFAULT_UNMATCHED_BUCKET;
  return [...edited.filter((b) => !isUnmatchedBucket(b)), grey];
}

/**
 * The "Default" preset: the buckets msprobe writes for the file's task (compare/colors.ts, §3.9), grey last; build
 * files have none.
 */
export function defaultBuckets(task: Task): ColorBucket[] {
  if (task === '') return [];
  return Object.entries(nodeColors(task)).map(([color, b]) => ({ color, value: [...b.value], description: b.description }));
}
