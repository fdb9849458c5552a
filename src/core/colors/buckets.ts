import type { ColorBucket } from '../api/types.js';

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
