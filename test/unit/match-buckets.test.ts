import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ColorBucket } from '../../src/core/api/types.js';
import {
  BUCKET_PALETTE,
  bucketColor,
  DEFAULT_UNMATCHED_BUCKET,
  defaultBuckets,
  validateBuckets,
  withUnmatchedBucket,
} from '../../src/core/colors/buckets.js';
import { repoRoot } from '../helpers/shared.js';

/** The colour editor (reference-viewer.md §3.4): palette, validation rules, the Default preset, the grey kept. */

function fileColors(name: string): ColorBucket[] {
  const raw = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/colors', name), 'utf8')) as Record<string, { value: number[] | string; description: string }>;
  return Object.entries(raw).map(([color, b]) => ({ color, value: b.value, description: b.description }));
}

const b = (color: string, lo: number, hi: number): ColorBucket => ({ color, value: [lo, hi], description: '' });
const codes = (buckets: ColorBucket[]) => validateBuckets(buckets).map((p) => p.code);

describe('validateBuckets', () => {
  it('accepts the msprobe summary buckets of a real file (grey skipped)', () => {
    expect(validateBuckets(fileColors('summary-colors.json'))).toEqual([]);
  });

  it('accepts five buckets with five decimals that touch but do not overlap', () => {
    expect(validateBuckets([b('#FFFCF3', 0, 0.12345), b('#FFEDBE', 0.12345, 0.5), b('#FF9B3D', 0.5, 0.7), b('#FF704D', 0.7, 0.9), b('#FF4118', 0.9, 1)])).toEqual([]);
  });

  it('needs at least one bucket and at most five', () => {
    expect(codes([])).toEqual(['noBuckets']);
    expect(codes([DEFAULT_UNMATCHED_BUCKET])).toEqual(['noBuckets']);
    const six = BUCKET_PALETTE.slice(0, 6).map((c, i) => b(c, i / 6, (i + 1) / 6));
    expect(validateBuckets(six)).toContainEqual({ code: 'tooManyBuckets', count: 6 });
  });

  it('takes colours from the palette, each once', () => {
    expect(validateBuckets([b('#123456', 0, 0.5)])).toEqual([{ code: 'colorNotInPalette', index: 0, color: '#123456' }]);
    expect(validateBuckets([b('#C7C7C7', 0, 0.5)])).toEqual([{ code: 'colorNotInPalette', index: 0, color: '#C7C7C7' }]);
    expect(validateBuckets([b('#FFFCF3', 0, 0.5), b('#fffcf3', 0.5, 1)])).toEqual([{ code: 'colorRepeated', index: 1, first: 0 }]);
  });

  it('keeps bounds in [0, 1] with at most five decimals, left < right', () => {
    expect(validateBuckets([b('#FFFCF3', -0.1, 0.5)])).toEqual([{ code: 'boundOutOfRange', index: 0, bound: 0 }]);
    expect(validateBuckets([b('#FFFCF3', 0, 1.5)])).toEqual([{ code: 'boundOutOfRange', index: 0, bound: 1 }]);
    expect(validateBuckets([b('#FFFCF3', 0.123456, 0.5)])).toEqual([{ code: 'tooManyDecimals', index: 0, bound: 0 }]);
    expect(validateBuckets([b('#FFFCF3', 0, 1e-7)])).toEqual([{ code: 'tooManyDecimals', index: 0, bound: 1 }]);
    expect(codes([b('#FFFCF3', 0, 0.00001)])).toEqual([]);
    expect(codes([b('#FFFCF3', 0.5, 0.5)])).toEqual(['emptyRange']);
    expect(codes([b('#FFFCF3', 0.6, 0.5)])).toEqual(['emptyRange']);
    expect(codes([{ color: '#FFFCF3', value: [0, NaN], description: '' }])).toEqual(['notARange']);
    expect(codes([{ color: '#FFFCF3', value: 'N/A', description: '' }])).toEqual(['notARange']);
    expect(codes([{ color: '#FFFCF3', value: [0.1], description: '' }])).toEqual(['notARange']);
  });

  it('finds overlaps of left-closed right-open ranges', () => {
    expect(validateBuckets([b('#FFFCF3', 0, 0.5), b('#FFEDBE', 0.4, 1)])).toEqual([{ code: 'overlap', index: 1, other: 0 }]);
    expect(validateBuckets([b('#FFFCF3', 0.2, 0.3), b('#FFEDBE', 0, 1)])).toEqual([{ code: 'overlap', index: 1, other: 0 }]);
    expect(codes([b('#FFFCF3', 0, 0.5), b('#FFEDBE', 0.5, 1)])).toEqual([]);
  });

  it('refuses the degenerate md5 ranges like the original editor', () => {
    expect(codes(fileColors('md5-colors.json'))).toEqual(['emptyRange', 'emptyRange']);
  });
});

describe('defaultBuckets and the grey', () => {
  it('is the file’s own Colors for a statistics run', () => {
    expect(defaultBuckets('summary')).toEqual(fileColors('summary-colors.json'));
  });

  it('has md5, real-tensor, structure and build presets', () => {
    expect(defaultBuckets('md5')).toEqual(fileColors('md5-colors.json'));
    expect(defaultBuckets('all').map((x) => x.value)).toEqual([[0, 0.05], [0.05, 0.1], [0.1, 0.15], [0.15, 0.2], [0.2, 1], []]);
    expect(defaultBuckets('structure')).toEqual([DEFAULT_UNMATCHED_BUCKET]);
    expect(defaultBuckets('')).toEqual([]);
  });

  it('keeps the file’s unmatched bucket after the edited ones', () => {
    const legacy = fileColors('legacy-colors.json');
    const grey = legacy[legacy.length - 1];
    const out = withUnmatchedBucket([b('#FF4118', 0, 1), grey], legacy);
    expect(out).toEqual([b('#FF4118', 0, 1), grey]);
    expect(withUnmatchedBucket([b('#FF4118', 0, 1)], [])).toEqual([b('#FF4118', 0, 1), DEFAULT_UNMATCHED_BUCKET]);
  });

  it('colours with edited buckets like with the file’s', () => {
    const edited = withUnmatchedBucket([b('#FFFCF3', 0, 0.05), b('#FF4118', 0.05, 1)], []);
    expect(bucketColor(edited, 0.049)).toBe('#FFFCF3');
    expect(bucketColor(edited, 0.05)).toBe('#FF4118');
    expect(bucketColor(edited, 1)).toBe('#FF4118');
  });
});
